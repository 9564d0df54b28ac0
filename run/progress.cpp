#include "run/progress.hpp"

#include <unistd.h>
#include <cstdio>

#include "sim/config/units.hpp"

namespace torsim {

Progress::Progress(bool allowed) : enabled_(allowed && isatty(STDERR_FILENO)) {}

Progress::~Progress() { finish(); }

void Progress::update(std::size_t index, std::size_t count, const Kernel& kernel) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - start_ < std::chrono::seconds(2) || now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  const double wall = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r  point %zu/%zu  simulated %-10s  %.1fM events  %.2fM events/s  %.0fs   ", index + 1, count,
               format_time(kernel.now()).c_str(), static_cast<double>(kernel.events_processed()) / 1e6,
               static_cast<double>(kernel.events_processed()) / 1e6 / wall, wall);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::points(std::size_t done, std::size_t count) {
  if (!enabled_) return;
  const double wall = std::chrono::duration<double>(Clock::now() - start_).count();
  std::fprintf(stderr, "\r  points done %zu/%zu  %.0fs   ", done, count, wall);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r%100s\r", "");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace torsim
