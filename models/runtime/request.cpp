#include "models/runtime/request.hpp"

namespace torsim::rt {

std::uint32_t RequestPool::allocate() {
  if (free_.empty()) {
    slots_.emplace_back();
    return static_cast<std::uint32_t>(slots_.size() - 1);
  }
  const auto index = free_.back();
  free_.pop_back();
  slots_[index] = Slot{};
  return index;
}

void RequestPool::complete(std::uint32_t index, const Envelope& envelope) {
  Slot& s = slots_[index];
  s.done = true;
  s.envelope = envelope;
  if (s.released) return recycle(index);
  if (s.waiter) kernel_.resume_now(std::exchange(s.waiter, {}));
}

void RequestPool::release(std::uint32_t index) {
  Slot& s = slots_[index];
  if (s.done) return recycle(index);
  s.released = true;
}

void RequestPool::recycle(std::uint32_t index) { free_.push_back(index); }

}  // namespace torsim::rt
