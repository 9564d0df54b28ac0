#include "sim/core/kernel.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace torsim {

// The frame that owns a spawned process: catches its exception for the kernel and unlinks
// itself from the kernel's list when done (final_suspend never suspends, so it self-destroys).
struct Kernel::RootPromise {
  Kernel* kernel = nullptr;
  RootPromise* prev = nullptr;
  RootPromise* next = nullptr;

  struct Root {
    using promise_type = RootPromise;
    std::coroutine_handle<RootPromise> handle;
  };
  Root get_return_object() { return {std::coroutine_handle<RootPromise>::from_promise(*this)}; }
  std::suspend_always initial_suspend() const noexcept { return {}; }
  std::suspend_never final_suspend() const noexcept { return {}; }
  void return_void() const noexcept {}
  void unhandled_exception() noexcept { kernel->on_process_failed(std::current_exception()); }
  ~RootPromise() {
    if (kernel) kernel->unlink_process(this);
  }
};

namespace {

Kernel::RootPromise::Root run_process(Task<> process) { co_await process; }

}  // namespace

// A resumption reads its coroutine's frame, usually out of cache: its first lines are asked
// for one event ahead.
Kernel::Kernel() {
  add_prefetcher(resume_handle, [](const void* frame, std::uint64_t) { prefetch_frame(frame); });
}

void Kernel::resume_handle(void* address, std::uint64_t) { std::coroutine_handle<>::from_address(address).resume(); }

Kernel::~Kernel() { shutdown(); }

void Kernel::scheduled_in_the_past(Time t) {
  throw std::logic_error("event scheduled in the past at t=" + std::to_string(t));
}

void Kernel::spawn(Task<> process) {
  auto root = run_process(std::move(process));
  RootPromise& promise = root.handle.promise();
  promise.kernel = this;
  promise.next = processes_;
  if (processes_) processes_->prev = &promise;
  processes_ = &promise;
  ++live_processes_;
  resume_now(root.handle);
}

void Kernel::unlink_process(RootPromise* p) {
  if (p->prev)
    p->prev->next = p->next;
  else
    processes_ = p->next;
  if (p->next) p->next->prev = p->prev;
  --live_processes_;
}

void Kernel::on_process_failed(std::exception_ptr error) {
  if (!failure_) failure_ = error;
  stopped_ = true;
}

void Kernel::shutdown() {
  while (processes_) {
    RootPromise* p = processes_;
    std::coroutine_handle<RootPromise>::from_promise(*p).destroy();  // unlinks itself
  }
  future_.clear();
  current_.clear();
}

// Same-time events scheduled earlier sit in `future_`, inserted before any in `current_`, so
// `future_` goes first while it holds events at `now_`: (time, insertion) order is
// exact. Those are all in its ready run, since `now_` became their time by taking one out.
bool Kernel::pop_next(Time limit, Event& out) {
  if (!current_.empty()) {
    if (now_ > limit) return false;
    if (future_.ready_at(now_)) {
      out = future_.pop();
      return true;
    }
    out = current_.pop_front();
    return true;
  }
  if (future_.empty() || (limit != kNever && future_.min_time() > limit)) return false;
  out = future_.pop();
  return true;
}

void Kernel::dispatch(const Event& ev) {
  now_ = ev.time;
  ++events_processed_;
  ev.cb();
  if (progress_every_ && events_processed_ % progress_every_ == 0) progress_hook_(*this);
}

Time Kernel::next_event_time() const {
  if (!current_.empty()) return now_;
  return future_.empty() ? kNever : future_.min_time();
}

void Kernel::run() { run_until(kNever); }

void Kernel::run_until(Time limit) {
  stopped_ = false;
  Event ev;
  while (!stopped_ && pop_next(limit, ev)) {
    prefetch_next();  // the constructor registers the resumption hint: there is always one
    dispatch(ev);
  }
  if (failure_) std::rethrow_exception(std::exchange(failure_, {}));
  if (limit != kNever && !stopped_ && limit > now_) now_ = limit;
}

void Kernel::set_progress_hook(std::uint64_t every_events, std::function<void(const Kernel&)> hook) {
  progress_every_ = every_events;
  progress_hook_ = std::move(hook);
}

}  // namespace torsim
