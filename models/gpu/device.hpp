// A GPU as CUDA exposes it to a host process: streams of kernels, copies and host callbacks,
// run by the device's work queues, multiprocessors and copy engines.
//
// - Streams: work on one stream runs in order; work on different streams may overlap. A
//   stream is bound to one of the device's hardware work queues (Hyper-Q: 32 on GK110, of
//   which a process uses CUDA_DEVICE_MAX_CONNECTIONS, 8 by default), stream i to queue
//   i mod queues. A queue hands out its work in order and stalls while its head waits for
//   earlier work of its own stream, so streams that share a queue pick up false dependencies.
// - Commands reach the device `launch_latency` (kernels) or `copy_latency` (copies) after the
//   host's call; the call's own CPU time (`launch_cpu`, `copy_cpu`, ...) is the caller's, on
//   its core (the device does not know about cores).
// - Kernels run on the multiprocessors shared with other kernels (models/gpu/kernel_engine.hpp).
// - Copies between device and host memory move over the device's PCI Express link, one copy
//   engine per direction (copies in one direction queue behind each other).
// - Callbacks (cudaStreamAddCallback) run on the driver's one host thread, `callback_latency`
//   after the work before them is done (and after the thread's previous callback); work after
//   a callback in its stream waits for it.
// - A host thread waiting for a stream (cudaStreamSynchronize, cudaEventSynchronize) sees it
//   done `sync_latency` after the work is; an event recorded in a stream is done with the
//   work before it and is found by polling (cudaEventQuery, `query_cpu` per call).
#pragma once

#include <coroutine>
#include <memory>
#include <vector>

#include "models/gpu/kernel_engine.hpp"
#include "models/machine.hpp"
#include "sim/config/params.hpp"
#include "sim/core/wait.hpp"

namespace torsim::gpu {

// Every field is read by parse_gpu from its declaration in device.cpp, which holds the default.
struct GpuParams {
  int per_node = 0;
  int multiprocessors = 0, threads_per_multiprocessor = 0;
  Rate memory_bandwidth = 0;
  Time memory_latency = 0;
  Bytes sector = 0;
  int max_concurrent_kernels = 0, hardware_queues = 0;
  Time launch_cpu = 0, launch_latency = 0;
  Time copy_cpu = 0, copy_latency = 0;
  Time sync_cpu = 0, sync_latency = 0;
  Time event_cpu = 0, query_cpu = 0;
  Time callback_cpu = 0, callback_latency = 0;
  Rate pcie_bandwidth = 0;

  EngineParams engine() const {
    return {static_cast<std::int64_t>(multiprocessors) * threads_per_multiprocessor, memory_bandwidth, memory_latency,
            max_concurrent_kernels};
  }
};

extern const ParamTable kGpuParams;
GpuParams parse_gpu(const ParamReader& r);
/// The machine's "gpu" object; an error naming `where` if the machine has no GPUs.
GpuParams gpu_of(const Machine& machine, const Where& where);

/// A completion several processes may wait for (a CUDA event, the end of a stream's work).
using SignalPtr = std::shared_ptr<Signal>;

enum class CopyDirection : std::uint8_t { to_host, to_device };

struct DeviceCounters {
  std::uint64_t kernels = 0, copies = 0, callbacks = 0;
  Bytes copied_to_host = 0, copied_to_device = 0;
};

class Device {
 public:
  Device(Kernel& kernel, const GpuParams& params);
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  const GpuParams& params() const { return p_; }

  /// A new stream (cudaStreamCreate); its index.
  int create_stream();
  /// Enqueues a kernel on `stream` now: done when it has run.
  SignalPtr launch(int stream, const KernelWork& work);
  /// Enqueues a copy of `bytes` between device memory and pinned host memory (cudaMemcpyAsync):
  /// done when the bytes are across.
  SignalPtr copy(int stream, Bytes bytes, CopyDirection direction);
  /// Enqueues a host function: called (as an event) on the driver's thread when the work
  /// before it is done (an empty one only marks the time); the stream goes on once it has been
  /// called.
  SignalPtr add_callback(int stream, Callback host_function);
  /// An event recorded on `stream` now: done when everything enqueued on it so far is.
  SignalPtr record(int stream) const { return streams_.at(static_cast<std::size_t>(stream)).last; }

  /// A host thread blocked on `stream` (cudaStreamSynchronize): resumes `sync_latency` after the
  /// work enqueued on it so far is done. The call's CPU time is the caller's.
  Task<> synchronize(int stream);

  /// Time of a kernel alone on the device.
  Time kernel_time(const KernelWork& work) const { return engine_.lone_time(work); }
  const KernelEngine& engine() const { return engine_; }
  const DeviceCounters& counters() const { return counters_; }

 protected:
  enum class OpKind : std::uint8_t { kernel, copy, callback };
  struct Op {
    OpKind kind = OpKind::kernel;
    KernelWork work;
    Bytes bytes = 0;
    CopyDirection direction = CopyDirection::to_host;
    Callback host_function;
    Time latency = 0;  // from the host's call to the device's queue
    SignalPtr after, queue_ahead, started, done;
  };
  SignalPtr enqueue(int stream, Op op);
  Task<> run(Op op);
  Task<> execute(const Op& op);
  /// The driver thread's turn for a callback whose work is done now: when it runs.
  Time callback_turn();
  /// When a copy of `bytes` that reaches its copy engine now is across.
  Time copy_done(Bytes bytes, CopyDirection direction);

  Kernel& kernel_;
  GpuParams p_;
  KernelEngine engine_;
  struct StreamState {
    int queue = 0;
    SignalPtr last;  // done when the stream's last enqueued work is
  };
  std::vector<StreamState> streams_;
  std::vector<SignalPtr> queue_heads_;  // per hardware queue: its last work has started
  SignalPtr idle_;                      // a signal already fired
  Time driver_free_ = 0;
  Time copy_engine_free_[2] = {0, 0};  // per direction
  DeviceCounters counters_;
};

}  // namespace torsim::gpu
