// The busy intervals booked on one link (or copy engine). A transfer asks for the earliest
// idle window of a given length at or after a time; booked windows never overlap.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/time.hpp"

namespace torsim::net {

class LinkTimeline {
 public:
  struct Slot {
    Time start;      // start of the window found
    Time gap_start;  // start of the idle gap that contains it (kIdleSinceEver if none before)
  };
  static constexpr Time kIdleSinceEver = -1;

  /// Earliest window [start, start + duration) of idle time with start >= earliest.
  Slot find(Time earliest, Time duration) const;
  /// Books [start, start + duration); the caller found it idle with find().
  void book(Time start, Time duration);
  /// Forgets intervals that ended at or before `now` (no booking can start before now).
  void forget_before(Time now);
  std::size_t intervals() const { return busy_.size() - first_; }

 private:
  struct Interval {
    Time start, end;
  };
  std::vector<Interval> busy_;  // sorted, disjoint, touching intervals merged
  std::size_t first_ = 0;       // busy_[0, first_) have ended
};

}  // namespace torsim::net
