// Records addressed by index and reused through a free list: messages in flight, pending
// requests. An index names its record from take() or add() until release(); the last index
// released is the next one taken, so a steady stream of messages keeps reusing the same few
// records, warm in the cache. Hold indices, not references, across anything that may add:
// the records live in a vector that may move.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/huge_pages.hpp"

namespace torsim {

template <class T>
class SlotPool {
 public:
  using Index = std::uint32_t;

  /// An index whose record is left as its last user left it (default-constructed when new),
  /// for a caller that overwrites what it uses and keeps the rest (a route's capacity, say).
  Index take() {
    if (free_.empty()) {
      records_.emplace_back();
      return static_cast<Index>(records_.size() - 1);
    }
    return pop_free();
  }
  /// An index whose record is `value`.
  Index add(const T& value) {
    if (free_.empty()) {
      records_.push_back(value);
      return static_cast<Index>(records_.size() - 1);
    }
    const Index index = pop_free();
    records_[index] = value;
    return index;
  }
  /// The record stays readable until the next take() or add().
  void release(Index index) { free_.push_back(index); }

  T& operator[](Index index) { return records_[index]; }
  const T& operator[](Index index) const { return records_[index]; }
  std::size_t in_use() const { return records_.size() - free_.size(); }

 private:
  Index pop_free() {
    const Index index = free_.back();
    free_.pop_back();
    return index;
  }

  std::vector<T, HugePageAllocator<T>> records_;  // huge pages once large: touched at random
  std::vector<Index> free_;
};

}  // namespace torsim
