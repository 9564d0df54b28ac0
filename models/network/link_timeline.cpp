#include "models/network/link_timeline.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace torsim::net {

LinkTimeline::LinkTimeline(LinkTimeline&& other) noexcept { *this = std::move(other); }

LinkTimeline& LinkTimeline::operator=(LinkTimeline&& other) noexcept {
  std::copy(other.inline_, other.inline_ + kInline, inline_);
  heap_ = std::move(other.heap_);
  begin_ = std::exchange(other.begin_, 0);
  end_ = std::exchange(other.end_, 0);
  capacity_ = std::exchange(other.capacity_, kInline);
  return *this;
}

// Ends are sorted too (intervals are disjoint), so the scan starts at the first interval
// still busy at `earliest`; a long queue booked ahead costs a binary search, not a walk.
LinkTimeline::Slot LinkTimeline::find(Time earliest, Time duration) const {
  const Interval* busy = data();
  const Interval* first = std::upper_bound(busy + begin_, busy + end_, earliest,
                                           [](Time t, const Interval& b) { return t < b.end; });
  Time candidate = earliest;
  Time gap_start = first == busy + begin_ ? kIdleSinceEver : std::prev(first)->end;
  for (const Interval* b = first; b != busy + end_; ++b) {
    if (candidate + duration <= b->start) break;
    candidate = b->end;
    gap_start = b->end;
  }
  return {candidate, gap_start};
}

void LinkTimeline::make_room() {
  Interval* busy = data();
  if (begin_ > 0 && (end_ - begin_) * 2 <= capacity_) {
    std::memmove(busy, busy + begin_, (end_ - begin_) * sizeof(Interval));
    end_ -= begin_;
    begin_ = 0;
    return;
  }
  auto bigger = std::make_unique<Interval[]>(capacity_ * 2);
  std::copy(busy + begin_, busy + end_, bigger.get());
  end_ -= begin_;
  begin_ = 0;
  heap_ = std::move(bigger);
  capacity_ *= 2;
}

void LinkTimeline::book(Time start, Time duration) {
  if (duration <= 0) return;
  const Time end = start + duration;
  Interval* busy = data();
  Interval* next = std::lower_bound(busy + begin_, busy + end_, start, [](const Interval& b, Time t) { return b.start < t; });
  const bool joins_previous = next != busy + begin_ && std::prev(next)->end == start;
  const bool joins_next = next != busy + end_ && next->start == end;
  if (joins_previous && joins_next) {
    std::prev(next)->end = next->end;
    std::memmove(next, next + 1, static_cast<std::size_t>(busy + end_ - next - 1) * sizeof(Interval));
    --end_;
  } else if (joins_previous) {
    std::prev(next)->end = end;
  } else if (joins_next) {
    next->start = start;
  } else {
    const auto position = static_cast<std::uint32_t>(next - busy) - begin_;
    if (end_ == capacity_) {
      make_room();
      busy = data();
    }
    next = busy + begin_ + position;
    std::memmove(next + 1, next, static_cast<std::size_t>(busy + end_ - next) * sizeof(Interval));
    *next = {start, end};
    ++end_;
  }
}

void LinkTimeline::forget_before(Time now) {
  const Interval* busy = data();
  while (begin_ < end_ && busy[begin_].end <= now) ++begin_;
  if (begin_ == end_) begin_ = end_ = 0;
}

}  // namespace torsim::net
