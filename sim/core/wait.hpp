// Waiting and waking, written once for every model: a queue of waiting processes, a semaphore
// of units (credits, buffers, posted receives) handed over in order, and a one-shot signal.
// A process is always woken through the kernel, as an event at the current time, never resumed
// from inside the call that wakes it; waiters are woken first in, first out.
//
// Waiters are linked through their awaiters, which live in the waiting coroutines' frames, so
// waiting allocates nothing and an empty queue is two pointers.
#pragma once

#include <coroutine>
#include <cstdint>
#include <utility>

#include "sim/core/kernel.hpp"

namespace torsim {

/// Processes waiting for a condition another process or event makes true. A woken process
/// checks its condition again itself (another may have got there first).
class WaitQueue {
 public:
  /// A waiting process's place in a queue (part of its awaiter).
  struct Node {
    std::coroutine_handle<> handle;
    Node* next = nullptr;
  };

  WaitQueue() = default;
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;
  // Moving keeps the waiters: they are linked to each other, not to the queue.
  WaitQueue(WaitQueue&& other) noexcept
      : head_(std::exchange(other.head_, nullptr)), tail_(std::exchange(other.tail_, nullptr)) {}
  WaitQueue& operator=(WaitQueue&& other) noexcept {
    head_ = std::exchange(other.head_, nullptr);
    tail_ = std::exchange(other.tail_, nullptr);
    return *this;
  }

  /// Awaitable: parks the caller at the back of the queue until it is woken.
  class Wait {
   public:
    explicit Wait(WaitQueue& queue) : queue_(&queue) {}
    Wait(const Wait&) = delete;
    Wait& operator=(const Wait&) = delete;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept {
      node_.handle = h;
      queue_->push(node_);
    }
    void await_resume() const noexcept {}

   private:
    WaitQueue* queue_;
    Node node_;
  };
  Wait wait() { return Wait(*this); }

  bool empty() const { return head_ == nullptr; }
  /// Parks `node` (with its handle set) at the back.
  void push(Node& node) {
    node.next = nullptr;
    (tail_ ? tail_->next : head_) = &node;
    tail_ = &node;
  }
  /// Wakes the first waiter; false when none waits.
  bool wake_one(Kernel& kernel) {
    if (!head_) return false;
    Node* first = std::exchange(head_, head_->next);
    if (!head_) tail_ = nullptr;
    kernel.resume_now(first->handle);
    return true;
  }
  /// Wakes every waiter, in the order they came.
  void wake_all(Kernel& kernel) {
    while (wake_one(kernel)) {
    }
  }

 private:
  Node* head_ = nullptr;
  Node* tail_ = nullptr;
};

/// A count of units and the processes waiting for one, served in order: acquire() takes a unit
/// at once only when one is free and nobody waits ahead; release() hands its unit straight to
/// the first waiter, or keeps it.
class Semaphore {
 public:
  explicit Semaphore(std::int64_t units = 0) : units_(units) {}

  class Acquire {
   public:
    explicit Acquire(Semaphore& s) : semaphore_(&s) {}
    Acquire(const Acquire&) = delete;
    Acquire& operator=(const Acquire&) = delete;
    bool await_ready() noexcept {
      if (semaphore_->units_ == 0 || !semaphore_->waiting_.empty()) return false;
      --semaphore_->units_;
      return true;
    }
    void await_suspend(std::coroutine_handle<> h) noexcept {
      node_.handle = h;
      semaphore_->waiting_.push(node_);
    }
    void await_resume() const noexcept {}

   private:
    Semaphore* semaphore_;
    WaitQueue::Node node_;
  };
  /// Awaitable: resumes holding one unit.
  Acquire acquire() { return Acquire(*this); }
  void release(Kernel& kernel) {
    if (!waiting_.wake_one(kernel)) ++units_;
  }
  std::int64_t available() const { return units_; }
  bool has_waiters() const { return !waiting_.empty(); }

 private:
  std::int64_t units_;
  WaitQueue waiting_;
};

/// A one-shot completion (a transfer landed, a CUDA event, the end of a stream's work): fire()
/// wakes every process waiting for it, in order, and later waits return at once.
class Signal {
 public:
  explicit Signal(Kernel& kernel) : kernel_(&kernel) {}
  // Not copyable: a copy would hold waiters that fire() never sees (GCC 12 awaits a copy of
  // `co_await *ptr`'s result when the type is copyable).
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;
  bool fired() const { return fired_; }
  void fire() {
    fired_ = true;
    waiting_.wake_all(*kernel_);
  }

  class Wait {
   public:
    explicit Wait(Signal& s) : signal_(&s) {}
    Wait(const Wait&) = delete;
    Wait& operator=(const Wait&) = delete;
    bool await_ready() const noexcept { return signal_->fired_; }
    void await_suspend(std::coroutine_handle<> h) noexcept {
      node_.handle = h;
      signal_->waiting_.push(node_);
    }
    void await_resume() const noexcept {}

   private:
    Signal* signal_;
    WaitQueue::Node node_;
  };
  Wait operator co_await() { return Wait(*this); }
  /// A callback that fires the signal (for a network model's or a NIC's completion).
  Callback firing() {
    return {[](void* signal, std::uint64_t) { static_cast<Signal*>(signal)->fire(); }, this, 0};
  }

 private:
  Kernel* kernel_;
  bool fired_ = false;
  WaitQueue waiting_;
};

}  // namespace torsim
