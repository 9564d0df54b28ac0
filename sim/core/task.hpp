// Stackless coroutines for simulated processes. A rank's program is a Task<> that reads as
// sequential code; every suspension point is a co_await on a kernel awaitable.
#pragma once

#include <algorithm>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <optional>
#include <utility>

#include "sim/core/huge_pages.hpp"

namespace torsim {

template <class T = void>
class [[nodiscard]] Task;

namespace detail {

// Resumes the awaiting coroutine (symmetric transfer) when a Task finishes.
struct FinalAwaiter {
  bool await_ready() const noexcept { return false; }
  template <class Promise>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> done) noexcept {
    return done.promise().continuation;
  }
  void await_resume() const noexcept {}
};

// Coroutine frames are recycled through free lists by size (8-byte classes up to 1 KiB):
// messaging layers create and destroy a coroutine or two per message, millions per second,
// and with thousands of frames live malloc's bins cost more than the coroutine's own work.
// Per thread; recycled frames are never given back, so they come from huge-page chunks
// (frames of thousands of ranks are touched at random), which are never unmapped: a frame
// may be released during static destruction.
struct FreeFrame {
  FreeFrame* next;
};
inline constexpr std::size_t kFrameGranule = 8;  // malloc would round the same way: no extra bytes
inline constexpr std::size_t kPooledFrameClasses = 128;
inline thread_local FreeFrame* free_frames[kPooledFrameClasses] = {};

inline HugePageArena& frame_arena() {
  thread_local HugePageArena& arena = *new HugePageArena;
  return arena;
}

inline std::size_t frame_class(std::size_t size) { return (size + kFrameGranule - 1) / kFrameGranule; }

inline void* allocate_frame(std::size_t size) {
  const std::size_t k = frame_class(size);
  if (k >= kPooledFrameClasses) return ::operator new(size);
  if (FreeFrame* frame = free_frames[k]) {
    free_frames[k] = frame->next;
    return frame;
  }
  return frame_arena().allocate(std::max<std::size_t>(k, 1) * kFrameGranule, alignof(std::max_align_t));
}

inline void release_frame(void* memory, std::size_t size) noexcept {
  const std::size_t k = frame_class(size);
  if (k >= kPooledFrameClasses) return ::operator delete(memory, size);
  auto* frame = static_cast<FreeFrame*>(memory);
  frame->next = free_frames[k];
  free_frames[k] = frame;
}

struct PromiseBase {
  std::coroutine_handle<> continuation = std::noop_coroutine();
  std::exception_ptr error;

  static void* operator new(std::size_t size) { return allocate_frame(size); }
  static void operator delete(void* frame, std::size_t size) noexcept { release_frame(frame, size); }

  std::suspend_always initial_suspend() const noexcept { return {}; }
  FinalAwaiter final_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
  void rethrow_if_failed() const {
    if (error) std::rethrow_exception(error);
  }
};

}  // namespace detail

/// A lazily started coroutine that yields a T to whoever co_awaits it; or, made by ready(), a
/// value already there (no coroutine frame).
template <class T>
class [[nodiscard]] Task {
 public:
  struct promise_type : detail::PromiseBase {
    std::optional<T> value;
    Task get_return_object() { return Task(Handle::from_promise(*this)); }
    template <class U>
    void return_value(U&& v) {
      value.emplace(std::forward<U>(v));
    }
  };
  using Handle = std::coroutine_handle<promise_type>;

  /// A finished task holding `value`: for operations that complete when called (no suspension
  /// point), which would otherwise allocate a coroutine frame per call just to return a value.
  /// Unlike a coroutine, the work is done when the task is made, not when it is awaited.
  static Task ready(T value) { return Task(std::move(value)); }

  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})), ready_(std::move(other.ready_)) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      reset(std::exchange(other.handle_, {}));
      ready_ = std::move(other.ready_);
    }
    return *this;
  }
  ~Task() { reset({}); }

  bool await_ready() const noexcept { return !handle_; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle_.promise().continuation = awaiting;
    return handle_;
  }
  T await_resume() {
    if (!handle_) return std::move(*ready_);
    handle_.promise().rethrow_if_failed();
    return std::move(*handle_.promise().value);
  }

 private:
  explicit Task(Handle h) : handle_(h) {}
  explicit Task(T&& value) : ready_(std::move(value)) {}
  void reset(Handle h) {
    if (handle_) handle_.destroy();
    handle_ = h;
  }
  Handle handle_;
  std::optional<T> ready_;  // the value of a task made by ready()
};

template <>
class [[nodiscard]] Task<void> {
 public:
  struct promise_type : detail::PromiseBase {
    Task get_return_object() { return Task(Handle::from_promise(*this)); }
    void return_void() const noexcept {}
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) reset(std::exchange(other.handle_, {}));
    return *this;
  }
  ~Task() { reset({}); }

  /// A finished task with no coroutine frame: for an operation that finds nothing to wait for.
  static Task done() { return Task(Handle{}); }
  bool await_ready() const noexcept { return !handle_; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    handle_.promise().continuation = awaiting;
    return handle_;
  }
  void await_resume() const {
    if (handle_) handle_.promise().rethrow_if_failed();
  }

 private:
  explicit Task(Handle h) : handle_(h) {}
  void reset(Handle h) {
    if (handle_) handle_.destroy();
    handle_ = h;
  }
  Handle handle_;
};

}  // namespace torsim
