// A queue that allocates nothing while empty (std::deque allocates on construction, which
// costs over half a kilobyte for each of a million idle ranks). A rank's receive queues,
// thousands of them read at random by matching, take RecycledAllocator (blocks on huge pages,
// sim/core/huge_pages.hpp) instead of sitting on small pages of their own. Not every queue
// does: blocks are kept by power-of-two size, so queues that grow large hold more memory
// (the N-Queens sweep of scenarios/scale/xe6-nqueens.json with every queue on them: 2.22 GB
// of peak RSS against 1.27 GB).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace torsim {

template <class T, class Allocator = std::allocator<T>>
class Fifo {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  void push_back(const T& item) { items_.push_back(item); }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T pop_front() {
    T item = std::move(items_[head_++]);
    drop_front_room();
    return item;
  }
  /// Removes and returns the first item matching `pred`, keeping the order of the others.
  template <class Pred>
  bool take_first(Pred pred, T& out) {
    for (std::size_t i = head_; i < items_.size(); ++i) {
      if (!pred(items_[i])) continue;
      out = std::move(items_[i]);
      remove_at(i);
      return true;
    }
    return false;
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  // The items on the shorter side of `i` move over it: a match near the front of a long
  // queue (a receive posted planes ahead) then moves a few items, not all those behind it.
  void remove_at(std::size_t i) {
    const auto at = items_.begin() + static_cast<std::ptrdiff_t>(i);
    if (i - head_ < items_.size() - i) {
      std::move_backward(items_.begin() + static_cast<std::ptrdiff_t>(head_), at, at + 1);
      ++head_;
    } else {
      items_.erase(at);
    }
    drop_front_room();
  }
  // Gives back the room before the head when it is all there is, or at least half.
  void drop_front_room() {
    if (head_ == items_.size()) {
      clear();
    } else if (head_ >= 64 && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  std::vector<T, Allocator> items_;
  std::size_t head_ = 0;
};

}  // namespace torsim
