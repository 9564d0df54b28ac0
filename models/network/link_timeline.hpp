// The busy intervals booked on one link (or copy engine). A transfer books `duration` of the
// link's idle time from a given instant on: it fills idle gaps in order, as its packets would
// slip between other traffic's, and finishes when it has had its whole duration. Booked time
// never overlaps.
//
// One cache line per link: up to three live intervals are stored inline (the common case);
// more spill to a heap array, and come back inline when the link drains. Touching links'
// timelines is the packet model's main memory cost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/huge_pages.hpp"
#include "sim/core/time.hpp"

namespace torsim::net {

class alignas(64) LinkTimeline {
 public:
  struct Plan {
    Time first;  // start of the first idle time used
    Time end;    // when the whole duration has been served
  };

  LinkTimeline() : inline_{} {}
  LinkTimeline(const LinkTimeline&) = delete;
  LinkTimeline& operator=(const LinkTimeline&) = delete;
  LinkTimeline(LinkTimeline&& other) noexcept;
  LinkTimeline& operator=(LinkTimeline&& other) noexcept;
  ~LinkTimeline();

  /// Where `duration` of idle time from `from` on would go, without booking it.
  Plan plan(Time from, Time duration) const { return plan_from(base() + begin(), from, duration); }
  /// Books a plan made by plan() (nothing booked in between).
  void book(const Plan& plan);
  /// The first instant at or after `t` when the link is idle.
  Time first_idle(Time t) const;
  /// The earliest s >= `from` such that the link is idle throughout [s, s + length).
  Time first_window(Time from, Time length) const;
  /// Books plan(from, duration) and returns its end; sets `head` to first_idle(head) (head
  /// <= from). One search, and none when the link is idle from the head on (half the hops
  /// under load: that case is inline). Counts `duration` as busy time. (`head` is updated in
  /// place because GCC vectorised the use of a returned pair through a store-forwarding stall.)
  Time reserve(Time& head, Time from, Time duration) {
    busy_ += duration;
    if (begin() == end() || head >= base()[end() - 1].end) {
      book_after_last(from, from + duration);
      return from + duration;
    }
    return reserve_in_queue(head, from, duration);
  }
  /// Busy time counted by reserve() and add_busy(): kept here, in the line a booking touches
  /// anyway, rather than in a per-link array that would cost a second cache miss.
  Time busy() const { return busy_; }
  void add_busy(Time duration) { busy_ += duration; }
  /// A value the owner keeps with the timeline, in its cache line (the packet model: an
  /// index to the link's bandwidth and latency).
  std::uint32_t tag() const { return tag_; }
  void set_tag(std::uint32_t tag) { tag_ = tag; }
  /// Forgets intervals that ended at or before `now` (no booking can start before now).
  void forget_before(Time now) {
    if (begin() != end() && base()[begin()].end <= now) forget_ended(now);
  }
  std::size_t intervals() const;
  /// The live busy intervals as (start, end) pairs, in order (for tests).
  std::vector<std::pair<Time, Time>> busy_intervals() const;
  /// Asks for the cache lines of the first and last live intervals (a heap array's when spilled).
  void prefetch_intervals() const {
    __builtin_prefetch(base() + begin());
    __builtin_prefetch(base() + end() - 1);
  }

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
  /// plan() with the search for `from` starting at `busy` (no interval before it ends after `from`).
  Plan plan_from(const Interval* busy, Time from, Time duration) const;
  /// Books [start, end) at or after the end of the last interval.
  void book_after_last(Time start, Time end);
  void forget_ended(Time now);
  void merge_booking(Interval* lo, Interval* hi, Time start, Time end_time);
  Time reserve_in_queue(Time& head, Time from, Time duration);
  /// Makes room for one more interval (compacts, spills to the heap, or grows it).
  void make_room();
  static Interval* allocate(std::uint32_t capacity);
  static void release(Interval* array, std::uint32_t capacity);
  static std::vector<Interval*>& free_list(std::uint32_t capacity);
  static HugePageArena& arrays();
  void move_inline_if_small();

  union {
    Interval inline_[kInline];
    Spilled heap_;
  };
  std::uint8_t inline_begin_ = 0;
  std::uint8_t inline_end_ = 0;
  bool spilled_ = false;
  std::uint32_t tag_ = 0;
  Time busy_ = 0;
};

static_assert(sizeof(LinkTimeline) == 64, "a link's timeline should fill exactly one cache line");

}  // namespace torsim::net
