// What the messaging layers on a VIA NIC (models/nic/via.hpp) share: the NIC, a message's
// start and its eager send/receive into pre-posted buffers, RDMA put and get. The layers: the
// VIA provider library itself (vipl.hpp) and MPI over VIA as MVICH built it (mvich.hpp).
#pragma once

#include "models/nic/via.hpp"
#include "models/runtime/protocol_layer.hpp"
#include "models/runtime/via/collective_model.hpp"

namespace torsim::rt {

/// Shared by the VIA layers: the NIC, a message's post (a receive credit first) and its eager
/// send/receive. The protocol ladder is ProtocolLayer's.
class ViaLayer : public ProtocolLayer {
 public:
  ViaLayer(Job& job, const nic::ViaParams& nic);
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  /// A reduction's arithmetic on this machine's cores (machine.compute.reduction_byte).
  Time reduce_time(Bytes bytes) const override { return bytes * reduction_byte_; }
  nic::ViaNic& nic() { return nic_; }
  /// A memory copy on this node's core.
  using ProtocolLayer::copy_time;
  /// The costs the analytical model is built from (this layer's library costs: none).
  virtual ViaCosts model_costs() const;

 protected:
  // send_overhead (from ProtocolLayer) is the sender's core time before the post, beyond the
  // post itself; both are done before isend returns.

  /// Receiver's core time once a message's receive descriptor is complete, beyond the poll
  /// and the re-post.
  virtual CpuCharge receive_path(const Message& m) const = 0;
  /// Bytes on the wire for a message's data.
  virtual Bytes wire_size(const Message& m) const { return m.envelope.size; }
  /// Whether an eager send completes at the post (the data was copied into a send buffer)
  /// rather than when the data has left (VipSendDone).
  virtual bool buffered_send() const = 0;
  /// The protocol moving one message once its sender has posted (eager by default).
  Task<> protocol(Message m) override { return eager(m); }
  /// A sender without a receive credit waits for one, then posts (see post_send).
  Task<> post(const Message& m) override;
  /// Takes a receive credit and charges the sender's core: path, post.
  Task<> post_send(Rank src, Rank dst, CpuCharge path);
  /// A posted send of `bytes` into a pre-posted buffer at dst, then the receiver's poll, its
  /// path and the re-post (which sends the credit back). `left` runs when the data has left.
  Task<> land(Rank src, Rank dst, Bytes bytes, CpuCharge receive_cost, Callback left);
  /// A posted message: it lands, then is matched or run.
  Task<> eager(Message m);
  /// A header-only message of `bytes` through send/receive, posted and received (rendezvous).
  Task<> control(Rank from, Rank to, Bytes bytes, CpuCharge send_cost, CpuCharge receive_cost);

  nic::ViaNic nic_;

 private:
  Time reduction_byte_;
};

}  // namespace torsim::rt
