#include "models/network/link_timeline.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <new>
#include <utility>
#include <vector>

namespace torsim::net {

namespace {

// Spilled interval arrays are recycled through free lists by capacity (4 * 2^k intervals):
// busy links spill and drain all the time, and malloc/free would otherwise cost more than the
// booking. They are cache-line aligned, so the first size, four intervals, is exactly one
// line. The simulator is single-threaded; arrays on the lists are never given back, so they
// come from huge-page chunks (a long queue's search touches its array at random).
constexpr std::uint32_t kFirstSpillCapacity = 4;
constexpr std::size_t kLineAlignment = 64;

}  // namespace

LinkTimeline::LinkTimeline(LinkTimeline&& other) noexcept : inline_{} { *this = std::move(other); }

LinkTimeline& LinkTimeline::operator=(LinkTimeline&& other) noexcept {
  if (this == &other) return *this;
  if (spilled_) release(heap_.data, heap_.capacity);
  std::memcpy(static_cast<void*>(inline_), static_cast<const void*>(other.inline_), sizeof(inline_));
  inline_begin_ = other.inline_begin_;
  inline_end_ = other.inline_end_;
  spilled_ = std::exchange(other.spilled_, false);
  busy_ = std::exchange(other.busy_, 0);
  tag_ = other.tag_;
  other.inline_begin_ = other.inline_end_ = 0;
  return *this;
}

LinkTimeline::~LinkTimeline() {
  if (spilled_) release(heap_.data, heap_.capacity);
}

std::size_t LinkTimeline::intervals() const { return end() - begin(); }

std::vector<std::pair<Time, Time>> LinkTimeline::busy_intervals() const {
  std::vector<std::pair<Time, Time>> out;
  for (const Interval* i = base() + begin(); i != base() + end(); ++i) out.emplace_back(i->start, i->end);
  return out;
}

void LinkTimeline::set_range(std::uint32_t begin, std::uint32_t end) {
  if (spilled_) {
    heap_.begin = begin;
    heap_.end = end;
  } else {
    inline_begin_ = static_cast<std::uint8_t>(begin);
    inline_end_ = static_cast<std::uint8_t>(end);
  }
}

namespace {
constexpr auto ends_after = [](Time t, const auto& interval) { return t < interval.end; };

// The first interval in [busy, last) that ends after t: a few steps of linear scan, then
// bisection, so that a long queue still costs O(log n).
template <class Interval>
Interval* first_ending_after(Interval* busy, Interval* last, Time t) {
  for (int step = 0; step < 8; ++step, ++busy)
    if (busy == last || busy->end > t) return busy;
  return std::upper_bound(busy, last, t, ends_after);
}

// Live intervals are usually few (a handful under saturation): moving them one by one is
// cheaper than a call to memmove, into which GCC turns such loops unless told not to
// (merge_booking). Bursts that book a link far ahead (an all-to-all posting everything at
// once) queue long runs of intervals; longer moves go to memmove.
#if defined(__GNUC__) && !defined(__clang__)
#define TORSIM_NO_LOOP_TO_MEMMOVE __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define TORSIM_NO_LOOP_TO_MEMMOVE  // clang (the sanitizer tree) has no such option
#endif
constexpr std::ptrdiff_t kShortRun = 16;
// Moves [from, last) to `to` (the ranges may overlap).
template <class Interval>
void move_intervals(Interval* to, const Interval* from, const Interval* last) {
  const std::ptrdiff_t n = last - from;
  if (n > kShortRun) {
    std::memmove(static_cast<void*>(to), static_cast<const void*>(from),
                 static_cast<std::size_t>(n) * sizeof(Interval));
  } else if (to < from) {
    while (from != last) *to++ = *from++;
  } else {
    for (std::ptrdiff_t i = n; i-- > 0;) to[i] = from[i];
  }
}
}  // namespace

// Ends are sorted too (intervals are disjoint), so the walk starts at the first interval
// still busy at `from`: a long queue booked ahead costs a binary search, not a scan.
LinkTimeline::Plan LinkTimeline::plan_from(const Interval* busy, Time from, Time duration) const {
  const Interval* last = base() + end();
  if (busy == last || from >= std::prev(last)->end) return {from, from + duration};  // after everything
  busy = std::upper_bound(busy, last, from, ends_after);
  Time t = from;
  Time remaining = duration;
  Time first = -1;
  for (; busy != last; ++busy) {
    if (busy->start > t) {
      if (first < 0) first = t;
      if (busy->start - t >= remaining) break;
      remaining -= busy->start - t;
    }
    t = std::max(t, busy->end);
  }
  if (first < 0) first = t;
  return {first, t + remaining};
}

Time LinkTimeline::first_idle(Time t) const {
  const Interval* last = base() + end();
  if (begin() == end() || t >= std::prev(last)->end) return t;
  const Interval* busy = std::upper_bound(base() + begin(), last, t, ends_after);
  return busy != last && busy->start <= t ? busy->end : t;
}

Time LinkTimeline::first_window(Time from, Time length) const {
  const Interval* last = base() + end();
  const Interval* busy = std::upper_bound(base() + begin(), last, from, ends_after);
  Time s = from;
  for (; busy != last && busy->start < s + length; ++busy) s = std::max(s, busy->end);
  return s;
}

// The head meets booked time. plan(), first_idle() and book() in one pass: the search for
// `from` starts at the head's interval, and the walk that fills gaps also finds the
// intervals the booking merges with (book() searches for them again).
Time LinkTimeline::reserve_in_queue(Time& head, Time from, Time duration) {
  Interval* const first = base() + begin();
  Interval* const last = base() + end();
  // Scans rather than bisections: the head is almost always in the first few live intervals,
  // and a scan's exit is one mispredicted branch where each bisection step is a coin toss.
  Interval* const at_head = first_ending_after(first, last, head);  // head < last end
  if (at_head->start <= head) head = at_head->end;
  if (from >= std::prev(last)->end) {  // after everything
    book_after_last(from, from + duration);
    return from + duration;
  }
  Interval* busy = first_ending_after(at_head, last, from);
  // Before the first gap, lo is the interval the booking merges with on its left: the one
  // ending exactly at `from`, or (from inside busy time) the last one crossed.
  Interval* lo = busy != first && std::prev(busy)->end == from ? std::prev(busy) : busy;
  Time t = from;
  Time remaining = duration;
  Time start = -1;
  for (; busy != last; ++busy) {
    if (busy->start > t) {
      if (start < 0) start = t;
      if (busy->start - t >= remaining) break;
      remaining -= busy->start - t;
    } else if (start < 0) {
      lo = busy;
    }
    t = std::max(t, busy->end);
  }
  if (start < 0) start = t;
  const Time end_time = t + remaining;
  if (end_time <= start) return end_time;
  Interval* const hi = busy != last && busy->start == end_time ? busy + 1 : busy;  // first starting after
  merge_booking(lo, hi, start, end_time);
  return end_time;
}

void LinkTimeline::book_after_last(Time start, Time end_time) {
  if (end_time <= start) return;
  if (begin() != end() && start == base()[end() - 1].end) {
    base()[end() - 1].end = end_time;
    return;
  }
  if (end() == (spilled_ ? heap_.capacity : kInline)) make_room();
  base()[end()] = {start, end_time};
  set_range(begin(), end() + 1);
}

LinkTimeline::Interval* LinkTimeline::allocate(std::uint32_t capacity) {
  auto& list = free_list(capacity);
  if (list.empty()) return static_cast<Interval*>(arrays().allocate(capacity * sizeof(Interval), kLineAlignment));
  Interval* array = list.back();
  list.pop_back();
  return array;
}

void LinkTimeline::release(Interval* array, std::uint32_t capacity) { free_list(capacity).push_back(array); }

// Never unmapped: a timeline destroyed during static destruction may still release its array.
HugePageArena& LinkTimeline::arrays() {
  static HugePageArena& arena = *new HugePageArena;
  return arena;
}

std::vector<LinkTimeline::Interval*>& LinkTimeline::free_list(std::uint32_t capacity) {
  struct FreeLists {
    std::vector<std::vector<Interval*>> by_size = std::vector<std::vector<Interval*>>(32);
  };
  static FreeLists lists;
  std::size_t k = 0;
  while ((kFirstSpillCapacity << (k + 1)) <= capacity && k + 1 < lists.by_size.size()) ++k;
  return lists.by_size[k];
}

// Compacts whenever there is room at the front and the move is short (or the array at most
// half full, which keeps long queues amortised O(1)): an array then grows only when full of
// live intervals, and a timeline spills only with more than kInline of them. (Growing
// instead let arrays creep to 24-48 intervals around a handful of live ones: megabytes of
// cache for the busiest links.)
void LinkTimeline::make_room() {
  constexpr std::uint32_t kShortMove = 16;
  const std::uint32_t live = end() - begin();
  const std::uint32_t capacity = spilled_ ? heap_.capacity : kInline;
  if (begin() > 0 && (live <= kShortMove || live * 2 <= capacity)) {
    std::memmove(base(), base() + begin(), live * sizeof(Interval));
    return set_range(0, live);
  }
  const std::uint32_t larger = spilled_ ? capacity * 2 : kFirstSpillCapacity;
  auto* bigger = allocate(larger);
  std::copy(base() + begin(), base() + end(), bigger);
  if (spilled_) release(heap_.data, heap_.capacity);
  spilled_ = true;
  heap_ = {bigger, 0, live, larger};
}

// Every gap between plan.first and plan.end was filled, so the booked time and the intervals
// it touches (or abuts) become one interval.
void LinkTimeline::book(const Plan& plan) {
  if (plan.end <= plan.first) return;
  Interval* first = base() + begin();
  Interval* last = base() + end();
  if (first != last && plan.first == std::prev(last)->end) {  // extends the last interval
    std::prev(last)->end = plan.end;
    return;
  }
  Interval* lo = std::lower_bound(first, last, plan.first, [](const Interval& b, Time t) { return b.end < t; });
  Interval* hi = std::upper_bound(lo, last, plan.end, [](Time t, const Interval& b) { return t < b.start; });
  merge_booking(lo, hi, plan.first, plan.end);
}

// [lo, hi) are the intervals [start, end_time) overlaps or abuts: they become one interval
// with it; with none, it is inserted at lo. Either way the intervals on the shorter side move
// (the ones before lo into free room at the front, or the ones from hi on), so that a booking
// in the middle of a long queue moves half of it at most.
TORSIM_NO_LOOP_TO_MEMMOVE
void LinkTimeline::merge_booking(Interval* lo, Interval* hi, Time start, Time end_time) {
  Interval* const first = base() + begin();
  Interval* const last = base() + end();
  if (lo != hi) {
    const Interval merged{std::min(lo->start, start), std::max(std::prev(hi)->end, end_time)};
    const auto removed = static_cast<std::uint32_t>(hi - lo - 1);
    if (removed == 0) {  // it touches one interval, which grows: nothing moves
      *lo = merged;
      return;
    }
    if (lo - first < last - hi) {  // the front moves up onto the merged intervals
      move_intervals(first + removed, first, lo);
      *std::prev(hi) = merged;
      return set_range(begin() + removed, end());
    }
    *lo = merged;
    move_intervals(lo + 1, hi, last);
    return set_range(begin(), end() - removed);
  }
  if (begin() > 0 && lo - first < last - lo) {  // the front moves down into the room before it
    move_intervals(first - 1, first, lo);
    *std::prev(lo) = {start, end_time};
    return set_range(begin() - 1, end());
  }
  const auto position = static_cast<std::uint32_t>(lo - first);
  if (end() == (spilled_ ? heap_.capacity : kInline)) make_room();
  Interval* at = base() + begin() + position;
  move_intervals(at + 1, at, base() + end());
  *at = {start, end_time};
  set_range(begin(), end() + 1);
}

void LinkTimeline::forget_ended(Time now) {
  std::uint32_t b = begin();
  const std::uint32_t e = end();
  const Interval* busy = base();
  while (b < e && busy[b].end <= now) ++b;
  set_range(b == e ? 0 : b, b == e ? 0 : e);
  move_inline_if_small();
}

// A drained link goes back to its cache line; the heap array is freed.
void LinkTimeline::move_inline_if_small() {
  if (!spilled_ || heap_.end - heap_.begin > kInline) return;
  const Spilled spilled = heap_;
  spilled_ = false;
  std::copy(spilled.data + spilled.begin, spilled.data + spilled.end, inline_);
  inline_begin_ = 0;
  inline_end_ = static_cast<std::uint8_t>(spilled.end - spilled.begin);
  release(spilled.data, spilled.capacity);
}

}  // namespace torsim::net
