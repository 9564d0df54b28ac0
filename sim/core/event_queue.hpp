// The kernel's queue of future events: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan,
// "Faster algorithms for the shortest path problem", J. ACM 37(2), 1990) keyed on event time,
// with 6-bit digits (the multi-level buckets of Denardo and Fox, "Shortest-route methods: 1.
// Reaching, pruning, and buckets", Operations Research 27(1), 1979) instead of single bits.
//
// It relies on what a discrete-event kernel guarantees: no event is scheduled before the last
// one taken out (time never goes back). Looking at the earliest time (min_time) does not count
// as taking out: a kernel may look ahead and then schedule something earlier. An event goes
// to the bucket of the highest 6-bit digit (level) in which its time differs from the
// reference time (the earliest at the last refill), at that digit's value; an event at the
// reference time goes straight to the run. A push is an append; taking out the minimum
// empties the lowest non-empty bucket (lowest level, then lowest digit) into lower levels
// around its earliest time, so an event moves once or twice in all (with single bits it
// moved five times on the random-traffic benchmark) instead of sifting through log(n) levels
// of a heap on every push and pop. A lowest bucket of a few events is sorted into the run of
// earliest events at once instead (see take_sorted).
//
// Buckets are lists of fixed-size blocks from one shared pool, last freed first reused: the
// memory the queue touches is about its live events, and a drained bucket's blocks, still in
// cache, take the next pushes. (With a growable array per bucket, every bucket kept the size
// of its largest fill, and a cycle through them touched megabytes for 20,000 live events.)
//
// Events of equal time leave in insertion order without a sequence number: every bucket is
// always in insertion order. A push appends the newest event. A refill empties the lowest
// non-empty bucket when every lower bucket (and the ready run) is empty, so each lower
// bucket receives a subsequence of it, in its order, before any later push appends to it;
// buckets above it are untouched and stay valid for the new reference time, which shares
// their higher digits. The order is exactly (time, insertion), as a heap's on (time, sequence
// number) would be (tests/unit/event_queue_test.cpp checks it against one).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/huge_pages.hpp"

namespace torsim {

/// `Event` has an integer `time` (>= 0) and is default-constructible and trivially copyable.
template <class Event>
class MonotoneEventQueue {
 public:
  MonotoneEventQueue() = default;
  MonotoneEventQueue(const MonotoneEventQueue&) = delete;
  MonotoneEventQueue& operator=(const MonotoneEventQueue&) = delete;
  ~MonotoneEventQueue() { clear(); }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  /// `ev.time` must be at or after the last time taken out.
  void push(const Event& ev) {
    if (!ready_.empty() && ev.time <= ready_.back().time) return insert_in_run(ev);
    ++size_;
    const auto differing = static_cast<std::uint64_t>(ev.time) ^ static_cast<std::uint64_t>(last_);
    if (differing == 0)
      ready_.push_back(ev);  // at last_, with ready_ empty: it starts the run
    else
      append(bucket_of(differing, ev.time), ev);
  }

  /// The earliest event's time (the queue must not be empty). Does not reorganise anything:
  /// the caller may still push events before it.
  std::int64_t min_time() const {
    if (next_ready_ < ready_.size()) return ready_[next_ready_].time;
    return earliest(buckets_[lowest_bucket()]);
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
    for (Bucket& bucket : buckets_) release(std::exchange(bucket, Bucket{}));
    level_mask_ = 0;
    for (auto& digits : digit_masks_) digits = 0;
    ready_.clear();
    next_ready_ = 0;
    size_ = 0;
  }

 private:
  static constexpr int kDigitBits = 6;
  static constexpr int kDigits = 1 << kDigitBits;                        // buckets per level: one 64-bit mask
  static constexpr int kLevels = (63 + kDigitBits - 1) / kDigitBits;     // times are non-negative int64
  static constexpr std::size_t kKeptRunCapacity = std::size_t{1} << 16;  // events a drained run keeps

  // 1 KiB blocks (31 kernel events and the link).
  struct Block {
    static constexpr std::size_t kEvents = (1024 - sizeof(void*)) / sizeof(Event);
    Block* next = nullptr;
    Event events[kEvents];
  };
  static_assert(Block::kEvents >= 8, "events too large for the queue's blocks");
  static_assert(std::is_trivially_copyable_v<Event>, "events are copied between blocks as values");
  struct Bucket {
    Block* head = nullptr;
    Block* tail = nullptr;
    std::size_t tail_used = Block::kEvents;  // events in the tail block; an empty bucket reads as full
    bool single_block() const { return head == tail; }
    std::size_t used(const Block* block) const { return block == tail ? tail_used : Block::kEvents; }
  };

  static int bucket_of(std::uint64_t differing, std::int64_t time) {
    const int level = (63 - std::countl_zero(differing)) / kDigitBits;
    const auto digit = (static_cast<std::uint64_t>(time) >> (level * kDigitBits)) & (kDigits - 1);
    return level * kDigits + static_cast<int>(digit);
  }
  int lowest_bucket() const {
    const int level = std::countr_zero(level_mask_);
    return level * kDigits + std::countr_zero(digit_masks_[level]);
  }

  // Inline, the common case: room in the bucket's last block.
  void append(int index, const Event& ev) {
    Bucket& bucket = buckets_[index];
    if (bucket.tail_used == Block::kEvents) [[unlikely]]
      add_block(index);
    bucket.tail->events[bucket.tail_used++] = ev;
  }

  [[gnu::noinline]] void add_block(int index) {
    Bucket& bucket = buckets_[index];
    Block* block = new_block();
    if (bucket.head) {
      bucket.tail->next = block;
    } else {
      bucket.head = block;
      level_mask_ |= 1u << (index / kDigits);
      digit_masks_[index / kDigits] |= std::uint64_t{1} << (index % kDigits);
    }
    bucket.tail = block;
    bucket.tail_used = 0;
  }

  /// Empties bucket `index` and hands its blocks to the caller.
  Bucket detach(int index) {
    const int level = index / kDigits;
    digit_masks_[level] &= ~(std::uint64_t{1} << (index % kDigits));
    if (digit_masks_[level] == 0) level_mask_ &= ~(1u << level);
    return std::exchange(buckets_[index], Bucket{});
  }

  /// Calls fn(event) for each event of the bucket in order, then gives its blocks back (each
  /// as soon as it has been read: the next appends reuse it while it is in cache).
  template <class Fn>
  void drain(const Bucket& bucket, Fn fn) {
    for (Block* block = bucket.head; block;) {
      for (std::size_t i = 0, n = bucket.used(block); i < n; ++i) fn(block->events[i]);
      free_block(std::exchange(block, block->next));
    }
  }

  [[gnu::noinline]] static std::int64_t earliest(const Bucket& bucket) {
    std::int64_t t = INT64_MAX;
    for (const Block* block = bucket.head; block; block = block->next)
      for (std::size_t i = 0, n = bucket.used(block); i < n; ++i) t = std::min(t, block->events[i].time);
    return t;
  }

  Block* new_block() {
    if (!free_blocks_) return new (blocks_.allocate(sizeof(Block), alignof(Block))) Block;
    Block* block = std::exchange(free_blocks_, free_blocks_->next);
    block->next = nullptr;
    return block;
  }
  void free_block(Block* block) {
    block->next = free_blocks_;
    free_blocks_ = block;
  }
  void release(const Bucket& bucket) {
    for (Block* block = bucket.head; block;) free_block(std::exchange(block, block->next));
  }

  // The ready run is used up: the lowest non-empty bucket's earliest time becomes the new
  // reference, its events at that time the new ready run and the others spread into lower
  // levels (the invariant keeps every other bucket valid).
  [[gnu::noinline]] void refill() {
    ready_.clear();
    if (ready_.capacity() > kKeptRunCapacity) std::vector<Event>().swap(ready_);
    next_ready_ = 0;
    const Bucket source = detach(lowest_bucket());
    if (source.single_block()) return take_sorted(source);
    last_ = earliest(source);
    drain(source, [this](const Event& ev) {
      const auto differing = static_cast<std::uint64_t>(ev.time) ^ static_cast<std::uint64_t>(last_);
      if (differing == 0)
        ready_.push_back(ev);
      else
        append(bucket_of(differing, ev.time), ev);
    });
  }

  // A lowest bucket of one block (31 kernel events at most) becomes the run at once, sorted
  // by time (stably: each bucket is in insertion order), instead of being spread over lower
  // buckets to be scanned again: a few comparisons where redistribution moved every event
  // again. Every other event is later
  // than all of it (other buckets differ from last_ at a higher digit, or at this level by a
  // higher one), and pushes at or before its last time are inserted in it, so pops stay in
  // (time, insertion) order.
  void take_sorted(const Bucket& source) {
    drain(source, [this](const Event& ev) { ready_.push_back(ev); });
    for (std::size_t i = 1; i < ready_.size(); ++i) {  // insertion sort: stable, no allocation
      const Event ev = ready_[i];
      std::size_t j = i;
      for (; j > 0 && ready_[j - 1].time > ev.time; --j) ready_[j] = ready_[j - 1];
      ready_[j] = ev;
    }
    last_ = ready_.front().time;
  }

  // An event at or before the run's last time goes after the run's events at its time.
  void insert_in_run(const Event& ev) {
    ++size_;
    if (ev.time == ready_.back().time) return ready_.push_back(ev);
    const auto at = std::upper_bound(ready_.begin() + static_cast<std::ptrdiff_t>(next_ready_), ready_.end(), ev.time,
                                     [](std::int64_t t, const Event& x) { return t < x.time; });
    ready_.insert(at, ev);
  }

  Bucket buckets_[kLevels * kDigits];
  std::uint64_t digit_masks_[kLevels] = {};  // per level, bit d: the level's bucket d holds events
  std::uint32_t level_mask_ = 0;             // bit l: level l holds events
  std::vector<Event> ready_;  // the run: the earliest events, in (time, insertion) order from next_ready_
  std::size_t next_ready_ = 0;
  std::int64_t last_ = 0;  // the reference time: the earliest at the last refill (<= every event)
  std::size_t size_ = 0;
  Block* free_blocks_ = nullptr;  // the pool, last freed first
  // Where the blocks come from: huge pages, since a large run's events are spread over
  // hundreds of megabytes. A block is never given back before the queue goes: a burst (a
  // million processes woken at once) keeps its blocks, which were all live at its peak.
  HugePageArena blocks_;
};

}  // namespace torsim
