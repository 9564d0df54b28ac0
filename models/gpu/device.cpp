#include "models/gpu/device.hpp"

#include <algorithm>

#include "sim/config/fields.hpp"

namespace torsim::gpu {

namespace {

constexpr Field<GpuParams> kFields[] = {
    bind<&GpuParams::per_node>({"per_node", ParamKind::integer, kRequired, "", "1", "16",
                                "GPUs per node; a node's ranks use them in turn", "preset"}),
    bind<&GpuParams::multiprocessors>(
        {"multiprocessors", ParamKind::integer, kRequired, "", "1", "1024", "streaming multiprocessors", "preset"}),
    bind<&GpuParams::threads_per_multiprocessor>(
        {"threads_per_multiprocessor", ParamKind::integer, "2048", "", "32", "65536",
         "threads resident on a multiprocessor at once",
         "[C] CUDA C Programming Guide, technical specifications per compute capability: 2048 from 3.0 on"}),
    bind<&GpuParams::memory_bandwidth>({"memory_bandwidth", ParamKind::rate, kRequired, "GB/s", "1GB/s", "100000GB/s",
                                        "device memory bandwidth a streaming kernel sustains", "preset"}),
    bind<&GpuParams::memory_latency>(
        {"memory_latency", ParamKind::time, kRequired, "ns", "1ns", "100us",
         "device memory latency: a wave of resident threads waits about this long for its loads", "preset"}),
    bind<&GpuParams::sector>(
        {"sector", ParamKind::size, "32B", "B", "1B", "4KiB", "granularity of device memory transactions",
         "[C] CUDA C Programming Guide, compute capability 3.x global memory: 32-byte transactions through L2"}),
    bind<&GpuParams::max_concurrent_kernels>({"max_concurrent_kernels", ParamKind::integer, "32", "", "1", "1024",
                                              "kernels resident on the device at once",
                                              "[C] CUDA C Programming Guide, technical specifications per compute "
                                              "capability: 32 resident grids from 3.5 on"}),
    bind<&GpuParams::hardware_queues>(
        {"hardware_queues", ParamKind::integer, "8", "", "1", "128",
         "hardware work queues a process uses (CUDA_DEVICE_MAX_CONNECTIONS); stream i uses queue i mod queues",
         "[C] the driver's default of 8 connections (of Hyper-Q's 32 queues on GK110)"}),
    bind<&GpuParams::launch_cpu>({"launch_cpu", ParamKind::time, kRequired, "us", "0ns", "1ms",
                                  "host CPU time of a kernel launch call", "preset"}),
    bind<&GpuParams::launch_latency>({"launch_latency", ParamKind::time, kRequired, "us", "0ns", "1ms",
                                      "from the launch call's return to the kernel's start on an idle device",
                                      "preset"}),
    bind<&GpuParams::copy_cpu>({"copy_cpu", ParamKind::time, kRequired, "us", "0ns", "1ms",
                                "host CPU time of a cudaMemcpyAsync call", "preset"}),
    bind<&GpuParams::copy_latency>({"copy_latency", ParamKind::time, kRequired, "us", "0ns", "1ms",
                                    "from the copy call's return to the copy engine's start on an idle device",
                                    "preset"}),
    bind<&GpuParams::sync_cpu>({"sync_cpu", ParamKind::time, kRequired, "us", "0ns", "1ms",
                                "host CPU time of a stream or event synchronisation call, besides the wait", "preset"}),
    bind<&GpuParams::sync_latency>({"sync_latency", ParamKind::time, kRequired, "us", "0ns", "1ms",
                                    "from the end of the work to the waiting host thread's return", "preset"}),
    bind<&GpuParams::event_cpu>(
        {"event_cpu", ParamKind::time, kRequired, "us", "0ns", "1ms", "host CPU time of cudaEventRecord", "preset"}),
    bind<&GpuParams::query_cpu>(
        {"query_cpu", ParamKind::time, kRequired, "us", "0ns", "1ms", "host CPU time of one cudaEventQuery", "preset"}),
    bind<&GpuParams::callback_cpu>({"callback_cpu", ParamKind::time, kRequired, "us", "0ns", "1ms",
                                    "host CPU time of cudaStreamAddCallback", "preset"}),
    bind<&GpuParams::callback_latency>({"callback_latency", ParamKind::time, kRequired, "us", "0ns", "1ms",
                                        "from the end of the work before a callback to its call on the driver's thread",
                                        "preset"}),
    bind<&GpuParams::pcie_bandwidth>(
        {"pcie_bandwidth", ParamKind::rate, kRequired, "GB/s", "1MB/s", "1000GB/s",
         "rate of a copy between device and pinned host memory (one copy engine per direction)", "preset"}),
};
constexpr auto kSpecs = specs_of(kFields);

}  // namespace

const ParamTable kGpuParams{"machine.gpu", "The GPUs of every node (CUDA devices) and the host's calls to them.",
                            kSpecs};

GpuParams parse_gpu(const ParamReader& r) { return parse_fields(r, kFields); }

GpuParams gpu_of(const Machine& machine, const Where& where) {
  if (machine.gpu.empty()) where.fail("machine '" + machine.name + "' has no GPUs (its preset has no \"gpu\" section)");
  return parse_gpu(ParamReader(machine.gpu, machine.where / "gpu", kGpuParams));
}

Device::Device(Kernel& kernel, const GpuParams& params)
    : kernel_(kernel),
      p_(params),
      engine_(kernel, params.engine()),
      queue_heads_(static_cast<std::size_t>(params.hardware_queues)),
      idle_(std::make_shared<Signal>(kernel)) {
  idle_->fire();
  std::fill(queue_heads_.begin(), queue_heads_.end(), idle_);
}

int Device::create_stream() {
  const int index = static_cast<int>(streams_.size());
  streams_.push_back({index % p_.hardware_queues, idle_});
  return index;
}

SignalPtr Device::launch(int stream, const KernelWork& work) {
  ++counters_.kernels;
  Op op;
  op.work = work;
  op.latency = p_.launch_latency;
  return enqueue(stream, std::move(op));
}

SignalPtr Device::copy(int stream, Bytes bytes, CopyDirection direction) {
  ++counters_.copies;
  (direction == CopyDirection::to_host ? counters_.copied_to_host : counters_.copied_to_device) += bytes;
  Op op;
  op.kind = OpKind::copy;
  op.bytes = bytes;
  op.direction = direction;
  op.latency = p_.copy_latency;
  return enqueue(stream, std::move(op));
}

Task<> Device::synchronize(int stream) {
  const SignalPtr last = record(stream);  // held: the stream may move on while we wait
  Signal& done = *last;
  co_await done;
  co_await kernel_.sleep(p_.sync_latency);
}

SignalPtr Device::add_callback(int stream, Callback host_function) {
  ++counters_.callbacks;
  Op op;
  op.kind = OpKind::callback;
  op.host_function = host_function;
  return enqueue(stream, std::move(op));
}

SignalPtr Device::enqueue(int stream, Op op) {
  StreamState& s = streams_.at(static_cast<std::size_t>(stream));
  SignalPtr& head = queue_heads_[static_cast<std::size_t>(s.queue)];
  op.after = s.last;
  op.queue_ahead = head;
  op.started = std::make_shared<Signal>(kernel_);
  op.done = std::make_shared<Signal>(kernel_);
  s.last = op.done;
  head = op.started;
  SignalPtr done = op.done;
  kernel_.spawn(run(std::move(op)));
  return done;
}

// The command reaches its hardware queue, waits for the queue's earlier work to have started
// and for its stream's earlier work to be done, then runs.
Task<> Device::run(Op op) {
  co_await kernel_.sleep(op.latency);
  Signal& queue_ahead = *op.queue_ahead;  // named references: `co_await *ptr` would await a copy
  co_await queue_ahead;
  Signal& stream_ahead = *op.after;
  co_await stream_ahead;
  op.started->fire();
  co_await execute(op);
  op.done->fire();
}

Task<> Device::execute(const Op& op) {
  switch (op.kind) {
    case OpKind::kernel:
      co_await engine_.run(op.work);
      break;
    case OpKind::copy:
      co_await kernel_.sleep(copy_done(op.bytes, op.direction) - kernel_.now());
      break;
    case OpKind::callback:
      co_await kernel_.sleep(callback_turn() - kernel_.now());
      if (op.host_function.fn) op.host_function();
      break;
  }
}

Time Device::copy_done(Bytes bytes, CopyDirection direction) {
  Time& free = copy_engine_free_[static_cast<std::size_t>(direction)];
  free = std::max(free, kernel_.now()) + transfer_time(bytes, p_.pcie_bandwidth);
  return free;
}

Time Device::callback_turn() {
  driver_free_ = std::max(kernel_.now() + p_.callback_latency, driver_free_);
  return driver_free_;
}

}  // namespace torsim::gpu
