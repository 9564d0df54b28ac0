// What SIGINT, SIGTERM and SIGHUP do to a torsim process: the files and directories it
// registered are removed, the child processes it registered get the same signal, it says
// "interrupted" on stderr, and it ends by that signal. The handler allocates nothing: it reads
// fixed tables filled by the guards below.
#pragma once

#include <string>

#include <csignal>

#include <sys/types.h>

namespace torsim {

/// Installs the handlers (once; the guards below do it too).
void handle_interrupts();

/// A path removed if the process is interrupted before the guard is destroyed (files unlinked,
/// directories removed once empty, the latest registered first). A `tree` is a directory
/// removed with all it holds: a staging directory of any number of files (a recording of
/// 16,384 ranks) takes one of the handler's 128 slots.
class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::string& path, bool tree = false);
  ~RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;

 private:
  int slot_;
};

/// A child process that gets the signal that interrupts this one, while the guard lives.
class ForwardSignals {
 public:
  explicit ForwardSignals(pid_t child);
  ~ForwardSignals();
  ForwardSignals(const ForwardSignals&) = delete;
  ForwardSignals& operator=(const ForwardSignals&) = delete;

 private:
  int slot_;
};

/// Holds SIGINT, SIGTERM and SIGHUP back in this thread while it lives (delivered when it ends):
/// a fork under it registers its child before a signal can come, and the child resets its
/// handlers before it can receive one.
class BlockInterrupts {
 public:
  BlockInterrupts();
  ~BlockInterrupts() { restore(); }
  BlockInterrupts(const BlockInterrupts&) = delete;
  BlockInterrupts& operator=(const BlockInterrupts&) = delete;
  /// The mask as it was (idempotent).
  void restore();

 private:
  sigset_t previous_;
  bool blocked_ = false;
};

/// In a freshly forked child: the default actions again, so that a forwarded signal ends it at
/// once and it does not act on its parent's tables.
void reset_interrupts_in_child();

}  // namespace torsim
