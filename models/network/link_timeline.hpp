// The busy intervals booked on one link (or copy engine). A transfer asks for the earliest
// idle window of a given length at or after a time; booked windows never overlap.
//
// One cache line per link: up to three live intervals are stored inline (the common case);
// more spill to a heap array, and come back inline when the link drains. Touching links'
// timelines is the packet model's main memory cost.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/time.hpp"

namespace torsim::net {

class alignas(64) LinkTimeline {
 public:
  struct Slot {
    Time start;      // start of the window found
    Time gap_start;  // start of the idle gap that contains it (kIdleSinceEver if none before)
  };
  static constexpr Time kIdleSinceEver = -1;

  LinkTimeline() : inline_{} {}
  LinkTimeline(const LinkTimeline&) = delete;
  LinkTimeline& operator=(const LinkTimeline&) = delete;
  LinkTimeline(LinkTimeline&& other) noexcept;
  LinkTimeline& operator=(LinkTimeline&& other) noexcept;
  ~LinkTimeline();

  /// Earliest window [start, start + duration) of idle time with start >= earliest.
  Slot find(Time earliest, Time duration) const;
  /// Books [start, start + duration); the caller found it idle with find().
  void book(Time start, Time duration);
  /// Forgets intervals that ended at or before `now` (no booking can start before now).
  void forget_before(Time now);
  std::size_t intervals() const;

 private:
  struct Interval {
    Time start, end;
  };
  struct Spilled {
    Interval* data;
    std::uint32_t begin, end, capacity;
  };
  static constexpr std::uint8_t kInline = 3;

  // Live intervals are first()..last(): sorted, disjoint, touching intervals merged.
  Interval* base() { return spilled_ ? heap_.data : inline_; }
  const Interval* base() const { return spilled_ ? heap_.data : inline_; }
  std::uint32_t begin() const { return spilled_ ? heap_.begin : inline_begin_; }
  std::uint32_t end() const { return spilled_ ? heap_.end : inline_end_; }
  void set_range(std::uint32_t begin, std::uint32_t end);
  /// Makes room for one more interval (compacts, spills to the heap, or grows it).
  void make_room();
  void move_inline_if_small();

  union {
    Interval inline_[kInline];
    Spilled heap_;
  };
  std::uint8_t inline_begin_ = 0;
  std::uint8_t inline_end_ = 0;
  bool spilled_ = false;
};

static_assert(sizeof(LinkTimeline) == 64, "a link's timeline should fill exactly one cache line");

}  // namespace torsim::net
