// "mpi_dcmf": MPICH's DCMF device on Blue Gene/P (models/runtime/bluegene_p/dcmf.hpp): eager
// below 1,200 B, a rendezvous of its own above (request to send, DMA get by the receiver once a
// receive matches, acknowledgement as a control message), with MPI's request and matching
// costs; broadcasts and reductions on the collective network, barriers on the barrier network,
// all-to-all with every message posted at once (the point-to-point algorithm of
// models/collectives closest to DCMF's torus all-to-all).
#pragma once

#include "models/runtime/bluegene_p/dcmf.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::rt {

extern const ParamTable kMpichDcmfLayerParams;

// Every field is read by parse_mpich_dcmf from its declaration in mpich_dcmf.cpp, which holds the default.
struct MpichDcmfParams {
  Bytes header = 0;
  Time send_cpu = 0, recv_cpu = 0, match_cpu = 0, memregion_cpu = 0;
  Bytes eager_limit = 0;  // below: eager; from it on: rendezvous
  Bytes rts_bytes = 0, ack_bytes = 0;
};

class MpichDcmfLayer final : public DcmfLayer {
 public:
  MpichDcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf, const MpichDcmfParams& mpi);
  std::string_view name() const override { return "mpi_dcmf"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  const MpichDcmfParams& mpi() const { return m_; }

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
    send_rts,
    rts_in,
    rts_handled,
    request_data,
    descriptor_in,
    send_data,
    data_in,
    data_handled,
    ack_in,
    done
  };
  struct Rendezvous {
    Message m;
    std::uint32_t receive = 0;  // the matched receive's request
  };
  static Callback step(MpichDcmfLayer* layer, SlotPool<Rendezvous>::Index index, Step next);
  void advance(std::uint64_t index_and_step);
  void receive_matched(std::uint64_t index_and_request);
  void after_cpu(Rank r, const CpuCharge& charge, SlotPool<Rendezvous>::Index index, Step next);
  void transfer_then(Rank from, Rank to, Bytes bytes, SlotPool<Rendezvous>::Index index, Step next);
  void rts_handled(SlotPool<Rendezvous>::Index index);
  void data_handled(SlotPool<Rendezvous>::Index index);

  MpichDcmfParams m_;
  SlotPool<Rendezvous> rendezvous_;
};

std::unique_ptr<MessagingLayer> make_mpich_dcmf_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
