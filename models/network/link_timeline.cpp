#include "models/network/link_timeline.hpp"

#include <algorithm>

namespace torsim::net {

LinkTimeline::Slot LinkTimeline::find(Time earliest, Time duration) const {
  Time candidate = earliest;
  Time gap_start = kIdleSinceEver;
  for (std::size_t i = first_; i < busy_.size(); ++i) {
    const Interval& b = busy_[i];
    if (b.end <= candidate) {
      gap_start = b.end;
      continue;
    }
    if (candidate + duration <= b.start) break;
    candidate = b.end;
    gap_start = b.end;
  }
  return {candidate, gap_start};
}

void LinkTimeline::book(Time start, Time duration) {
  if (duration <= 0) return;
  const Time end = start + duration;
  auto first = busy_.begin() + static_cast<std::ptrdiff_t>(first_);
  auto next = std::lower_bound(first, busy_.end(), start, [](const Interval& b, Time t) { return b.start < t; });
  const bool joins_previous = next != first && std::prev(next)->end == start;
  const bool joins_next = next != busy_.end() && next->start == end;
  if (joins_previous && joins_next) {
    std::prev(next)->end = next->end;
    busy_.erase(next);
  } else if (joins_previous) {
    std::prev(next)->end = end;
  } else if (joins_next) {
    next->start = start;
  } else {
    busy_.insert(next, {start, end});
  }
}

void LinkTimeline::forget_before(Time now) {
  while (first_ < busy_.size() && busy_[first_].end <= now) ++first_;
  if (first_ > 16 && first_ * 2 > busy_.size()) {
    busy_.erase(busy_.begin(), busy_.begin() + static_cast<std::ptrdiff_t>(first_));
    first_ = 0;
  }
}

}  // namespace torsim::net
