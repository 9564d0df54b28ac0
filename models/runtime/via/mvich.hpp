// "via_mpi": MPI over VIA as MVICH built it: eager messages (from a registered user buffer, or
// copied into a registered send buffer) land in a pre-posted receive buffer and are copied out
// (each pays MPI's send and receive paths and matching); above the eager limit, a rendezvous:
// request to send, the receiver's clear to send with its registered buffer, a zero-copy RDMA
// write, a FIN. Collectives run over send/receive, or (collective_transport: rdma) the same
// algorithms over RDMA writes into pre-registered slots with flag polling (collectives.hpp).
#pragma once

#include <memory>
#include <vector>

#include "models/runtime/via/via_layer.hpp"

namespace torsim::rt {

extern const ParamTable kMvichLayerParams;

// Every field is read by parse_mvich from its declaration in mvich.cpp, which holds the default.
struct MvichParams {
  Bytes header = 0;
  Time send_cpu = 0, recv_cpu = 0, match_cpu = 0;
  Bytes eager_limit = 0;
  Bytes control_bytes = 0;
  bool user_buffers_registered = false;
  Transport collective_transport{};
  Bytes rdma_slot_size = 0;
  int rdma_slots = 0;
};

class MvichLayer final : public ViaLayer {
 public:
  MvichLayer(Job& job, const nic::ViaParams& nic, const MvichParams& params, const Json& collectives,
             const Where& collectives_where);
  std::string_view name() const override { return "via_mpi"; }
  const MvichParams& params() const { return p_; }
  ViaCosts model_costs() const override;

  // For the RDMA collectives' channel (via_collectives.hpp).
  /// Slots of the collective buffers: one credit per slot a writer may fill at a reader.
  nic::Credits& slots() { return slots_; }
  /// An RDMA write of a collective message into dst's slot for src, already posted: when its
  /// flag lands, dst's spin sees it and the message is matched like a receive of `tag`.
  void write_slot(Rank src, Rank dst, Bytes bytes, Tag tag, std::uint64_t word);
  /// A request that is already complete (a write from registered memory frees no user buffer).
  Request completed_request();
  /// Collective messages that have landed in rank r's slots so far.
  std::uint64_t slot_arrivals(Rank r) const { return slot_arrivals_[static_cast<std::size_t>(r)]; }

 private:
  CpuCharge send_overhead(const Message& m) override;
  CpuCharge receive_path(const Message& m) const override;
  Bytes wire_size(const Message& m) const override { return m.envelope.size + p_.header; }
  bool buffered_send() const override { return true; }
  Task<> protocol(Message m) override;
  Task<> rendezvous(Message m);
  Task<> slot_write(Rank src, Rank dst, Bytes bytes, Tag tag, std::uint64_t word);
  CpuCharge control_send() const { return CpuCharge(CpuUse::send, p_.send_cpu); }
  CpuCharge control_receive() const { return CpuCharge(CpuUse::receive, p_.recv_cpu).add(CpuUse::match, p_.match_cpu); }

  MvichParams p_;
  nic::Credits slots_;
  std::vector<std::uint64_t> slot_arrivals_;  // per rank
};

std::unique_ptr<MessagingLayer> make_mvich_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
