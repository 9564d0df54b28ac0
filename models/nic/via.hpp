// A VIA NIC (Virtual Interface Architecture 1.0, as on a Giganet cLAN card) as the VIPL calls
// see it. A rank posts descriptors to a VI's send or receive queue and rings its doorbell from
// user space (VipPostSend / VipPostRecv: CPU time on the rank's core); the NIC fetches the
// descriptor and moves the data through the network model. Two data paths:
//  - send/receive: the data lands in a receive buffer the receiver pre-posted; the target NIC
//    fetches that descriptor and writes its status back, and the receiver finds the
//    completion by polling (VipRecvDone). A send needs a pre-posted descriptor at the target
//    (VIA drops the connection otherwise), so senders hold one credit per descriptor the
//    receiver keeps posted, and wait when they have none; a credit comes back when the
//    receiver re-posts;
//  - RDMA write: the data goes straight into registered memory at the target; nothing is
//    consumed or completed there, so the target learns of it by polling a flag in memory.
// The NIC's DMA engine reads one descriptor's data at a time, in the order they were posted
// (whatever their VI), so a node's messages leave one after another rather than sharing its
// link packet by packet. Memory registration (VipRegisterMem) pins pages once; a cache
// remembers registered buffers. cLAN has no RDMA read.
#pragma once

#include <unordered_map>
#include <vector>

#include "models/nic/registration_cache.hpp"
#include "models/node/job.hpp"
#include "sim/core/wait.hpp"

namespace torsim::nic {

using node::Rank;

// Every field is read by parse_via from its declaration in via.cpp, which holds the default.
struct ViaParams {
  Time post_cpu = 0;             // VipPostSend / VipPostRecv: build a descriptor, ring the doorbell
  Time completion_poll_cpu = 0;  // VipRecvDone that finds a completed descriptor
  Time flag_poll_cpu = 0;        // a spin on a flag in memory that sees it change
  Time receive_descriptor = 0;   // target NIC: fetch the posted receive descriptor, write its status
  int receive_credits = 0;       // receive descriptors kept posted per connection
  Bytes flag_bytes = 0;          // a flag written after the data, in the same RDMA write
  Time registration_cpu = 0, registration_page_cpu = 0;
  Bytes page_size = 0;
};

extern const ParamTable kViaParams;
ViaParams parse_via(const ParamReader& r);
/// The machine's "nic" object as VIA parameters; an error if the machine has no VIA NIC.
ViaParams via_of(const Machine& machine, const Where& where);

class ViaNic;

/// Credits per (sender, receiver) pair: a sender takes one per message and waits, in order,
/// when none is left; the receiver gives one back, which reaches the sender as a header-only
/// message from the receiver's NIC (no core time here: the caller charges any).
class Credits {
 public:
  Credits(ViaNic& nic, int per_pair) : nic_(nic), per_pair_(per_pair) {}
  /// Resumes once a credit from `src` to `dst` is taken.
  Task<> take(Rank src, Rank dst);
  /// `dst` frees a credit of `src`'s: it is usable at `src` once the news has arrived.
  void give_back(Rank src, Rank dst);
  int available(Rank src, Rank dst);

 private:
  Semaphore& pair(Rank src, Rank dst);
  Task<> send_back(Rank src, Rank dst);

  ViaNic& nic_;
  int per_pair_;
  std::unordered_map<std::uint64_t, Semaphore> pairs_;
};

/// The NIC's side of each operation; the layer charges the calls' core time (post_cpu before
/// a send or a write, the polls and re-posts at the receiver) where its protocol makes them.
class ViaNic {
 public:
  ViaNic(node::Job& job, const ViaParams& params);
  const ViaParams& params() const { return p_; }

  /// Waits for a pre-posted receive descriptor at dst for a send from src, and takes it.
  Task<> take_receive_credit(Rank src, Rank dst) { return credits_.take(src, dst); }
  /// The receiver re-posted the descriptor a message from src used: src's credit comes back.
  void repost(Rank src, Rank dst) { credits_.give_back(src, dst); }
  /// A posted send of `bytes` (in a registered buffer) from src to dst, credit taken: resumes
  /// when the receive descriptor at dst is complete (data in, status written back). `left`,
  /// if set, runs when the data has left src (its send descriptor completes).
  Task<> send(Rank src, Rank dst, Bytes bytes, Callback left = {});
  /// A posted RDMA write of `bytes` and its flag from src's registered memory into dst's:
  /// resumes when the flag is in dst's memory. `left` as for send.
  Task<> rdma_write(Rank src, Rank dst, Bytes bytes, Callback left = {});
  /// A header-only packet from src's NIC to dst's (an acknowledgement, a credit): resumes when
  /// it has arrived.
  Task<> header(Rank src, Rank dst) { return transfer(src, dst, 0, {}); }
  node::Job& job() const { return job_; }

  /// CPU time to register `bytes` of `buffer` on rank r, or 0 when the cache has it.
  Time register_memory(Rank r, std::uint64_t buffer, Bytes bytes);
  /// Receive credits src holds for dst (tests).
  int receive_credits(Rank src, Rank dst) { return credits_.available(src, dst); }

 private:
  Task<> transfer(Rank src, Rank dst, Bytes bytes, Callback left);

  node::Job& job_;
  ViaParams p_;
  Credits credits_;
  std::vector<Time> engine_free_;  // per node: when its send DMA engine is next idle
  RegistrationCache registered_;
};

}  // namespace torsim::nic
