// Messaging layers on the Blue Gene/P torus DMA (models/nic/bgp_dma.hpp):
//  - "dcmf": the Deep Computing Messaging Framework itself: DCMF_Send as memory-FIFO packets
//    up to its eager limit and as a rendezvous by remote get above it, DCMF_Put with a remote
//    ack, DCMF_Get as a remote get, barriers on the global barrier network;
//  - "mpi_dcmf": MPICH's DCMF device on it (eager below 1,200 B, a rendezvous of its own above:
//    request to send, DMA get by the receiver once a receive matches, acknowledgement as a
//    control message), with MPI's request and matching costs; broadcasts and reductions on the
//    collective network, barriers on the barrier network, all-to-all with every message posted
//    at once (the point-to-point algorithm of models/collectives closest to DCMF's torus
//    all-to-all).
// GASNet's and DCMF's barriers use the barrier network too; their other collectives are the
// point-to-point algorithms.
// Progress: interrupts are off (the default for MPI and GASNet on BG/P), so a rank's core
// handles what arrives only when it is in the library: every cost of taking a packet in is
// charged on the receiving rank's core, which serves it after the computation it is running.
#pragma once

#include "models/nic/bgp_dma.hpp"
#include "models/runtime/protocol_layer.hpp"

namespace torsim::rt {

extern const ParamTable kDcmfLayerParams;
extern const ParamTable kMpiDcmfLayerParams;

struct DcmfParams {
  Time send_cpu = 0, put_cpu = 0, get_cpu = 0, control_cpu = 0;  // DCMF calls on the caller's core
  Time poll_cpu = 0;    // one advance that finds an event and runs its callback
  Time packet_cpu = 0;  // per memory-FIFO packet taken out of the reception FIFO
  Bytes header = 16;    // protocol metadata in a message's first packet
  Bytes eager_limit = 1024;
};

struct MpiDcmfParams {
  Bytes header = 16;
  Time send_cpu = 0, recv_cpu = 0, match_cpu = 0, memregion_cpu = 0;
  Bytes eager_limit = 1200;  // below: eager; from it on: rendezvous
  Bytes rts_bytes = 48, ack_bytes = 16;
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
  nic::Meeting meeting_;
};

class MpiDcmfLayer final : public DcmfLayer {
 public:
  MpiDcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf, const MpiDcmfParams& mpi);
  std::string_view name() const override { return "mpi_dcmf"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  const MpiDcmfParams& mpi() const { return m_; }

 private:
  CpuCharge send_overhead(const Message& m) override;
  CpuCharge arrival_cost(const Message& m) const override;
  Bytes header_bytes() const override { return d_.header + m_.header; }
  Bytes eager_limit() const override { return m_.eager_limit - 1; }
  void launch(const Message& m) override;

  // MPI's rendezvous as events on one record per message: an MPI slabs FFT at 16,384 ranks
  // has 33 M of them, millions at once, and a chain of coroutines per message cost more
  // than the protocol's own work and memory. Each step is one event or network delivery.
  enum class Step : std::uint8_t {
    send_rts, rts_in, rts_handled, request_data, descriptor_in, send_data, data_in, data_handled, ack_in, done
  };
  struct Rendezvous {
    Message m;
    std::uint32_t receive = 0;  // the matched receive's request
  };
  static Callback step(MpiDcmfLayer* layer, SlotPool<Rendezvous>::Index index, Step next);
  void advance(std::uint64_t index_and_step);
  void receive_matched(std::uint64_t index_and_request);
  void after_cpu(Rank r, const CpuCharge& charge, SlotPool<Rendezvous>::Index index, Step next);
  void transfer_then(Rank from, Rank to, Bytes bytes, SlotPool<Rendezvous>::Index index, Step next);
  void rts_handled(SlotPool<Rendezvous>::Index index);
  void data_handled(SlotPool<Rendezvous>::Index index);

  MpiDcmfParams m_;
  SlotPool<Rendezvous> rendezvous_;
};

std::unique_ptr<MessagingLayer> make_dcmf_layer(const ParamReader& r, Job& job);
std::unique_ptr<MessagingLayer> make_mpi_dcmf_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
