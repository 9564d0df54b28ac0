#include "models/network/link_timeline.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace torsim::net {

LinkTimeline::LinkTimeline(LinkTimeline&& other) noexcept { *this = std::move(other); }

LinkTimeline& LinkTimeline::operator=(LinkTimeline&& other) noexcept {
  std::copy(other.inline_, other.inline_ + kInline, inline_);
  heap_ = std::move(other.heap_);
  size_ = std::exchange(other.size_, 0);
  capacity_ = std::exchange(other.capacity_, kInline);
  return *this;
}

LinkTimeline::Slot LinkTimeline::find(Time earliest, Time duration) const {
  Time candidate = earliest;
  Time gap_start = kIdleSinceEver;
  const Interval* busy = data();
  for (std::uint32_t i = 0; i < size_; ++i) {
    const Interval& b = busy[i];
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

void LinkTimeline::grow() {
  auto bigger = std::make_unique<Interval[]>(capacity_ * 2);
  std::copy(data(), data() + size_, bigger.get());
  heap_ = std::move(bigger);
  capacity_ *= 2;
}

void LinkTimeline::book(Time start, Time duration) {
  if (duration <= 0) return;
  const Time end = start + duration;
  Interval* busy = data();
  const auto next = static_cast<std::uint32_t>(
      std::lower_bound(busy, busy + size_, start, [](const Interval& b, Time t) { return b.start < t; }) - busy);
  const bool joins_previous = next > 0 && busy[next - 1].end == start;
  const bool joins_next = next < size_ && busy[next].start == end;
  if (joins_previous && joins_next) {
    busy[next - 1].end = busy[next].end;
    std::memmove(busy + next, busy + next + 1, (size_ - next - 1) * sizeof(Interval));
    --size_;
  } else if (joins_previous) {
    busy[next - 1].end = end;
  } else if (joins_next) {
    busy[next].start = start;
  } else {
    if (size_ == capacity_) {
      grow();
      busy = data();
    }
    std::memmove(busy + next + 1, busy + next, (size_ - next) * sizeof(Interval));
    busy[next] = {start, end};
    ++size_;
  }
}

void LinkTimeline::forget_before(Time now) {
  Interval* busy = data();
  std::uint32_t ended = 0;
  while (ended < size_ && busy[ended].end <= now) ++ended;
  if (ended == 0) return;
  std::memmove(busy, busy + ended, (size_ - ended) * sizeof(Interval));
  size_ -= ended;
}

}  // namespace torsim::net
