// Messaging layers on a VIA NIC (models/nic/via.hpp):
//  - "vipl": the VIA provider library itself, as a benchmark uses it: a send is a VipPostSend
//    from a registered buffer into a receive buffer the receiver keeps posted; the receiver
//    polls the completion and re-posts. No copies, no library. put is an RDMA write whose
//    completion the initiator learns from the reliable-delivery acknowledgement; get, which
//    cLAN cannot do in hardware, is a request the target answers with an RDMA write.
//  - "via_mpi": MPI over VIA as MVICH built it: eager messages (from a registered user buffer,
//    or copied into a registered send buffer) land in a pre-posted receive buffer and are
//    copied out (each pays MPI's send and receive paths and matching); above the eager limit,
//    a rendezvous: request to send,
//    the receiver's clear to send with its registered buffer, a zero-copy RDMA write, a FIN.
//    Collectives run over send/receive, or (collective_transport: rdma) the same algorithms
//    over RDMA writes into pre-registered slots with flag polling (via_collectives.hpp).
#pragma once

#include "models/messaging/messaging.hpp"
#include "models/nic/via.hpp"
#include "models/runtime/via_model.hpp"

namespace torsim::rt {

extern const ParamTable kViplLayerParams;
extern const ParamTable kViaMpiLayerParams;

struct ViaMpiParams {
  Bytes header = 32;
  Time send_cpu = 0, recv_cpu = 0, match_cpu = 0;
  Bytes eager_limit = 8192;
  Bytes control_bytes = 32;
  bool user_buffers_registered = true;
  Transport collective_transport = Transport::send_receive;
  Bytes rdma_slot_size = 8192;
  int rdma_slots = 2;
};

/// Shared by the VIA layers: the NIC, a message's start and its eager send/receive.
class ViaLayer : public MessagingLayer {
 public:
  ViaLayer(Job& job, const nic::ViaParams& nic);
  Task<Request> isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) override;
  Task<Request> am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word,
                         Tag tag) override;
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  /// A reduction's arithmetic on this machine's cores (machine.compute.reduction_byte).
  Time reduce_time(Bytes bytes) const override { return bytes * reduction_byte_; }
  nic::ViaNic& nic() { return nic_; }
  /// A memory copy on this node's core.
  Time copy_time(Bytes bytes) const { return transfer_time(bytes, job_.machine.node.memcpy_bandwidth); }
  /// The costs the analytical model is built from (this layer's library costs: none).
  virtual ViaCosts model_costs() const;

 protected:
  struct Message {
    Envelope envelope;
    bool active_message = false;
    HandlerId handler = 0;
    std::uint32_t send_request = 0;
  };
  /// Sender's core time before the post, beyond the post itself (done before isend returns).
  virtual CpuCharge send_path(const Message& m) const = 0;
  /// Receiver's core time once a message's receive descriptor is complete, beyond the poll
  /// and the re-post.
  virtual CpuCharge receive_path(const Message& m) const = 0;
  /// Bytes on the wire for a message's data.
  virtual Bytes wire_size(const Message& m) const { return m.envelope.size; }
  /// Whether the send completes at the post (the data was copied into a send buffer) rather
  /// than when the data has left (VipSendDone).
  virtual bool buffered_send() const = 0;
  /// The protocol moving one message once its sender has posted (eager by default).
  virtual Task<> protocol(Message m) { return eager(m); }
  /// Takes a receive credit and charges the sender's core: path, post.
  Task<> post_send(Rank src, Rank dst, CpuCharge path);
  /// A posted send of `bytes` into a pre-posted buffer at dst, then the receiver's poll, its
  /// path and the re-post (which sends the credit back). `left` runs when the data has left.
  Task<> land(Rank src, Rank dst, Bytes bytes, CpuCharge receive_cost, Callback left);
  /// A posted message: it lands, then is matched or run.
  Task<> eager(Message m);
  /// A header-only message of `bytes` through send/receive, posted and received (rendezvous).
  Task<> control(Rank from, Rank to, Bytes bytes, CpuCharge send_cost, CpuCharge receive_cost);
  /// Buffer identity for the registration cache: a benchmark reuses one buffer per size.
  static std::uint64_t user_buffer(Bytes size) { return static_cast<std::uint64_t>(size); }

  nic::ViaNic nic_;

 private:
  Task<Request> start(Message m);
  Time reduction_byte_;
};

class ViplLayer final : public ViaLayer {
 public:
  using ViaLayer::ViaLayer;
  std::string_view name() const override { return "vipl"; }

 private:
  CpuCharge send_path(const Message&) const override { return {}; }
  CpuCharge receive_path(const Message&) const override { return {}; }
  bool buffered_send() const override { return false; }
};

class ViaMpiLayer final : public ViaLayer {
 public:
  ViaMpiLayer(Job& job, const nic::ViaParams& nic, const ViaMpiParams& params, const Json& collectives,
              const Where& collectives_where);
  std::string_view name() const override { return "via_mpi"; }
  const ViaMpiParams& params() const { return p_; }
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
  CpuCharge send_path(const Message& m) const override;
  CpuCharge receive_path(const Message& m) const override;
  Bytes wire_size(const Message& m) const override { return m.envelope.size + p_.header; }
  bool buffered_send() const override { return true; }
  Task<> protocol(Message m) override;
  Task<> rendezvous(Message m);
  Task<> slot_write(Rank src, Rank dst, Bytes bytes, Tag tag, std::uint64_t word);
  CpuCharge control_send() const { return CpuCharge(CpuUse::send, p_.send_cpu); }
  CpuCharge control_receive() const {
    return CpuCharge(CpuUse::receive, p_.recv_cpu).add(CpuUse::match, p_.match_cpu);
  }

  ViaMpiParams p_;
  nic::Credits slots_;
  std::vector<std::uint64_t> slot_arrivals_;  // per rank
};

std::unique_ptr<MessagingLayer> make_vipl_layer(const ParamReader& r, Job& job);
std::unique_ptr<MessagingLayer> make_via_mpi_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
