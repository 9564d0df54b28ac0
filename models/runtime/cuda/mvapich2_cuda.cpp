#include "models/runtime/cuda/mvapich2_cuda.hpp"

#include <algorithm>
#include <map>
#include <span>
#include <stdexcept>

#include "sim/config/fields.hpp"
#include "sim/config/unused.hpp"

namespace torsim::rt {

namespace {

constexpr Field<Mvapich2CudaParams> kFields[] = {
    bind<&Mvapich2CudaParams::pipeline_block>(
        {"pipeline_block", ParamKind::size, "128KiB", "KiB", "1KiB", "64MiB",
         "baseline: packed bytes per block of the host-staged pipeline between two GPUs of a node",
         "[C-code] MVAPICH2 2.2 gen2/ibv_param.c: 128 KB CUDA pipeline blocks through host shared memory"}),
    bind<&Mvapich2CudaParams::network_block>(
        {"network_block", ParamKind::size, "256KiB", "KiB", "1KiB", "64MiB",
         "baseline: packed bytes per block of the host-staged pipeline between nodes (copy, RDMA write, finish)",
         "[C-code] MVAPICH2 2.2 gen2/ibv_cuda_rndv.c: MV2_CUDA_BLOCK_SIZE 256 KB"}),
    bind<&Mvapich2CudaParams::chunk>(
        {"chunk", ParamKind::size, kRequired, "KiB", "256B", "64MiB",
         "overlap: packed bytes per chunk, each packed, copied and unpacked on a stream of its own", "preset"}),
    bind<&Mvapich2CudaParams::streams>({"streams", ParamKind::integer, kRequired, "", "1", "1024",
                                        "overlap: streams per process, used by chunks in turn", "preset"}),
    bind<&Mvapich2CudaParams::gdr_limit>(
        {"gdr_limit", ParamKind::size, "0B", "KiB", "0B", "64MiB",
         "packed messages between nodes up to this size go by GPUDirect RDMA (the HCA reads GPU memory); 0: never",
         "preset"}),
    bind<&Mvapich2CudaParams::gdr_read_bandwidth>(
        {"gdr_read_bandwidth", ParamKind::rate, "1GB/s", "GB/s", "1MB/s", "1000GB/s",
         "rate at which the HCA reads GPU memory across the PCIe root complex (GPUDirect RDMA)", "preset"}),
    bind<&Mvapich2CudaParams::gdr_latency>({"gdr_latency", ParamKind::time, "0ns", "us", "0ns", "1ms",
                                            "time from the post to the HCA's first read of GPU memory (GPUDirect RDMA)",
                                            "preset"}),
};
constexpr auto kSpecs = specs_of(kFields);
// The keys only one design reads.
constexpr std::string_view kBaselineKeys[] = {"pipeline_block", "network_block"};
constexpr std::string_view kOverlapKeys[] = {"chunk", "streams"};

// Notes of one message use tags above the workloads' and below kPersistent: 4 per message tag.
constexpr Tag kNotes = 1 << 27;
enum NoteKind : Tag { kRequestToSend = 0, kClearToSend = 1, kPieceReady = 2 };
constexpr Tag note_tag(Tag tag, NoteKind kind) { return kNotes + tag * 4 + kind; }

Task<> wait_signal(gpu::SignalPtr signal) {
  Signal& s = *signal;
  co_await s;
}

}  // namespace

namespace {
Mvapich2CudaParams parse_mvapich2_cuda(const ParamReader& r) { return parse_fields(r, kFields); }
}  // namespace

const ParamTable kMvapich2CudaParams{"machine.runtimes.mpi_cuda",
                                     "CUDA-aware MPI's non-contiguous transfers from GPU memory, between the GPUs of "
                                     "a node or across the network (models/runtime/cuda/mvapich2_cuda.hpp).",
                                     kSpecs};

Mvapich2CudaParams mvapich2_cuda_of(const Machine& machine, GpuDesign design) {
  const Json spec = machine.runtimes.value("mpi_cuda", Json::object());  // the reader refers to it
  const Where where = machine.where / "runtimes" / "mpi_cuda";
  const bool baseline = design == GpuDesign::baseline;
  for (const std::string_view key : baseline ? std::span(kOverlapKeys) : std::span(kBaselineKeys))
    if (spec.contains(key))
      not_used_unless_preset(where / key, std::string(key) + " is not used by MVAPICH2-CUDA's " +
                                              std::string(name_of(kGpuDesignNames, design)) +
                                              " design (it calibrates the other one)");
  return parse_mvapich2_cuda(ParamReader(spec, where, kMvapich2CudaParams));
}

Mvapich2Cuda::Mvapich2Cuda(MessagingLayer& layer, const gpu::GpuParams& gpu, const Mvapich2CudaParams& params,
                           GpuDesign design)
    : layer_(layer), gpu_(gpu), p_(params), design_(design) {
  const Job& job = layer.job();
  std::map<std::pair<NodeId, int>, int> devices;  // (node, GPU on it) -> index in devices_
  for (Rank r = 0; r < job.size(); ++r) {
    const auto [it, added] = devices.try_emplace({job.node_of(r), job.placement.local_index(r) % gpu.per_node},
                                                 static_cast<int>(devices_.size()));
    if (added) devices_.push_back(std::make_unique<gpu::Device>(layer.kernel(), gpu));
    gpu_of_.push_back(it->second);
    streams_.push_back(create_streams(device_of(r)));
    unblocked_.push_back(std::make_shared<Signal>(layer.kernel()));
    unblocked_.back()->fire();
  }
}

Mvapich2Cuda::Streams Mvapich2Cuda::create_streams(gpu::Device& d) const {
  Streams s;
  if (design_ == GpuDesign::baseline) {
    s.kernel = d.create_stream();
    s.to_host = d.create_stream();
    s.to_device = d.create_stream();
  }
  for (int i = 0; design_ == GpuDesign::overlap && i < p_.streams; ++i) s.chunks.push_back(d.create_stream());
  return s;
}

GpuPath Mvapich2Cuda::path_of(Rank self, Rank peer, Bytes bytes) const {
  const Job& job = layer_.job();
  if (job.node_of(self) == job.node_of(peer)) return GpuPath::shared_memory;
  return bytes <= p_.gdr_limit ? GpuPath::gpudirect : GpuPath::staged_network;
}

std::vector<Bytes> Mvapich2Cuda::pieces(Bytes bytes, GpuPath path) const {
  Bytes piece = p_.chunk;
  if (path == GpuPath::gpudirect)
    piece = std::max<Bytes>(bytes, 1);
  else if (design_ == GpuDesign::baseline)
    piece = path == GpuPath::shared_memory ? p_.pipeline_block : p_.network_block;
  std::vector<Bytes> out;
  for (Bytes at = 0; at < bytes; at += piece) out.push_back(std::min(piece, bytes - at));
  return out;
}

Mvapich2Cuda::Transfer Mvapich2Cuda::transfer(Rank self, Rank peer, const gpu::Layout& layout, Tag tag) {
  if (tag < 0 || tag >= kMvapich2CudaTags)
    throw std::logic_error("a CUDA-aware MPI transfer's tag is below kMvapich2CudaTags");
  Transfer t{
      self, peer, &layout, tag, path_of(self, peer, layout.bytes()), {}, {}, std::make_shared<Signal>(layer_.kernel())};
  t.pieces = pieces(layout.bytes(), t.path);
  Streams& s = streams_of(self);
  for (std::size_t i = 0; design_ == GpuDesign::overlap && i < t.pieces.size(); ++i)
    t.streams.push_back(s.chunks[s.next++ % s.chunks.size()]);
  return t;
}

Task<gpu::SignalPtr> Mvapich2Cuda::isend(Rank self, Rank dst, const gpu::Layout& layout, Tag tag) {
  Transfer t = transfer(self, dst, layout, tag);
  gpu::SignalPtr done = t.done;
  if (design_ == GpuDesign::baseline) {
    co_await baseline_pack(t);
    layer_.kernel().spawn(baseline_send(std::move(t)));
  } else {
    co_await overlap_pack(t);
    layer_.kernel().spawn(overlap_send(std::move(t)));
  }
  co_return done;
}

gpu::SignalPtr Mvapich2Cuda::irecv(Rank self, Rank src, const gpu::Layout& layout, Tag tag) {
  Transfer t = transfer(self, src, layout, tag);
  gpu::SignalPtr done = t.done;
  layer_.kernel().spawn(design_ == GpuDesign::baseline ? baseline_recv(std::move(t)) : overlap_recv(std::move(t)));
  return done;
}

Task<> Mvapich2Cuda::send(Rank self, Rank dst, const gpu::Layout& layout, Tag tag) {
  co_await wait_signal(co_await isend(self, dst, layout, tag));
}

Task<> Mvapich2Cuda::recv(Rank self, Rank src, const gpu::Layout& layout, Tag tag) {
  co_await wait_signal(irecv(self, src, layout, tag));
}

Task<> Mvapich2Cuda::note(Rank self, Rank to, Tag tag) const { co_await Comm(layer_, self).send(to, 0, tag); }

Task<> Mvapich2Cuda::wait_note(Rank self, Rank from, Tag tag) const {
  (void)co_await Comm(layer_, self).recv(from, tag);
}

Task<> Mvapich2Cuda::cpu(Rank self, Time duration, CpuUse use) const {
  co_await layer_.cores().run(self, duration, use);
}

gpu::KernelWork Mvapich2Cuda::pack(const gpu::Layout& layout, Bytes from, Bytes to) const {
  return gpu::pack_work(layout, from, to, {gpu_.sector, 8});
}

Task<> Mvapich2Cuda::handshake_send(const Transfer& t) const {
  if (t.path == GpuPath::gpudirect) co_return;
  co_await note(t.self, t.peer, note_tag(t.tag, kRequestToSend));
  co_await wait_note(t.self, t.peer, note_tag(t.tag, kClearToSend));
}

Task<> Mvapich2Cuda::handshake_recv(const Transfer& t) const {
  if (t.path == GpuPath::gpudirect) co_return;
  co_await wait_note(t.self, t.peer, note_tag(t.tag, kRequestToSend));
  co_await note(t.self, t.peer, note_tag(t.tag, kClearToSend));
}

// Through shared memory the piece is already where the receiver copies it from; across the
// network it is RDMA-written into the receiver's staging buffer first; by GPUDirect RDMA the
// HCA reads it from GPU memory and sends it as the message itself.
Task<> Mvapich2Cuda::pass_on(const Transfer& t, Bytes piece) const {
  if (t.path == GpuPath::gpudirect) {
    co_await layer_.kernel().sleep(p_.gdr_latency + transfer_time(piece, p_.gdr_read_bandwidth));
    co_await Comm(layer_, t.self).send(t.peer, piece, note_tag(t.tag, kPieceReady));
    co_return;
  }
  if (t.path == GpuPath::staged_network) co_await layer_.put(t.self, t.peer, piece);
  co_await note(t.self, t.peer, note_tag(t.tag, kPieceReady));
}

Task<> Mvapich2Cuda::wait_piece(const Transfer& t) const {
  co_await wait_note(t.self, t.peer, note_tag(t.tag, kPieceReady));
}

Task<> Mvapich2Cuda::thread_free(Rank self) const {
  const auto r = static_cast<std::size_t>(self);
  while (!unblocked_[r]->fired()) co_await wait_signal(unblocked_[r]);
}

// The thread is taken as soon as it is free (no suspension in between), so blocking calls of
// one rank follow one another.
Task<> Mvapich2Cuda::launch_and_synchronize(Rank self, int stream, const gpu::KernelWork& work) {
  co_await thread_free(self);
  const gpu::SignalPtr unblocked = std::make_shared<Signal>(layer_.kernel());
  unblocked_[static_cast<std::size_t>(self)] = unblocked;
  gpu::Device& d = device_of(self);
  co_await cpu(self, gpu_.launch_cpu, CpuUse::copy);
  (void)d.launch(stream, work);
  co_await cpu(self, gpu_.sync_cpu, CpuUse::poll);
  co_await d.synchronize(stream);
  unblocked->fire();
}

// Inside MPI_Isend: one pack kernel for the whole message, and a blocking synchronisation.
Task<> Mvapich2Cuda::baseline_pack(const Transfer& t) {
  co_await launch_and_synchronize(t.self, streams_of(t.self).kernel, pack(*t.layout, 0, t.layout->bytes()));
}

// Rendezvous, then per block a copy to the host, polled, and the block passed on.
Task<> Mvapich2Cuda::baseline_send(Transfer t) {
  gpu::Device& d = device_of(t.self);
  co_await handshake_send(t);
  std::vector<gpu::SignalPtr> copied;
  for (const Bytes block : t.pieces) {
    if (t.path == GpuPath::gpudirect) break;
    co_await thread_free(t.self);
    co_await cpu(t.self, gpu_.copy_cpu + gpu_.event_cpu, CpuUse::copy);
    copied.push_back(d.copy(streams_of(t.self).to_host, block, gpu::CopyDirection::to_host));
  }
  for (std::size_t i = 0; i < t.pieces.size(); ++i) {
    if (i < copied.size()) {
      co_await wait_signal(copied[i]);
      co_await thread_free(t.self);
      co_await cpu(t.self, gpu_.query_cpu, CpuUse::poll);
    }
    co_await pass_on(t, t.pieces[i]);
  }
  t.done->fire();
}

// Rendezvous, per block a copy to the GPU, then unpack the whole message and synchronise.
Task<> Mvapich2Cuda::baseline_recv(Transfer t) {
  gpu::Device& d = device_of(t.self);
  const Streams& s = streams_of(t.self);
  co_await handshake_recv(t);
  gpu::SignalPtr last;
  for (const Bytes block : t.pieces) {
    co_await wait_piece(t);
    if (t.path == GpuPath::gpudirect) continue;
    co_await thread_free(t.self);
    co_await cpu(t.self, gpu_.copy_cpu + gpu_.event_cpu, CpuUse::copy);
    last = d.copy(s.to_device, block, gpu::CopyDirection::to_device);
  }
  if (last) {
    co_await wait_signal(last);
    co_await thread_free(t.self);
    co_await cpu(t.self, gpu_.query_cpu, CpuUse::poll);
  }
  co_await launch_and_synchronize(t.self, s.kernel, pack(*t.layout, 0, t.layout->bytes()));
  t.done->fire();
}

// Inside MPI_Isend: every chunk's pack launched on its stream; nothing waits.
Task<> Mvapich2Cuda::overlap_pack(const Transfer& t) {
  gpu::Device& d = device_of(t.self);
  Bytes from = 0;
  for (std::size_t i = 0; i < t.pieces.size(); from += t.pieces[i++]) {
    co_await cpu(t.self, gpu_.launch_cpu, CpuUse::copy);
    (void)d.launch(t.streams[i], pack(*t.layout, from, from + t.pieces[i]));
  }
}

// The request to send while the packs run; after the clear to send, each chunk's copy to the
// host (none for GPUDirect RDMA) and callback; each chunk passed on as its callback fires.
Task<> Mvapich2Cuda::overlap_send(Transfer t) {
  gpu::Device& d = device_of(t.self);
  co_await handshake_send(t);
  const bool staged = t.path != GpuPath::gpudirect;
  std::vector<gpu::SignalPtr> called;
  for (std::size_t i = 0; i < t.pieces.size(); ++i) {
    const int stream = t.streams[i];
    co_await cpu(t.self, (staged ? gpu_.copy_cpu : 0) + gpu_.callback_cpu, CpuUse::copy);
    if (staged) (void)d.copy(stream, t.pieces[i], gpu::CopyDirection::to_host);
    called.push_back(d.add_callback(stream, {}));
  }
  for (std::size_t i = 0; i < t.pieces.size(); ++i) {
    co_await wait_signal(called[i]);
    co_await pass_on(t, t.pieces[i]);
  }
  t.done->fire();
}

// Each chunk as it is announced: its copy to the GPU (none for GPUDirect RDMA), its unpack and
// a callback on its stream; done when every callback has fired.
Task<> Mvapich2Cuda::overlap_recv(Transfer t) {
  gpu::Device& d = device_of(t.self);
  co_await handshake_recv(t);
  const bool staged = t.path != GpuPath::gpudirect;
  std::vector<gpu::SignalPtr> called;
  Bytes from = 0;
  for (std::size_t i = 0; i < t.pieces.size(); from += t.pieces[i++]) {
    const int stream = t.streams[i];
    co_await wait_piece(t);
    co_await cpu(t.self, (staged ? gpu_.copy_cpu : 0) + gpu_.launch_cpu + gpu_.callback_cpu, CpuUse::copy);
    if (staged) (void)d.copy(stream, t.pieces[i], gpu::CopyDirection::to_device);
    (void)d.launch(stream, pack(*t.layout, from, from + t.pieces[i]));
    called.push_back(d.add_callback(stream, {}));
  }
  for (const gpu::SignalPtr& chunk : called) co_await wait_signal(chunk);
  t.done->fire();
}

}  // namespace torsim::rt
