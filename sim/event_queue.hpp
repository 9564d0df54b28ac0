// The kernel's queue of future events: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan,
// "Faster algorithms for the shortest path problem", J. ACM 37(2), 1990) keyed on event time.
//
// It relies on what a discrete-event kernel guarantees: no event is scheduled before the last
// one taken out (time never goes back). Looking at the earliest time (min_time) does not count
// as taking out: a kernel may look ahead and then schedule something earlier. Bucket b holds
// the events whose time first differs from the reference time (the earliest at the last
// refill) at bit b-1 (bucket 0: equal to it). A push is an append; taking out the minimum
// empties the lowest non-empty bucket into lower ones around its earliest time, so an event
// moves a few times in all instead of sifting through log(n) levels of a heap on every push
// and pop. A lowest bucket of a few events is sorted into the run of earliest events at once
// instead (see take_sorted).
//
// Events of equal time leave in insertion order without a sequence number: every bucket is
// always in insertion order. A push appends the newest event. A refill empties the lowest
// non-empty bucket b when every bucket below it (and the ready run) is empty, so each lower
// bucket receives a subsequence of b, in b's order, before any later push appends to it.
// The order is exactly (time, insertion), as a heap's on (time, sequence number) would be
// (tests/unit/event_queue_test.cpp checks it against one).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace torsim {

/// `Event` has an integer `time` (>= 0).
template <class Event>
class MonotoneEventQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  /// `ev.time` must be at or after the last time taken out.
  void push(const Event& ev) {
    if (!ready_.empty() && ev.time <= ready_.back().time) return insert_in_run(ev);
    const int b = bucket_of(ev.time);
    if (b == 0) ready_.push_back(ev);  // at last_, with ready_ empty: it starts the run
    else {
      buckets_[b].push_back(ev);
      non_empty_ |= std::uint64_t{1} << b;
    }
    ++size_;
  }

  /// The earliest event's time (the queue must not be empty). Does not reorganise anything:
  /// the caller may still push events before it.
  std::int64_t min_time() const {
    if (next_ready_ < ready_.size()) return ready_[next_ready_].time;
    const auto& lowest = buckets_[std::countr_zero(non_empty_)];
    return earliest(lowest)->time;
  }

  /// The next event if the run holds it (it does after any pop that leaves events behind;
  /// not after pushes into an empty queue), else null. Does not refill.
  const Event* peek_ready() const { return next_ready_ < ready_.size() ? &ready_[next_ready_] : nullptr; }

  /// Whether the earliest event is in the ready run at time `t`: after taking out an event
  /// at t, every other event at t is there (a kernel's check for same-time events: the run
  /// takes every push at or before its last time).
  bool ready_at(std::int64_t t) const { return next_ready_ < ready_.size() && ready_[next_ready_].time == t; }

  /// Takes out the earliest event (of those at the earliest time, the first pushed); the
  /// queue must not be empty. Later pushes must be at or after its time. A run it empties is
  /// refilled at once, so that the next event is known before this one runs (the kernel's
  /// prefetch hints); pushes before the new run's last time are inserted in it as usual.
  Event pop() {
    if (next_ready_ == ready_.size()) refill();
    --size_;
    const Event ev = ready_[next_ready_++];
    if (next_ready_ == ready_.size() && size_ > 0) refill();
    return ev;
  }

  void clear() {
    for (auto& bucket : buckets_) bucket.clear();
    ready_.clear();
    next_ready_ = 0;
    non_empty_ = 0;
    size_ = 0;
  }

 private:
  static constexpr int kBuckets = 64;  // times are non-negative int64: differences fit in 63 bits
  static constexpr std::size_t kKeptCapacity = std::size_t{1} << 16;  // events a drained bucket keeps

  int bucket_of(std::int64_t time) const {
    const auto differing = static_cast<std::uint64_t>(time) ^ static_cast<std::uint64_t>(last_);
    return differing == 0 ? 0 : 64 - std::countl_zero(differing);
  }

  // The ready run is used up: the lowest non-empty bucket's earliest time becomes the new
  // reference, its events at that time the new ready run and the others spread into lower
  // buckets (the radix-heap invariant keeps every higher bucket valid).
  static typename std::vector<Event>::const_iterator earliest(const std::vector<Event>& bucket) {
    return std::min_element(bucket.begin(), bucket.end(), [](const Event& x, const Event& y) { return x.time < y.time; });
  }

  void refill() {
    ready_.clear();
    if (ready_.capacity() > kKeptCapacity) std::vector<Event>().swap(ready_);
    next_ready_ = 0;
    const int b = std::countr_zero(non_empty_);
    auto& source = buckets_[b];
    if (source.size() <= kSortedRun) return take_sorted(b);
    last_ = earliest(source)->time;
    for (const Event& ev : source) {
      const int to = bucket_of(ev.time);
      if (to == 0) ready_.push_back(ev);
      else {
        buckets_[to].push_back(ev);
        non_empty_ |= std::uint64_t{1} << to;
      }
    }
    source.clear();
    // A bucket that once held a burst (a million processes woken at once) would keep its
    // memory for the rest of the run, and every bucket can: give large ones back.
    if (source.capacity() > kKeptCapacity) std::vector<Event>().swap(source);
    non_empty_ &= ~(std::uint64_t{1} << b);
  }

  // A small lowest bucket becomes the run at once, sorted by time (stably: each bucket is in
  // insertion order), instead of being spread over lower buckets to be scanned again: a few
  // comparisons where redistribution moved every event several times. Every other event is
  // later than all of it (higher buckets differ from last_ at a higher bit), and pushes at or
  // before its last time are inserted in it, so pops stay in (time, insertion) order.
  void take_sorted(int b) {
    auto& source = buckets_[b];
    ready_.assign(source.begin(), source.end());
    for (std::size_t i = 1; i < ready_.size(); ++i) {  // insertion sort: stable, no allocation
      const Event ev = ready_[i];
      std::size_t j = i;
      for (; j > 0 && ready_[j - 1].time > ev.time; --j) ready_[j] = ready_[j - 1];
      ready_[j] = ev;
    }
    last_ = ready_.front().time;
    source.clear();
    non_empty_ &= ~(std::uint64_t{1} << b);
  }

  // An event at or before the run's last time goes after the run's events at its time.
  void insert_in_run(const Event& ev) {
    ++size_;
    if (ev.time == ready_.back().time) return ready_.push_back(ev);
    const auto at = std::upper_bound(ready_.begin() + static_cast<std::ptrdiff_t>(next_ready_), ready_.end(), ev.time,
                                     [](std::int64_t t, const Event& x) { return t < x.time; });
    ready_.insert(at, ev);
  }

  static constexpr std::size_t kSortedRun = 32;  // largest bucket sorted into the run directly
  std::vector<Event> buckets_[kBuckets];
  std::vector<Event> ready_;  // the run: the earliest events, in (time, insertion) order from next_ready_
  std::size_t next_ready_ = 0;
  std::uint64_t non_empty_ = 0;  // bit b: buckets_[b] holds events (b >= 1)
  std::int64_t last_ = 0;        // the reference time: the earliest at the last refill (<= every event)
  std::size_t size_ = 0;
};

}  // namespace torsim
