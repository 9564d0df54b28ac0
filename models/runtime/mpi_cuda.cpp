#include "models/runtime/mpi_cuda.hpp"

#include <algorithm>
#include <map>

namespace torsim::rt {

namespace {

constexpr ParamSpec kSpecs[] = {
    {"pipeline_block", ParamKind::size, "128KiB", "KiB", "1KiB", "64MiB",
     "baseline: packed bytes per block of the host-staged pipeline between two GPUs of a node",
     "[C-code] MVAPICH2 2.2 gen2/ibv_param.c: 128 KB CUDA pipeline blocks through host shared memory"},
    {"chunk", ParamKind::size, kRequired, "KiB", "256B", "64MiB",
     "overlap: packed bytes per chunk, each packed, copied and unpacked on a stream of its own", "preset"},
    {"streams", ParamKind::integer, kRequired, "", "1", "1024", "overlap: streams per process, used by chunks in turn",
     "preset"},
};

// Notes of one message use tags above the workloads' and below kPersistent.
constexpr Tag kRequestToSend = 1 << 27, kClearToSend = kRequestToSend + 1, kPieceReady = kRequestToSend + 2;

}  // namespace

const ParamTable kCudaMpiParams{"machine.runtimes.mpi_cuda",
                                "CUDA-aware MPI's non-contiguous transfers between the GPUs of a node "
                                "(models/runtime/mpi_cuda.hpp).",
                                kSpecs};

CudaMpiParams cuda_mpi_of(const Machine& machine) {
  const Json spec = machine.runtimes.value("mpi_cuda", Json::object());  // the reader refers to it
  const ParamReader r(spec, machine.where / "runtimes" / "mpi_cuda", kCudaMpiParams);
  return {r.size("pipeline_block"), r.size("chunk"), static_cast<int>(r.integer("streams"))};
}

CudaMpi::CudaMpi(MessagingLayer& layer, const gpu::GpuParams& gpu, const CudaMpiParams& params, GpuDesign design)
    : layer_(layer), gpu_(gpu), p_(params), design_(design) {
  const Job& job = layer.job();
  std::map<std::pair<NodeId, int>, int> devices;  // (node, GPU on it) -> index in devices_
  for (Rank r = 0; r < job.size(); ++r) {
    const auto [it, added] = devices.try_emplace({job.node_of(r), job.placement.local_index(r) % gpu.per_node},
                                                 static_cast<int>(devices_.size()));
    if (added) devices_.push_back(std::make_unique<gpu::Device>(layer.kernel(), gpu));
    gpu_of_.push_back(it->second);
    streams_.push_back(create_streams(device_of(r)));
  }
}

CudaMpi::Streams CudaMpi::create_streams(gpu::Device& d) const {
  Streams s;
  if (design_ == GpuDesign::baseline) {
    s.kernel = d.create_stream();
    s.to_host = d.create_stream();
    s.to_device = d.create_stream();
  }
  for (int i = 0; design_ == GpuDesign::overlap && i < p_.streams; ++i) s.chunks.push_back(d.create_stream());
  return s;
}

std::vector<Bytes> CudaMpi::pieces(Bytes bytes) const {
  const Bytes piece = design_ == GpuDesign::baseline ? p_.pipeline_block : p_.chunk;
  std::vector<Bytes> out;
  for (Bytes at = 0; at < bytes; at += piece) out.push_back(std::min(piece, bytes - at));
  return out;
}

Task<> CudaMpi::send(Rank self, Rank dst, const gpu::Layout& layout) {
  if (design_ == GpuDesign::baseline) co_await baseline_send(self, dst, layout);
  else co_await overlap_send(self, dst, layout);
}

Task<> CudaMpi::recv(Rank self, Rank src, const gpu::Layout& layout) {
  if (design_ == GpuDesign::baseline) co_await baseline_recv(self, src, layout);
  else co_await overlap_recv(self, src, layout);
}

Task<> CudaMpi::note(Rank self, Rank to, Tag tag) const { co_await Comm(layer_, self).send(to, 0, tag); }

Task<> CudaMpi::wait_note(Rank self, Rank from, Tag tag) const { (void)co_await Comm(layer_, self).recv(from, tag); }

Task<> CudaMpi::cpu(Rank self, Time duration, CpuUse use) const { co_await layer_.on_cpu(self, duration, use); }

gpu::KernelWork CudaMpi::pack(const gpu::Layout& layout, Bytes from, Bytes to) const {
  return gpu::pack_work(layout, from, to, {gpu_.sector, 8});
}

// Pack and synchronise, rendezvous, then per block a copy to the host, polled, and a note.
Task<> CudaMpi::baseline_send(Rank self, Rank dst, const gpu::Layout& layout) {
  gpu::Device& d = device_of(self);
  const Streams& s = streams_[static_cast<std::size_t>(self)];
  co_await cpu(self, gpu_.launch_cpu, CpuUse::copy);
  (void)d.launch(s.kernel, pack(layout, 0, layout.bytes()));
  co_await cpu(self, gpu_.sync_cpu, CpuUse::poll);
  co_await d.synchronize(s.kernel);
  co_await note(self, dst, kRequestToSend);
  co_await wait_note(self, dst, kClearToSend);
  std::vector<gpu::SignalPtr> copied;
  for (const Bytes block : pieces(layout.bytes())) {
    co_await cpu(self, gpu_.copy_cpu + gpu_.event_cpu, CpuUse::copy);
    copied.push_back(d.copy(s.to_host, block, gpu::CopyDirection::to_host));
  }
  for (const gpu::SignalPtr& block : copied) {
    gpu::Signal& done = *block;
    co_await done;
    co_await cpu(self, gpu_.query_cpu, CpuUse::poll);
    co_await note(self, dst, kPieceReady);
  }
}

// Rendezvous, per block a copy to the GPU, then unpack the whole message and synchronise.
Task<> CudaMpi::baseline_recv(Rank self, Rank src, const gpu::Layout& layout) {
  gpu::Device& d = device_of(self);
  const Streams& s = streams_[static_cast<std::size_t>(self)];
  co_await wait_note(self, src, kRequestToSend);
  co_await note(self, src, kClearToSend);
  gpu::SignalPtr last;
  for (const Bytes block : pieces(layout.bytes())) {
    co_await wait_note(self, src, kPieceReady);
    co_await cpu(self, gpu_.copy_cpu + gpu_.event_cpu, CpuUse::copy);
    last = d.copy(s.to_device, block, gpu::CopyDirection::to_device);
  }
  if (last) {
    gpu::Signal& in = *last;
    co_await in;
    co_await cpu(self, gpu_.query_cpu, CpuUse::poll);
  }
  co_await cpu(self, gpu_.launch_cpu, CpuUse::copy);
  (void)d.launch(s.kernel, pack(layout, 0, layout.bytes()));
  co_await cpu(self, gpu_.sync_cpu, CpuUse::poll);
  co_await d.synchronize(s.kernel);
}

// Every chunk's pack on its stream at once, the request to send meanwhile; after the clear
// to send, each chunk's copy to the host and callback; each chunk passed on as its callback
// fires.
Task<> CudaMpi::overlap_send(Rank self, Rank dst, const gpu::Layout& layout) {
  gpu::Device& d = device_of(self);
  const std::vector<int>& streams = streams_[static_cast<std::size_t>(self)].chunks;
  const std::vector<Bytes> chunks = pieces(layout.bytes());
  Bytes from = 0;
  for (std::size_t i = 0; i < chunks.size(); from += chunks[i++]) {
    co_await cpu(self, gpu_.launch_cpu, CpuUse::copy);
    (void)d.launch(streams[i % streams.size()], pack(layout, from, from + chunks[i]));
  }
  co_await note(self, dst, kRequestToSend);
  co_await wait_note(self, dst, kClearToSend);
  std::vector<gpu::SignalPtr> called;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const int stream = streams[i % streams.size()];
    co_await cpu(self, gpu_.copy_cpu + gpu_.callback_cpu, CpuUse::copy);
    (void)d.copy(stream, chunks[i], gpu::CopyDirection::to_host);
    called.push_back(d.add_callback(stream, {}));
  }
  for (const gpu::SignalPtr& chunk : called) {
    gpu::Signal& done = *chunk;
    co_await done;
    co_await note(self, dst, kPieceReady);
  }
}

// Each chunk as it is announced: its copy to the GPU, its unpack and a callback on its
// stream; done when every callback has fired.
Task<> CudaMpi::overlap_recv(Rank self, Rank src, const gpu::Layout& layout) {
  gpu::Device& d = device_of(self);
  const std::vector<int>& streams = streams_[static_cast<std::size_t>(self)].chunks;
  co_await wait_note(self, src, kRequestToSend);
  co_await note(self, src, kClearToSend);
  const std::vector<Bytes> chunks = pieces(layout.bytes());
  std::vector<gpu::SignalPtr> called;
  Bytes from = 0;
  for (std::size_t i = 0; i < chunks.size(); from += chunks[i++]) {
    const int stream = streams[i % streams.size()];
    co_await wait_note(self, src, kPieceReady);
    co_await cpu(self, gpu_.copy_cpu + gpu_.launch_cpu + gpu_.callback_cpu, CpuUse::copy);
    (void)d.copy(stream, chunks[i], gpu::CopyDirection::to_device);
    (void)d.launch(stream, pack(layout, from, from + chunks[i]));
    called.push_back(d.add_callback(stream, {}));
  }
  for (const gpu::SignalPtr& chunk : called) {
    gpu::Signal& done = *chunk;
    co_await done;
  }
}

}  // namespace torsim::rt
