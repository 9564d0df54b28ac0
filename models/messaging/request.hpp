// Completion handles for non-blocking operations. Requests live in a pool owned by the
// messaging layer and are addressed by index, so completing one costs no allocation.
#pragma once

#include <coroutine>
#include <cstdint>
#include <utility>

#include "models/node/cores.hpp"
#include "sim/core/kernel.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::rt {

using node::Rank;
using Tag = std::int32_t;
inline constexpr Rank kAnySource = -1;
inline constexpr Tag kAnyTag = -1;

/// What a receiver learns about a message.
struct Envelope {
  Rank src = 0;
  Rank dst = 0;
  Tag tag = 0;
  Bytes size = 0;
  std::uint64_t word = 0;  // one word of application data carried with the message
};

/// Told of a workload's waits on its requests and of their handles going away (a recording of
/// the run as an MPI trace; InterfaceObserver in messaging.hpp).
class RequestObserver {
 public:
  virtual ~RequestObserver() = default;
  /// A co_await on request `index` returned `envelope`.
  virtual void waited(std::uint32_t index, const Envelope& envelope) = 0;
  /// The handle of request `index` went away (`done`: with `envelope`): the index may name
  /// another request from now on.
  virtual void released(std::uint32_t index, bool done, const Envelope& envelope) = 0;
};

class RequestPool {
 public:
  explicit RequestPool(Kernel& kernel) : kernel_(kernel) {}
  /// Only while recording; nullptr otherwise.
  void set_observer(RequestObserver* observer) { observer_ = observer; }
  RequestObserver* observer() const { return observer_; }
  std::uint32_t allocate();
  /// Marks the request done and resumes its waiter (as a kernel event at the current time).
  void complete(std::uint32_t index, const Envelope& envelope = {});
  void release(std::uint32_t index);  // the handle went away
  bool done(std::uint32_t index) const { return test(index, &Flags::done); }
  const Envelope& envelope(std::uint32_t index) const { return slots_[index].envelope; }
  void wait(std::uint32_t index, std::coroutine_handle<> waiter) {
    slots_[index].waiter = waiter;
    set(index, &Flags::waiting);
  }
  /// A hint: asks for the frame of the process waiting for the request, if any.
  void prefetch_waiter(std::uint32_t index) const {
    if (test(index, &Flags::waiting)) Kernel::prefetch_frame(slots_[index].waiter.address());
  }
  std::size_t in_use() const { return slots_.in_use(); }

 private:
  struct Slot {
    Envelope envelope;
    std::coroutine_handle<> waiter;
  };
  // A request's state as bits, 64 requests to a group of three words (a slot with its flags
  // in it took 48 bytes, now 40): whether a request is done, which a workload bounding what
  // it has in flight asks after every send, is then in a line shared by 64 requests.
  struct Flags {
    std::uint64_t done = 0, released = 0, waiting = 0;
  };
  static std::uint64_t bit(std::uint32_t index) { return std::uint64_t{1} << (index % 64); }
  bool test(std::uint32_t index, std::uint64_t Flags::*which) const {
    return (flags_[index / 64].*which & bit(index)) != 0;
  }
  void set(std::uint32_t index, std::uint64_t Flags::*which) { flags_[index / 64].*which |= bit(index); }
  void clear(std::uint32_t index, std::uint64_t Flags::*which) { flags_[index / 64].*which &= ~bit(index); }
  Kernel& kernel_;
  RequestObserver* observer_ = nullptr;
  SlotPool<Slot> slots_;
  std::vector<Flags, HugePageAllocator<Flags>> flags_;
};

// Inline: a message allocates, completes and releases a request, millions of times a second.
inline std::uint32_t RequestPool::allocate() {
  const std::uint32_t index = slots_.take();
  if (index / 64 >= flags_.size()) flags_.resize(index / 64 + 1);
  clear(index, &Flags::done);
  clear(index, &Flags::released);
  clear(index, &Flags::waiting);
  return index;
}

inline void RequestPool::complete(std::uint32_t index, const Envelope& envelope) {
  Slot& s = slots_[index];
  set(index, &Flags::done);
  s.envelope = envelope;
  if (test(index, &Flags::released)) return slots_.release(index);
  if (test(index, &Flags::waiting)) {
    clear(index, &Flags::waiting);
    kernel_.resume_now(s.waiter);
  }
}

inline void RequestPool::release(std::uint32_t index) {
  if (observer_) observer_->released(index, done(index), slots_[index].envelope);
  if (test(index, &Flags::done)) return slots_.release(index);
  set(index, &Flags::released);
}

/// A move-only handle to a pending operation; co_await it for its Envelope. Dropping a
/// pending request is allowed: the operation still completes, nobody is told.
class [[nodiscard]] Request {
 public:
  Request() = default;
  Request(RequestPool* pool, std::uint32_t index) : pool_(pool), index_(index) {}
  Request(Request&& other) noexcept : pool_(std::exchange(other.pool_, nullptr)), index_(other.index_) {}
  Request& operator=(Request&& other) noexcept {
    if (this != &other) {
      drop();
      pool_ = std::exchange(other.pool_, nullptr);
      index_ = other.index_;
    }
    return *this;
  }
  ~Request() { drop(); }

  /// False for a default-constructed or moved-from handle.
  bool valid() const { return pool_ != nullptr; }
  bool done() const { return pool_->done(index_); }
  bool await_ready() const { return pool_->done(index_); }
  void await_suspend(std::coroutine_handle<> h) { pool_->wait(index_, h); }
  Envelope await_resume() const {
    if (RequestObserver* o = pool_->observer()) o->waited(index_, pool_->envelope(index_));
    return pool_->envelope(index_);
  }
  /// The request's index in its pool: its name while it lives (recordings).
  std::uint32_t id() const { return index_; }

 private:
  void drop() {
    if (pool_) pool_->release(index_);
    pool_ = nullptr;
  }
  RequestPool* pool_ = nullptr;
  std::uint32_t index_ = 0;
};

}  // namespace torsim::rt
