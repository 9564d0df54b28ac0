// CUDA-aware MPI's send and receive of non-contiguous data in GPU memory, between two GPUs of
// one node that cannot reach each other's memory (no peer access: on Wilkes the two GPUs hang
// off different sockets), so the data is staged through pinned host shared memory: pack on
// the sending GPU, copy to the host, copy to the receiving GPU, unpack there. Two designs:
//
// - baseline, latency oriented (MVAPICH2 2.2, src/mpid/ch3/channels/mrail/src/gen2/
//   ibv_cuda_util.c and ibv_cuda_rndv.c): the sender packs the whole message with one kernel
//   and blocks on cudaStreamSynchronize; only then does it start the rendezvous (request to
//   send, clear to send). The packed data then moves in pipeline blocks: per block an
//   asynchronous device-to-host copy and an event, polled by the progress engine, then a
//   "block ready" note to the receiver, which copies the block to its GPU. When every block
//   is in, the receiver unpacks the whole message with one kernel and synchronises.
// - overlap, throughput oriented (Chu et al., IPDPS 2016): the message is cut into chunks;
//   each chunk's pack, copy to the host and a stream callback go on a stream of their own
//   (Hyper-Q runs them side by side), the request to send goes out at once, and the sender
//   passes each chunk on as its callback fires; the receiver copies each chunk in, unpacks it
//   and adds a callback on a stream of its own, and completes when every callback has fired.
//   No thread blocks on the GPU.
//
// Notes between the two processes (request to send, clear to send, block ready) are
// zero-byte messages of the messaging layer (through the node's shared memory). The GPU
// calls' CPU costs are charged on the calling rank's core.
#pragma once

#include <memory>
#include <vector>

#include "models/gpu/device.hpp"
#include "models/messaging/messaging.hpp"

namespace torsim::rt {

enum class GpuDesign : std::uint8_t { baseline, overlap };

struct CudaMpiParams {
  Bytes pipeline_block = 0;  // baseline: host-staged pipeline block
  Bytes chunk = 0;           // overlap: packed bytes per chunk
  int streams = 1;           // overlap: streams per process
};

extern const ParamTable kCudaMpiParams;
/// The machine's "runtimes.mpi_cuda" parameters.
CudaMpiParams cuda_mpi_of(const Machine& machine);

class CudaMpi {
 public:
  /// Each rank uses GPU (its index among its node's ranks) mod the GPUs per node.
  CudaMpi(MessagingLayer& layer, const gpu::GpuParams& gpu, const CudaMpiParams& params, GpuDesign design);

  /// MPI_Send of one `layout` from this rank's GPU: returns when the send buffer may be reused.
  Task<> send(Rank self, Rank dst, const gpu::Layout& layout);
  /// MPI_Recv of one `layout` into this rank's GPU: returns when the data is unpacked.
  Task<> recv(Rank self, Rank src, const gpu::Layout& layout);

  gpu::Device& device_of(Rank r) const { return *devices_.at(static_cast<std::size_t>(gpu_of_[r])); }
  /// The kernel packing (or unpacking) packed bytes [from, to) of `layout`.
  gpu::KernelWork pack(const gpu::Layout& layout, Bytes from, Bytes to) const;
  /// Pieces a message of `bytes` packed bytes moves in.
  std::vector<Bytes> pieces(Bytes bytes) const;

 private:
  struct Streams {
    int kernel = 0, to_host = 0, to_device = 0;  // baseline
    std::vector<int> chunks;                     // overlap
  };
  Streams create_streams(gpu::Device& d) const;
  Task<> baseline_send(Rank self, Rank dst, const gpu::Layout& layout);
  Task<> baseline_recv(Rank self, Rank src, const gpu::Layout& layout);
  Task<> overlap_send(Rank self, Rank dst, const gpu::Layout& layout);
  Task<> overlap_recv(Rank self, Rank src, const gpu::Layout& layout);
  Task<> note(Rank self, Rank to, Tag tag) const;
  Task<> wait_note(Rank self, Rank from, Tag tag) const;
  Task<> cpu(Rank self, Time duration, CpuUse use) const;

  MessagingLayer& layer_;
  gpu::GpuParams gpu_;
  CudaMpiParams p_;
  GpuDesign design_;
  std::vector<std::unique_ptr<gpu::Device>> devices_;
  std::vector<int> gpu_of_;         // per rank: its device's index
  std::vector<Streams> streams_;    // per rank
};

}  // namespace torsim::rt
