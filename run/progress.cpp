#include "run/progress.hpp"

#include <unistd.h>
#include <cstdio>

#include "sim/config/units.hpp"

namespace torsim {

Progress::Progress(bool allowed, double line_interval)
    : enabled_(allowed),
      terminal_(isatty(STDERR_FILENO)),
      interval_(terminal_           ? 0.2
                : line_interval < 0 ? kDefaultLineInterval
                                    : line_interval) {}

Progress::~Progress() { finish(); }

double Progress::elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

// A terminal's line appears after 2 s and is redrawn at most 5 times a second; a log's lines
// come every interval_ seconds, the first one interval_ seconds in.
bool Progress::due() {
  if (!enabled_) return false;
  const auto now = Clock::now();
  const auto since_start = std::chrono::duration<double>(now - start_).count();
  const auto since_last = std::chrono::duration<double>(now - (drawn_ || !terminal_ ? last_draw_ : start_)).count();
  if (terminal_ ? since_start < 2 || since_last < interval_ : since_start < interval_ || since_last < interval_)
    return false;
  last_draw_ = now;
  return true;
}

void Progress::update(std::size_t index, std::size_t count, const Kernel& kernel) {
  if (!due()) return;
  const double wall = elapsed();
  const double events = static_cast<double>(kernel.events_processed()) / 1e6;
  if (terminal_) {
    std::fprintf(stderr, "\r  point %zu/%zu  simulated %-10s  %.1fM events  %.2fM events/s  %.0fs   ", index + 1, count,
                 format_time(kernel.now()).c_str(), events, events / wall, wall);
    drawn_ = true;
  } else {
    std::fprintf(stderr,
                 "progress: %zu/%zu points done; point %zu at %s simulated, %.1fM events, %.2fM events/s; %.0f s\n",
                 done_, count, index + 1, format_time(kernel.now()).c_str(), events, events / wall, wall);
  }
  std::fflush(stderr);
}

void Progress::points(std::size_t done, std::size_t count) {
  done_ = done;
  if (!due()) return;
  const double wall = elapsed();
  if (terminal_) {
    std::fprintf(stderr, "\r  points done %zu/%zu  %.0fs   ", done, count, wall);
    drawn_ = true;
  } else {
    std::fprintf(stderr, "progress: %zu/%zu points done, %.2f points/s; %.0f s\n", done, count,
                 static_cast<double>(done) / wall, wall);
  }
  std::fflush(stderr);
}

void Progress::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r%100s\r", "");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace torsim
