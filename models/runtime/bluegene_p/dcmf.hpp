// "dcmf": the Deep Computing Messaging Framework on the Blue Gene/P torus DMA
// (models/nic/bgp_dma.hpp): DCMF_Send as memory-FIFO packets up to its eager limit and as a
// rendezvous by remote get above it, DCMF_Put with a remote ack, DCMF_Get as a remote get,
// barriers on the global barrier network. MPICH's DCMF device (mpich_dcmf.hpp) and GASNet's
// DCMF conduit (gasnet_dcmf.hpp) are built on it. DCMF's and GASNet's barriers use the barrier
// network; their other collectives are the point-to-point algorithms.
// Progress: interrupts are off (the default for MPI and GASNet on BG/P), so a rank's core
// handles what arrives only when it is in the library: every cost of taking a packet in is
// charged on the receiving rank's core, which serves it after the computation it is running.
#pragma once

#include "models/nic/bgp_dma.hpp"
#include "models/runtime/protocol_layer.hpp"

namespace torsim::rt {

extern const ParamTable kDcmfLayerParams;

// Every field is read by parse_dcmf from its declaration in dcmf.cpp, which holds the default.
struct DcmfParams {
  Time send_cpu = 0, put_cpu = 0, get_cpu = 0, control_cpu = 0;  // DCMF calls on the caller's core
  Time poll_cpu = 0;    // one advance that finds an event and runs its callback
  Time packet_cpu = 0;  // per memory-FIFO packet taken out of the reception FIFO
  Bytes header = 0;     // protocol metadata in a message's first packet
  Bytes eager_limit = 0;
};

DcmfParams parse_dcmf(const ParamReader& r);
/// The machine's calibrated DCMF parameters (runtimes.dcmf), which every layer on DCMF uses.
DcmfParams dcmf_of(const Machine& machine);

class DcmfLayer : public ProtocolLayer {
 public:
  DcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf);
  std::string_view name() const override { return "dcmf"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  nic::BgpDma& dma() { return dma_; }
  /// The global barrier network: every rank leaves one latency after the last entered.
  Task<> hardware_barrier(Rank self);
  /// An operation of the collective network over every rank (MPI on COMM_WORLD): yields the
  /// sum of the ranks' words.
  Task<std::uint64_t> tree_collective(Rank self, std::uint64_t word, Bytes bytes, int passes, bool up, bool down);
  const DcmfParams& dcmf() const { return d_; }

 protected:
  /// Software cost on the sender's core before the message leaves (the layer's send path).
  CpuCharge send_overhead(const Message& m) override;
  /// Extra cost on the receiver's core once a message is in (a layer's handler, matching).
  virtual CpuCharge arrival_cost(const Message&) const { return {}; }
  /// Bytes of protocol metadata the message carries (DCMF's, plus a layer's own header).
  virtual Bytes header_bytes() const { return d_.header; }
  virtual Bytes eager_limit() const { return d_.eager_limit; }
  /// The protocol moving one message; completes its send request and delivers it.
  Task<> protocol(Message m) override;

  /// Receiver's core: one advance that finds `bytes` in memory-FIFO packets and copies them out.
  CpuCharge fifo_receive_cost(Bytes bytes) const;
  /// A callback for a transfer's injection: the sender's core polls the injection counter and
  /// the send request completes.
  Callback local_completion(const Message& m);

  nic::BgpDma dma_;
  DcmfParams d_;

 private:
  Task<> eager(Message m);
  Task<> rendezvous(Message m);
  void complete_after_poll(std::uint64_t request_and_rank);
  void complete_request(std::uint64_t request) { requests_.complete(static_cast<std::uint32_t>(request)); }

 protected:
  /// Broadcasts and reductions on the collective network (MPI on COMM_WORLD) instead of the
  /// point-to-point algorithms.
  void use_tree_collectives();

 private:
  nic::Meeting meeting_;
};

std::unique_ptr<MessagingLayer> make_dcmf_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
