// MPI over PAMI on Blue Gene/Q (MPICH's pamid device), on the PAMI calls of
// models/runtime/bluegene_q/pami.hpp:
//  - the protocol ladder: up to 112 B of data with the 16 B MPI header, PAMI_Send_immediate
//    (the request is done at once); up to the eager limit, PAMI_Send (a single packet up to
//    496 B of data); above, rendezvous: the sender pins its buffer and sends an envelope by
//    Send_immediate, the receiver, once a receive matches, pins its buffer, PAMI_Rgets the
//    data and acknowledges by Send_immediate, which completes the send;
//  - tag matching on every arrival;
//  - MPI-2 one-sided MPI_Put / MPI_Get: per call a memory region for the origin buffer and one
//    PAMI_Rput / PAMI_Rget, inside a passive-target epoch (MPI_Win_lock / MPI_Win_unlock, each
//    a request and an answer by Send_immediate) unless "rma_sync" is "none";
//  - collectives: MPI_Allreduce and MPI_Barrier on the MU's class route when the job's nodes
//    have one (MPI_COMM_WORLD); the others (MPI_Gather among them) by MPICH's point-to-point
//    algorithms.
// The software cost of a send or a receive, MPI and PAMI together, is calibrated per size
// class (SST's Blue Gene/Q figures); MPI's share is what the PAMI calls it makes leave of it.
#pragma once

#include "models/runtime/bluegene_q/pami.hpp"

namespace torsim::rt {

extern const ParamTable kMpichPamidLayerParams;

// Every field is read by parse_mpich_pamid from its declaration in mpich_pamid.cpp, which holds the default.
struct MpichPamidParams {
  Bytes header = 0;
  Bytes short_max = 0;                    // data sent by Send_immediate
  Bytes eager_limit = 0;                  // data sent by PAMI_Send; rendezvous above
  Bytes envelope = 0;                     // a rendezvous request to send
  Bytes medium_from = 0, large_from = 0;  // the calibration's size classes
  Time tx_short = 0, tx_medium = 0, tx_large = 0;
  Time rx_empty = 0, rx_short = 0, rx_medium = 0, rx_large = 0;
  Time match_cpu = 0;
  Time rma_cpu = 0, rma_sync_cpu = 0;
  bool rma_lock = false;  // rma_sync: lock (the table's default)
};
MpichPamidParams parse_mpich_pamid(const ParamReader& r);

class MpichPamidLayer final : public PamiLayer {
 public:
  MpichPamidLayer(Job& job, const nic::MuParams& mu, const PamiParams& pami, const MpichPamidParams& params);
  std::string_view name() const override { return "mpi_pami"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  const MpichPamidParams& params() const { return p_; }

  /// Calibrated software time of a send and of a receive of `size` bytes of data, MPI and
  /// PAMI together (the calibration's classes).
  Time send_time(Bytes size) const;
  Time receive_time(Bytes size) const;

 private:
  CpuCharge send_overhead(const Message& m) override;
  Task<> protocol(Message m) override;
  Bytes wire_size(const Message& m) const override { return p_.header + m.envelope.size; }
  /// MPI's receive work once PAMI has dispatched `wire` bytes of a message of `size`: its
  /// share of the calibrated receive time, and the matching.
  CpuCharge receive_handler(Bytes size, Bytes wire) const;
  Task<> rendezvous(Message m);
  Task<> one_sided(Rank self, Rank target, Bytes size, bool is_put);
  /// A control message and its answer, both by Send_immediate (lock, unlock).
  Task<> control_round_trip(Rank self, Rank target);

  MpichPamidParams p_;
};

std::unique_ptr<MessagingLayer> make_mpich_pamid_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
