// CUDA-aware MPI's send and receive of non-contiguous data in GPU memory. A message takes one
// of three paths, by where its peer is and how large it is:
//
// - shared memory: two GPUs of one node that cannot reach each other's memory (no peer
//   access: on Wilkes the two GPUs hang off different sockets), so the data is staged through
//   pinned host shared memory: pack on the sending GPU, copy to the host, copy to the
//   receiving GPU, unpack there. Pieces of `pipeline_block` (baseline).
// - staged network: GPUs of different nodes, host-staged (MVAPICH2 2.2,
//   src/mpid/ch3/channels/mrail/src/gen2/ibv_cuda_rndv.c): per piece a copy to a registered
//   host buffer, an RDMA write into the receiver's host staging buffer and a finish message,
//   then the receiver's copy to its GPU. Pieces of `network_block` (baseline).
// - GPUDirect RDMA: GPUs of different nodes and a packed message of at most `gdr_limit`: the
//   HCA reads the packed data straight from GPU memory (`gdr_latency` + bytes at
//   `gdr_read_bandwidth`) and sends it as one message; no copies across PCIe, no rendezvous.
//
// Two designs:
// - baseline, latency oriented (MVAPICH2 2.2, gen2/ibv_cuda_util.c): inside MPI_Isend the
//   sender packs the whole message with one kernel and blocks on cudaStreamSynchronize; only
//   then does it start the rendezvous (request to send, clear to send). The packed data then
//   moves in pipeline blocks: per block an asynchronous device-to-host copy and an event,
//   polled by the progress engine, then the block is passed on (a "block ready" note through
//   shared memory, or an RDMA write and a finish message). The receiver copies each block to
//   its GPU; when every block is in, it unpacks the whole message with one kernel and
//   synchronises. Packs of successive MPI_Isend calls therefore run one at a time.
// - overlap, throughput oriented (Chu et al., IPDPS 2016): the message is cut into chunks;
//   each chunk's pack, copy to the host and a stream callback go on a stream of their own
//   (Hyper-Q runs them side by side), MPI_Isend returns at once, the request to send goes out,
//   and the sender passes each chunk on as its callback fires; the receiver copies each chunk
//   in, unpacks it and adds a callback on a stream of its own, and completes when every
//   callback has fired. No thread blocks on the GPU.
//
// A rank is one host thread. In the baseline its blocking synchronisations (a pack inside
// MPI_Isend, an unpack in the progress engine) hold that thread: no other transfer of the rank
// takes a step (issues or polls a copy, passes a block on, starts an unpack) until it returns.
// Otherwise transfers progress as soon as they can, as in a rank waiting in MPI_Waitall.
// Notes between the two processes
// (request to send, clear to send, block ready, finish) are zero-byte messages of the
// messaging layer. The GPU calls' CPU costs are charged on the calling rank's core.
#pragma once

#include <memory>
#include <vector>

#include "models/gpu/device.hpp"
#include "models/messaging/messaging.hpp"
#include "sim/config/fields.hpp"

namespace torsim::rt {

enum class GpuDesign : std::uint8_t { baseline, overlap };
inline constexpr ChoiceName<GpuDesign> kGpuDesignNames[] = {{"baseline", GpuDesign::baseline},
                                                            {"overlap", GpuDesign::overlap}};
enum class GpuPath : std::uint8_t { shared_memory, staged_network, gpudirect };

// Every field is read by parse_mvapich2_cuda from its declaration in mvapich2_cuda.cpp, which holds the default.
struct Mvapich2CudaParams {
  Bytes pipeline_block = 0;  // baseline: host-staged pipeline block between the GPUs of a node
  Bytes network_block = 0;   // baseline: host-staged pipeline block between nodes
  Bytes chunk = 0;           // overlap: packed bytes per chunk
  int streams = 0;           // overlap: streams per process
  Bytes gdr_limit = 0;       // packed bytes sent by GPUDirect RDMA between nodes, at most
  Rate gdr_read_bandwidth = 0;
  Time gdr_latency = 0;
};

extern const ParamTable kMvapich2CudaParams;
/// The machine's "runtimes.mpi_cuda" parameters, for `design`: a scenario that gives a key of
/// the other design gives input nobody reads (not_used_unless_preset: a preset calibrates both).
Mvapich2CudaParams mvapich2_cuda_of(const Machine& machine, GpuDesign design);

/// Message tags a workload gives Mvapich2Cuda transfers are below this.
inline constexpr Tag kMvapich2CudaTags = 1 << 24;

class Mvapich2Cuda {
 public:
  /// Each rank uses GPU (its index among its node's ranks) mod the GPUs per node.
  Mvapich2Cuda(MessagingLayer& layer, const gpu::GpuParams& gpu, const Mvapich2CudaParams& params, GpuDesign design);

  /// MPI_Isend of one `layout` from this rank's GPU: returns when the call does; the signal
  /// fires when the send buffer may be reused. `layout` must outlive the transfer; transfers
  /// in flight between one pair at once need different tags.
  Task<gpu::SignalPtr> isend(Rank self, Rank dst, const gpu::Layout& layout, Tag tag = 0);
  /// MPI_Irecv of one `layout` into this rank's GPU: the signal fires when the data is unpacked.
  gpu::SignalPtr irecv(Rank self, Rank src, const gpu::Layout& layout, Tag tag = 0);
  /// Blocking MPI_Send and MPI_Recv.
  Task<> send(Rank self, Rank dst, const gpu::Layout& layout, Tag tag = 0);
  Task<> recv(Rank self, Rank src, const gpu::Layout& layout, Tag tag = 0);

  gpu::Device& device_of(Rank r) const { return *devices_.at(static_cast<std::size_t>(gpu_of_[r])); }
  /// The kernel packing (or unpacking) packed bytes [from, to) of `layout`.
  gpu::KernelWork pack(const gpu::Layout& layout, Bytes from, Bytes to) const;
  /// The path a message of `bytes` packed bytes between `self` and `peer` takes.
  GpuPath path_of(Rank self, Rank peer, Bytes bytes) const;
  /// Pieces a message of `bytes` packed bytes moves in on `path`.
  std::vector<Bytes> pieces(Bytes bytes, GpuPath path) const;

 private:
  struct Streams {
    int kernel = 0, to_host = 0, to_device = 0;  // baseline
    std::vector<int> chunks;                     // overlap
    std::size_t next = 0;                        // overlap: the chunk stream next in turn
  };
  struct Transfer {
    Rank self = 0, peer = 0;
    const gpu::Layout* layout = nullptr;
    Tag tag = 0;
    GpuPath path = GpuPath::shared_memory;
    std::vector<Bytes> pieces;
    std::vector<int> streams;  // overlap: per piece
    gpu::SignalPtr done;
  };
  Streams create_streams(gpu::Device& d) const;
  /// A transfer's path and pieces; in the overlapped design its pieces take the rank's
  /// streams in turn, continuing where its previous transfer stopped.
  Transfer transfer(Rank self, Rank peer, const gpu::Layout& layout, Tag tag);
  Streams& streams_of(Rank r) { return streams_[static_cast<std::size_t>(r)]; }
  Task<> baseline_pack(const Transfer& t);
  Task<> overlap_pack(const Transfer& t);
  Task<> baseline_send(Transfer t);
  Task<> overlap_send(Transfer t);
  Task<> baseline_recv(Transfer t);
  Task<> overlap_recv(Transfer t);
  /// Request to send and clear to send, unless the message goes by GPUDirect RDMA.
  Task<> handshake_send(const Transfer& t) const;
  Task<> handshake_recv(const Transfer& t) const;
  /// The sender passes a piece, in host memory (or GPU memory for GPUDirect RDMA), on.
  Task<> pass_on(const Transfer& t, Bytes piece) const;
  Task<> wait_piece(const Transfer& t) const;
  /// Waits until rank `self`'s thread is not blocked on the GPU.
  Task<> thread_free(Rank self) const;
  /// Launches `work` on `stream` and blocks the rank's thread until it is done (baseline).
  Task<> launch_and_synchronize(Rank self, int stream, const gpu::KernelWork& work);
  Task<> note(Rank self, Rank to, Tag tag) const;
  Task<> wait_note(Rank self, Rank from, Tag tag) const;
  Task<> cpu(Rank self, Time duration, CpuUse use) const;

  MessagingLayer& layer_;
  gpu::GpuParams gpu_;
  Mvapich2CudaParams p_;
  GpuDesign design_;
  std::vector<std::unique_ptr<gpu::Device>> devices_;
  std::vector<int> gpu_of_;                // per rank: its device's index
  std::vector<Streams> streams_;           // per rank
  std::vector<gpu::SignalPtr> unblocked_;  // per rank: fires when its blocking call returns
};

}  // namespace torsim::rt
