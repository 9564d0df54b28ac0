// A file mapped read-only into memory: the readers decode traces in place, without copying
// them and without reading more than the pages they touch.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace torsim::replay {

class MappedFile {
 public:
  /// Maps `path`; an InputError naming the file if it cannot be read (missing, a directory).
  explicit MappedFile(std::string path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::string_view text() const { return {reinterpret_cast<const char*>(data_), size_}; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace torsim::replay
