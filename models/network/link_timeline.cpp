#include "models/network/link_timeline.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

namespace torsim::net {

LinkTimeline::LinkTimeline(LinkTimeline&& other) noexcept : inline_{} { *this = std::move(other); }

LinkTimeline& LinkTimeline::operator=(LinkTimeline&& other) noexcept {
  if (this == &other) return *this;
  if (spilled_) delete[] heap_.data;
  std::memcpy(static_cast<void*>(inline_), static_cast<const void*>(other.inline_), sizeof(inline_));
  inline_begin_ = other.inline_begin_;
  inline_end_ = other.inline_end_;
  spilled_ = std::exchange(other.spilled_, false);
  other.inline_begin_ = other.inline_end_ = 0;
  return *this;
}

LinkTimeline::~LinkTimeline() {
  if (spilled_) delete[] heap_.data;
}

std::size_t LinkTimeline::intervals() const { return end() - begin(); }

void LinkTimeline::set_range(std::uint32_t begin, std::uint32_t end) {
  if (spilled_) {
    heap_.begin = begin;
    heap_.end = end;
  } else {
    inline_begin_ = static_cast<std::uint8_t>(begin);
    inline_end_ = static_cast<std::uint8_t>(end);
  }
}

// Ends are sorted too (intervals are disjoint), so the scan starts at the first interval
// still busy at `earliest`; a long queue booked ahead costs a binary search, not a walk.
LinkTimeline::Slot LinkTimeline::find(Time earliest, Time duration) const {
  const Interval* first = base() + begin();
  const Interval* last = base() + end();
  const Interval* busy = std::upper_bound(first, last, earliest, [](Time t, const Interval& b) { return t < b.end; });
  Time candidate = earliest;
  Time gap_start = busy == first ? kIdleSinceEver : std::prev(busy)->end;
  for (; busy != last; ++busy) {
    if (candidate + duration <= busy->start) break;
    candidate = busy->end;
    gap_start = busy->end;
  }
  return {candidate, gap_start};
}

void LinkTimeline::make_room() {
  const std::uint32_t live = end() - begin();
  const std::uint32_t capacity = spilled_ ? heap_.capacity : kInline;
  if (begin() > 0 && live * 2 <= capacity) {
    std::memmove(base(), base() + begin(), live * sizeof(Interval));
    return set_range(0, live);
  }
  auto* bigger = new Interval[capacity * 2];
  std::copy(base() + begin(), base() + end(), bigger);
  if (spilled_) delete[] heap_.data;
  spilled_ = true;
  heap_ = {bigger, 0, live, capacity * 2u};
}

void LinkTimeline::book(Time start, Time duration) {
  if (duration <= 0) return;
  const Time end_time = start + duration;
  Interval* first = base() + begin();
  Interval* last = base() + end();
  Interval* next = std::lower_bound(first, last, start, [](const Interval& b, Time t) { return b.start < t; });
  const bool joins_previous = next != first && std::prev(next)->end == start;
  const bool joins_next = next != last && next->start == end_time;
  if (joins_previous && joins_next) {
    std::prev(next)->end = next->end;
    std::memmove(next, next + 1, static_cast<std::size_t>(last - next - 1) * sizeof(Interval));
    set_range(begin(), end() - 1);
  } else if (joins_previous) {
    std::prev(next)->end = end_time;
  } else if (joins_next) {
    next->start = start;
  } else {
    const auto position = static_cast<std::uint32_t>(next - first);
    if (end() == (spilled_ ? heap_.capacity : kInline)) make_room();
    next = base() + begin() + position;
    std::memmove(next + 1, next, static_cast<std::size_t>(base() + end() - next) * sizeof(Interval));
    *next = {start, end_time};
    set_range(begin(), end() + 1);
  }
}

void LinkTimeline::forget_before(Time now) {
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
  delete[] spilled.data;
}

}  // namespace torsim::net
