// The GPU's multiprocessors and memory as concurrent kernels share them (Hyper-Q).
//
// Alone, a kernel of `threads` threads moving `traffic` DRAM bytes takes
//     T = max(ceil(threads / resident) x memory_latency, traffic / memory_bandwidth)
// where `resident` is the threads the device keeps resident at once (multiprocessors x
// threads per multiprocessor): each wave of resident threads waits about one memory latency
// for its loads, and no kernel moves data faster than the memory does. A small kernel is
// latency-bound and leaves most of the device idle: it uses a share
//     u = max(min(threads, resident) / resident, traffic / (memory_bandwidth x T))
// of it (thread slots or bandwidth, whichever it fills more).
//
// Concurrent kernels (up to max_concurrent kernels resident; later ones wait in order)
// share the device as a processor-sharing server: while the shares of the running kernels sum
// to L, each progresses at 1 / max(1, L) of its lone speed. Kernels that fit together run as
// fast as alone; kernels that each fill the device split it. Exact integer arithmetic on a
// common virtual clock (each kernel finishes when the clock has advanced by its lone time).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "models/gpu/pack.hpp"
#include "sim/core/kernel.hpp"

namespace torsim::gpu {

struct EngineParams {
  std::int64_t resident_threads = 0;
  Rate memory_bandwidth = 0;
  Time memory_latency = 0;
  int max_concurrent = 1;
};

class KernelEngine {
 public:
  KernelEngine(Kernel& kernel, const EngineParams& params);

  /// Time of `work` alone on the device.
  Time lone_time(const KernelWork& work) const;
  /// Its share of the device, in millionths (1..kFull).
  std::int64_t share(const KernelWork& work) const;
  static constexpr std::int64_t kFull = 1'000'000;

  /// Awaitable: runs `work` on the device; resumes when it is done.
  class Run;
  Run run(const KernelWork& work);

  int running() const { return static_cast<int>(running_.size()); }
  /// Sum over kernels of their lone time: the device time asked for so far.
  Time busy() const { return busy_; }

 private:
  struct Job {
    Int128 finish = 0;  // on the virtual clock
    std::int64_t share = 0;
    Time lone = 0;
    std::coroutine_handle<> waiter;
  };
  void admit(std::unique_ptr<Job> job);  // now, with the clock brought up to date
  void start(std::unique_ptr<Job> job);
  void advance();
  void reschedule();
  void on_timer(std::uint64_t generation);
  Int128 divisor() const { return load_ > kFull ? load_ : kFull; }

  Kernel& kernel_;
  EngineParams p_;
  std::vector<std::unique_ptr<Job>> running_;
  std::deque<std::unique_ptr<Job>> waiting_;  // beyond max_concurrent
  Int128 virtual_ = 0;                        // lone picoseconds x kFull served to each running kernel so far
  Time updated_ = 0;                          // when virtual_ was last advanced
  std::int64_t load_ = 0;
  std::uint64_t generation_ = 0;  // the timer's; older timers are stale
  Time busy_ = 0;
};

class KernelEngine::Run {
 public:
  Run(KernelEngine& engine, const KernelWork& work) : engine_(&engine), work_(work) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h);
  void await_resume() const noexcept {}

 private:
  KernelEngine* engine_;
  KernelWork work_;
};

inline KernelEngine::Run KernelEngine::run(const KernelWork& work) { return Run(*this, work); }

}  // namespace torsim::gpu
