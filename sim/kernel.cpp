#include "sim/kernel.hpp"

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

void resume_handle(void* address, std::uint64_t) {
  std::coroutine_handle<>::from_address(address).resume();
}

}  // namespace

Kernel::~Kernel() { shutdown(); }

void Kernel::at(Time t, Callback cb) {
  if (t < now_) throw std::logic_error("event scheduled in the past at t=" + std::to_string(t));
  if (t == now_) {
    current_.push_back({t, next_seq_++, cb});
    return;
  }
  heap_push({t, next_seq_++, cb});
}

// A 4-ary heap: half the depth of a binary one, and a node's children share cache lines.
void Kernel::heap_push(const Event& ev) {
  std::size_t hole = heap_.size();
  heap_.push_back(ev);
  while (hole > 0) {
    const std::size_t parent = (hole - 1) / 4;
    if (!earlier(ev, heap_[parent])) break;
    heap_[hole] = heap_[parent];
    hole = parent;
  }
  heap_[hole] = ev;
}

Kernel::Event Kernel::heap_pop() {
  const Event top = heap_.front();
  const Event last = heap_.back();
  heap_.pop_back();
  const std::size_t n = heap_.size();
  if (n == 0) return top;
  std::size_t hole = 0;
  while (true) {
    const std::size_t first = 4 * hole + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t end = std::min(first + 4, n);
    for (std::size_t c = first + 1; c < end; ++c)
      if (earlier(heap_[c], heap_[best])) best = c;
    if (!earlier(heap_[best], last)) break;
    heap_[hole] = heap_[best];
    hole = best;
  }
  heap_[hole] = last;
  return top;
}

void Kernel::resume_at(Time t, std::coroutine_handle<> h) { at(t, {resume_handle, h.address(), 0}); }

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
  if (p->prev) p->prev->next = p->next;
  else processes_ = p->next;
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
  heap_.clear();
  current_.clear();
}

// Same-time events scheduled earlier sit in the heap with smaller sequence numbers than any in
// `current_`, so the heap goes first while its top is at `now_`: (time, seq) order is exact.
bool Kernel::pop_next(Event& out) {
  if (!heap_.empty() && (current_.empty() || heap_.front().time == now_)) {
    out = heap_pop();
    return true;
  }
  if (current_.empty()) return false;
  out = current_.front();
  current_.pop_front();
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
  return heap_.empty() ? kNever : heap_.front().time;
}

void Kernel::run() { run_until(kNever); }

void Kernel::run_until(Time limit) {
  stopped_ = false;
  Event ev;
  while (!stopped_ && next_event_time() <= limit && pop_next(ev)) dispatch(ev);
  if (failure_) std::rethrow_exception(std::exchange(failure_, {}));
  if (limit != kNever && !stopped_ && limit > now_) now_ = limit;
}

void Kernel::set_progress_hook(std::uint64_t every_events, std::function<void(const Kernel&)> hook) {
  progress_every_ = every_events;
  progress_hook_ = std::move(hook);
}

}  // namespace torsim
