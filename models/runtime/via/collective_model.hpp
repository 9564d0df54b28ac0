// The closed-form model of the VIA collectives (the kind of model Gupta et al., IPDPS 2003,
// built to predict 512- and 1024-node clusters): the latency of each algorithm from the
// per-message costs at the sender and the receiver, the wire latency, the per-byte time on the
// link, the copies and the combines, and the depth of the tree. It assumes an idle crossbar
// (every pair of nodes the same distance apart, no contention but a parent's own link) and
// full trees. Built from the same parameters as the simulation, so it can be compared with it.
#pragma once

#include "models/machine.hpp"

namespace torsim::rt {

enum class Transport : std::uint8_t { send_receive, rdma };

/// Everything the closed forms need, from the machine and the VIA layers' parameters.
struct ViaCosts {
  Time latency = 0;              // L: NIC latency and switch, from the post to the first byte's arrival
  Rate rate = 0;                 // the path's bottleneck, wire bytes per second
  PacketFormat format;           // payload to wire bytes
  Rate copy_rate = 0;            // memory copy
  Time combine_per_byte_ps = 0;  // a reduction's arithmetic, picoseconds per byte
  Time post = 0, completion_poll = 0, flag_poll = 0, receive_descriptor = 0;  // VIA (NIC)
  Time send_cpu = 0, recv_cpu = 0, match_cpu = 0;                             // MPI library
  Bytes header = 0, flag_bytes = 0;
  bool send_copies = false;  // user buffers unregistered: data copied into registered memory to send
};

class ViaModel {
 public:
  ViaModel(const ViaCosts& costs, Transport transport) : c_(costs), transport_(transport) {}

  Time barrier(int ranks) const;
  /// Binomial broadcast of `m` bytes from one root.
  Time bcast(int ranks, Bytes m) const;
  /// k-nomial reduce to a root, result in the root's buffer.
  Time reduce(int ranks, Bytes m, int degree) const;
  /// k-nomial reduce to rank 0, then the binomial broadcast.
  Time reduce_bcast_allreduce(int ranks, Bytes m, int degree) const;
  /// Recursive doubling (a power of two of ranks).
  Time recursive_doubling_allreduce(int ranks, Bytes m) const;
  /// The degree (2..ranks) that minimises the reduce's tree; the smallest of equals.
  int best_degree(int ranks, Bytes m) const;

  // The parts, for tests and breakdowns.
  /// Sender's time per message: library path, copy into a send buffer, post.
  Time send(Bytes m) const;
  /// Receiver's core time per message once it has landed: poll, library, copy out, re-post.
  Time receive_cpu(Bytes m) const;
  /// NIC time at the receiver before the core can see a message (a receive descriptor).
  Time receive_nic() const { return transport_ == Transport::send_receive ? c_.receive_descriptor : 0; }
  /// Time the message's bytes take on the link.
  Time wire(Bytes m) const;
  /// One hop: post to usable at the receiver.
  Time hop(Bytes m) const { return send(m) + c_.latency + wire(m) + receive_nic() + receive_cpu(m); }
  Time copy(Bytes m) const { return transfer_time(m, c_.copy_rate); }
  Time combine(Bytes m) const { return m * c_.combine_per_byte_ps; }

 private:
  /// A broadcast tree without the copies at its ends.
  Time tree(int ranks, Bytes m) const;
  /// The reduce's levels, without the copies at its ends.
  Time levels(int ranks, Bytes m, int degree) const;
  /// One level of a reduce: `children` children post together; the parent takes their
  /// messages in as they land, one after another on its link, and combines each.
  Time level(int children, Bytes m) const;
  /// The copies at the ends: into registered memory first, out of it last (RDMA only).
  Time ends(Bytes in, Bytes out) const;

  ViaCosts c_;
  Transport transport_;
};

}  // namespace torsim::rt
