// The busy intervals booked on one link (or copy engine). A transfer asks for the earliest
// idle window of a given length at or after a time; booked windows never overlap.
//
// Kept to one cache line while a link has at most three live intervals (the common case):
// touching a link's timeline is the packet model's main memory cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "sim/time.hpp"

namespace torsim::net {

class alignas(64) LinkTimeline {
 public:
  struct Slot {
    Time start;      // start of the window found
    Time gap_start;  // start of the idle gap that contains it (kIdleSinceEver if none before)
  };
  static constexpr Time kIdleSinceEver = -1;

  LinkTimeline() = default;
  LinkTimeline(const LinkTimeline&) = delete;
  LinkTimeline& operator=(const LinkTimeline&) = delete;
  LinkTimeline(LinkTimeline&& other) noexcept;
  LinkTimeline& operator=(LinkTimeline&& other) noexcept;
  ~LinkTimeline() = default;

  /// Earliest window [start, start + duration) of idle time with start >= earliest.
  Slot find(Time earliest, Time duration) const;
  /// Books [start, start + duration); the caller found it idle with find().
  void book(Time start, Time duration);
  /// Forgets intervals that ended at or before `now` (no booking can start before now).
  void forget_before(Time now);
  std::size_t intervals() const { return end_ - begin_; }

 private:
  struct Interval {
    Time start, end;
  };
  static constexpr std::uint32_t kInline = 3;
  Interval* data() { return heap_ ? heap_.get() : inline_; }
  const Interval* data() const { return heap_ ? heap_.get() : inline_; }
  /// Makes room for one more interval at the end (moves live ones to the front, or grows).
  void make_room();

  Interval inline_[kInline];
  std::unique_ptr<Interval[]> heap_;  // used instead of inline_ once more than kInline live
  // Live intervals are data()[begin_, end_): sorted, disjoint, touching intervals merged.
  std::uint32_t begin_ = 0;
  std::uint32_t end_ = 0;
  std::uint32_t capacity_ = kInline;
};

}  // namespace torsim::net
