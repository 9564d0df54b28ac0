// The discrete-event kernel: integer picosecond time, events ordered by (time, insertion
// sequence), simulated processes as stackless coroutines.
#pragma once

#include <array>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "sim/core/event_queue.hpp"
#include "sim/core/fifo.hpp"
#include "sim/core/task.hpp"
#include "sim/core/time.hpp"

namespace torsim {

/// A type-erased event action: a plain function pointer with two words of context. Kept this
/// small (24 bytes) so the event queue stays cache friendly at millions of events per second.
struct Callback {
  void (*fn)(void* ctx, std::uint64_t arg) = nullptr;
  void* ctx = nullptr;
  std::uint64_t arg = 0;
  void operator()() const { fn(ctx, arg); }
};

/// Makes a Callback that calls `(obj->*Method)(arg)`.
template <class T, void (T::*Method)(std::uint64_t)>
Callback member_callback(T* obj, std::uint64_t arg = 0) {
  return {[](void* ctx, std::uint64_t a) { (static_cast<T*>(ctx)->*Method)(a); }, obj, arg};
}

class Kernel {
 public:
  Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  ~Kernel();

  Time now() const { return now_; }

  /// Schedules `cb` at absolute time `t` (>= now). Same-time events run in insertion order.
  /// Inline: every message schedules a few events, and the call cost as much as the push.
  void at(Time t, Callback cb) {
    if (t > now_)
      future_.push({t, cb});
    else if (t == now_)
      current_.push_back({t, cb});
    else
      scheduled_in_the_past(t);
  }
  void after(Time delay, Callback cb) { at(now_ + delay, cb); }
  void resume_at(Time t, std::coroutine_handle<> h) { at(t, {resume_handle, h.address(), 0}); }
  void resume_now(std::coroutine_handle<> h) { resume_at(now_, h); }

  /// Starts a simulated process at the current time. The kernel owns it until it finishes.
  void spawn(Task<> process);

  /// Runs events until none is left or stop() is called. Rethrows a process's exception.
  void run();
  /// Runs every event with time <= `limit`, then sets now to `limit` (for co-simulation).
  void run_until(Time limit);
  void stop() { stopped_ = true; }
  /// A hint: before running an event, the kernel calls `prefetch(ctx, arg)` for the event
  /// after it if that one calls `fn` and is already known (in the queue's run or the
  /// same-time FIFO), so that its data is on its way. It must change nothing. Up to six
  /// prefetchers; later ones are ignored.
  void add_prefetcher(void (*fn)(void*, std::uint64_t), void (*prefetch)(const void*, std::uint64_t)) {
    if (prefetcher_count_ < prefetchers_.size()) prefetchers_[prefetcher_count_++] = {fn, prefetch};
  }
  /// Asks for the first lines of a coroutine frame (what resuming it reads first).
  static void prefetch_frame(const void* frame) {
    for (int line = 0; line < 4; ++line) __builtin_prefetch(static_cast<const char*>(frame) + 64 * line);
  }
  /// Whether stop() ended the last run()/run_until().
  bool stopped() const { return stopped_; }
  /// Destroys every live process and pending event. Owners of objects that processes refer
  /// to (messaging layers, workloads) call this before destroying them.
  void shutdown();

  /// Time of the next event, kNever if none.
  Time next_event_time() const;
  std::uint64_t events_processed() const { return events_processed_; }
  std::size_t pending_events() const { return future_.size() + current_.size(); }
  /// Processes spawned and not finished (blocked forever if no event is pending).
  std::size_t live_processes() const { return live_processes_; }

  /// Called every `every_events` events with the kernel, for progress reporting.
  void set_progress_hook(std::uint64_t every_events, std::function<void(const Kernel&)> hook);

  /// Awaitable: suspends the calling process for `delay` of simulated time.
  auto sleep(Time delay) {
    struct Sleep {
      Kernel* kernel;
      Time delay;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) const { kernel->resume_at(kernel->now_ + delay, h); }
      void await_resume() const noexcept {}
    };
    return Sleep{this, delay};
  }
  /// Awaitable: suspends the calling process until `time`; not at all when that is not later
  /// than now.
  auto until(Time time) {
    struct Until {
      Kernel* kernel;
      Time time;
      bool await_ready() const noexcept { return time <= kernel->now_; }
      void await_suspend(std::coroutine_handle<> h) const { kernel->resume_at(time, h); }
      void await_resume() const noexcept {}
    };
    return Until{this, time};
  }

  // Used by the process wrapper; not for workloads.
  struct RootPromise;
  void on_process_failed(std::exception_ptr error);
  void unlink_process(RootPromise* p);

 private:
  struct Event {
    Time time;
    Callback cb;
  };
  static void resume_handle(void* address, std::uint64_t);
  [[noreturn]] static void scheduled_in_the_past(Time t);
  /// The next event at or before `limit`, if any.
  bool pop_next(Time limit, Event& out);
  void dispatch(const Event& ev);
  // The event after the one just taken out, as pop_next() would choose it now (the one being
  // run may still schedule something before it), if it is known without a refill.
  void prefetch_next() const {
    const Event* next = current_.empty() || future_.ready_at(now_) ? future_.peek_ready() : &current_.front();
    if (!next) return;
    for (std::size_t i = 0; i < prefetcher_count_; ++i)
      if (prefetchers_[i].fn == next->cb.fn) return prefetchers_[i].prefetch(next->cb.ctx, next->cb.arg);
  }
  struct Prefetcher {
    void (*fn)(void*, std::uint64_t);
    void (*prefetch)(const void*, std::uint64_t);
  };
  std::array<Prefetcher, 6> prefetchers_{};  // a NIC, a flow-control model and a layer may each add two
  std::size_t prefetcher_count_ = 0;

  Time now_ = 0;
  std::uint64_t events_processed_ = 0;
  MonotoneEventQueue<Event> future_;  // events after `now_` when scheduled, in (time, insertion) order
  Fifo<Event> current_;               // events scheduled for `now_` while at `now_`, in order (a vector: no
                                      // allocation per block of events as a deque makes)
  bool stopped_ = false;
  std::exception_ptr failure_;
  std::size_t live_processes_ = 0;
  RootPromise* processes_ = nullptr;  // intrusive list of live processes, destroyed with us
  std::uint64_t progress_every_ = 0;
  std::function<void(const Kernel&)> progress_hook_;
};

}  // namespace torsim
