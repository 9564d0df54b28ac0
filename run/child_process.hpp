// Runs pieces of work in forked child processes and brings their JSON results back: for
// backends that allow one simulation per process (SimGrid), for benchmarks that should each
// start from a fresh heap rather than from what earlier measurements left behind, and for sweep
// points run in parallel (torsim run --jobs).
#pragma once

#include <sys/types.h>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "run/interrupt.hpp"

namespace torsim {

using Json = nlohmann::json;

/// A forked child running `work`; its result comes back through a pipe (doubles round-trip
/// exactly). The child exits without unwinding: the parent's objects are copies it must not
/// destroy twice.
class ChildProcess {
 public:
  ChildProcess(const std::function<Json()>& work, std::string what);
  /// Kills and reaps a child still running.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int fd() const { return fd_; }
  /// Reads what the child has written so far; false once it has closed its end.
  bool read_available();
  /// Waits for the child and returns its result. An InputError in the child is rethrown as one;
  /// any other exception as std::runtime_error with its message; a child that died is reported
  /// with `what` ("the simgrid backend", say) and its exit status.
  Json result();

 private:
  std::string what_;
  pid_t pid_ = -1;
  std::unique_ptr<ForwardSignals> forward_;  // an interrupt of this process ends the child too
  int fd_ = -1;
  std::string reply_;
};

/// Runs `work` in one child and returns what it returned (see ChildProcess::result).
Json run_in_child_process(const std::function<Json()>& work, const std::string& what);

/// Runs work(0) .. work(count - 1), each in a child, at most `jobs` at a time, and calls
/// done(i, result) in the parent as each finishes (in any order). The first failure is rethrown
/// once the children still running are killed.
void run_in_children(std::size_t count, std::size_t jobs, const std::function<Json(std::size_t)>& work,
                     const std::function<void(std::size_t, Json)>& done, const std::string& what);

}  // namespace torsim
