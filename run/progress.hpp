// Progress on stderr for long runs. On a terminal, one line redrawn in place after the first
// couple of seconds; otherwise (a Slurm log, nohup, a pipe) a line of its own every few tens of
// seconds, so that a long run is not silent until it ends. Never on stdout, never in results.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "sim/core/kernel.hpp"

namespace torsim {

class Progress {
 public:
  /// Seconds between the lines written when stderr is not a terminal, unless given.
  static constexpr double kDefaultLineInterval = 30;

  /// `allowed` false (--quiet): nothing. `line_interval` < 0: kDefaultLineInterval.
  explicit Progress(bool allowed, double line_interval = -1);
  ~Progress();
  /// Called from the kernel's progress hook while point `index` of `count` runs.
  void update(std::size_t index, std::size_t count, const Kernel& kernel);
  /// Called as points finish: `done` of `count`.
  void points(std::size_t done, std::size_t count);
  /// Erases the line if one was drawn.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  double elapsed() const;
  bool due();

  bool enabled_;
  bool terminal_;
  double interval_;  // seconds between lines (terminal: between redraws)
  bool drawn_ = false;
  std::size_t done_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
};

}  // namespace torsim
