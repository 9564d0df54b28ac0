// Errors in user input: a file, a JSON pointer into it and what was expected. main() turns
// them into one message and exit code 2; library code never exits.
#pragma once

#include <stdexcept>
#include <string>

namespace torsim {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string json_path, std::string message)
      : std::runtime_error(compose(file, json_path, message)),
        file_(std::move(file)),
        path_(std::move(json_path)),
        message_(std::move(message)) {}

  const std::string& file() const { return file_; }
  /// JSON pointer (RFC 6901) of the offending value; "" is the whole document.
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

 private:
  static std::string compose(const std::string& file, const std::string& path, const std::string& msg) {
    std::string where = file.empty() ? "<input>" : file;
    return where + ": at " + (path.empty() ? "/" : path) + ": " + msg;
  }
  std::string file_, path_, message_;
};

/// A usage error on the command line (exit code 2 as well).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace torsim
