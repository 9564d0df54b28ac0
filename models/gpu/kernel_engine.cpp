#include "models/gpu/kernel_engine.hpp"

#include <algorithm>

namespace torsim::gpu {

namespace {
constexpr Int128 kFull2 = Int128{KernelEngine::kFull} * KernelEngine::kFull;
}

KernelEngine::KernelEngine(Kernel& kernel, const EngineParams& params) : kernel_(kernel), p_(params) {}

Time KernelEngine::lone_time(const KernelWork& work) const {
  const std::int64_t waves = (work.threads + p_.resident_threads - 1) / p_.resident_threads;
  return std::max(waves * p_.memory_latency, transfer_time(work.traffic, p_.memory_bandwidth));
}

std::int64_t KernelEngine::share(const KernelWork& work) const {
  const Time lone = lone_time(work);
  const auto threads =
      static_cast<std::int64_t>(Int128{std::min(work.threads, p_.resident_threads)} * kFull / p_.resident_threads);
  const auto memory =
      lone > 0 ? static_cast<std::int64_t>(Int128{transfer_time(work.traffic, p_.memory_bandwidth)} * kFull / lone) : 0;
  return std::clamp<std::int64_t>(std::max(threads, memory), 1, kFull);
}

void KernelEngine::Run::await_suspend(std::coroutine_handle<> h) {
  auto job = std::make_unique<Job>();
  job->lone = engine_->lone_time(work_);
  job->share = engine_->share(work_);
  job->waiter = h;
  engine_->busy_ += job->lone;
  if (engine_->running() < engine_->p_.max_concurrent)
    engine_->admit(std::move(job));
  else
    engine_->waiting_.push_back(std::move(job));
}

void KernelEngine::admit(std::unique_ptr<Job> job) {
  advance();
  start(std::move(job));
  reschedule();
}

void KernelEngine::start(std::unique_ptr<Job> job) {
  job->finish = virtual_ + Int128{job->lone} * kFull;
  load_ += job->share;
  running_.push_back(std::move(job));
}

// Every running kernel has progressed at kFull / max(kFull, load) lone picoseconds per
// picosecond since the last update.
void KernelEngine::advance() {
  const Time now = kernel_.now();
  virtual_ += Int128{now - updated_} * kFull2 / divisor();
  updated_ = now;
}

void KernelEngine::reschedule() {
  ++generation_;
  if (running_.empty()) return;
  Int128 first = running_.front()->finish;
  for (const auto& job : running_) first = std::min(first, job->finish);
  const Int128 remaining = std::max<Int128>(0, first - virtual_);
  const auto delay = static_cast<Time>((remaining * divisor() + kFull2 - 1) / kFull2);
  kernel_.after(delay, member_callback<KernelEngine, &KernelEngine::on_timer>(this, generation_));
}

void KernelEngine::on_timer(std::uint64_t generation) {
  if (generation != generation_) return;
  advance();
  for (auto it = running_.begin(); it != running_.end();) {
    if ((*it)->finish > virtual_) {
      ++it;
      continue;
    }
    load_ -= (*it)->share;
    kernel_.resume_now((*it)->waiter);
    it = running_.erase(it);
  }
  while (!waiting_.empty() && running() < p_.max_concurrent) {
    start(std::move(waiting_.front()));
    waiting_.pop_front();
  }
  reschedule();
}

}  // namespace torsim::gpu
