// A progress line on stderr for runs longer than a couple of seconds, only when stderr is a
// terminal (never in logs or CI output).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "sim/core/kernel.hpp"

namespace torsim {

class Progress {
 public:
  explicit Progress(bool allowed);
  ~Progress();
  /// Called from the kernel's progress hook while point `index` of `count` runs.
  void update(std::size_t index, std::size_t count, const Kernel& kernel);
  /// Called as points run in child processes finish: `done` of `count`.
  void points(std::size_t done, std::size_t count);
  /// Erases the line if one was drawn.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
};

}  // namespace torsim
