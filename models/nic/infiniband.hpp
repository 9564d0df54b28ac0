// InfiniBand host channel adapters (HCAs) as the verbs interface drives them: one HCA per rail
// on every node, each behind its own PCI Express link (models/nic/pcie.hpp), reliable-
// connection queue pairs, send/receive into pre-posted receive buffers, RDMA write and read,
// completion queues the host polls, and memory registration with a cache.
//
// A work request, from the initiator's side:
//  - the CPU posts it (post_send_cpu) and writes it to the HCA: a small one with its data
//    inline through the doorbell page (BlueFlame: one MMIO write of the WQE and the data);
//    otherwise an 8 B doorbell, after which the HCA fetches the 64 B WQE by a DMA read;
//  - the HCA takes it in turn (one per 1 / message_rate) and, send_latency later, moves the
//    payload packet by packet: each packet's data is DMA-read from host memory (reads run up
//    to read_tags x max_read_request bytes ahead of the wire), then sent on the rail's fabric
//    as one InfiniBand packet: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 B around at most an MTU of
//    data padded to 4 B, plus RETH 16 B on an RDMA write's first packet and on a read
//    request, AETH 4 B on acknowledgements and on a read response's first and last packets,
//    ImmDt 4 B on the last packet of an operation with immediate data (IBTA, InfiniBand
//    Architecture Specification Vol. 1, ch. 9);
//  - the responder's HCA writes each packet's data to memory receive_latency after it
//    arrives (posted PCIe writes), a receive completion after the data for a send, and
//    acknowledges the last packet; the initiator's HCA writes the send completion to its CQ
//    when the acknowledgement is in;
//  - a work request's packets leave in order behind the previous work request of its queue
//    pair (RC ordering); different queue pairs interleave on the wire.
// RDMA read: a request packet, then the responder's HCA streams the data back (DMA reads on
// its side, writes on the initiator's), then the initiator's completion.
#pragma once

#include <deque>
#include <unordered_map>
#include <vector>

#include "models/nic/pcie.hpp"
#include "models/nic/registration_cache.hpp"
#include "models/node/job.hpp"
#include "sim/core/wait.hpp"

namespace torsim::nic {

using node::Rank;
using topo::NodeId;

// Every field is read by parse_infiniband from its declaration in infiniband.cpp, which holds the default.
struct InfinibandParams {
  PcieParams pcie;
  Time post_send_cpu = 0, post_receive_cpu = 0, poll_cpu = 0;
  Time send_latency = 0, receive_latency = 0;
  double message_rate = 0;  // work requests per second one HCA processes
  Bytes max_inline = 0;     // data written with the work request by the CPU
  Bytes wqe_bytes = 0, cqe_bytes = 0, doorbell_bytes = 0;
  Time registration_cpu = 0, registration_page_cpu = 0;
  Bytes page_size = 0;
  int registration_cache_entries = 0;  // buffers kept registered per rank (least recently used leave)
};

extern const ParamTable kInfinibandParams;
InfinibandParams parse_infiniband(const ParamReader& r);
/// The machine's "nic" object as InfiniBand parameters; an error if the machine has none.
InfinibandParams infiniband_of(const Machine& machine, const Where& where);

/// Extra header bytes of an operation's packets beyond LRH, BTH, ICRC and VCRC.
struct PacketHeaders {
  Bytes first = 0, last = 0, only = 0;  // first / last of several, or the only packet
};

struct HcaCounters {
  std::uint64_t work_requests = 0, packets = 0;
  std::uint64_t registration_hits = 0, registration_misses = 0;
  std::uint64_t receive_queue_waits = 0;  // a send found no posted receive (RNR)
};

class InfinibandHca {
 public:
  InfinibandHca(node::Job& job, const InfinibandParams& params);
  const InfinibandParams& params() const { return p_; }
  int rails() const { return rails_; }
  /// The rail of the HCA a rank uses for what it does not stripe: a node's ranks spread over
  /// its HCAs by local index.
  int rail_of(Rank r) const { return job_.placement.local_index(r) % rails_; }

  /// RDMA write of `bytes` from src's memory to dst's on `rail`: charges the post on src's
  /// core; calls `landed` (as an event) when the last byte is in dst's memory (a poller of that
  /// memory sees it then); returns when src's completion is in its CQ. With `immediate`, dst
  /// also gets a receive completion (consuming a posted receive), and `landed` is called when
  /// that is in dst's CQ.
  Task<> rdma_write(Rank src, Rank dst, Bytes bytes, int rail, Callback landed = {}, bool immediate = false);
  /// Send into a receive dst posted for src (waiting for one if none is posted): `landed` is
  /// called when dst's receive completion is in its CQ; returns when src's completion is in
  /// its CQ.
  Task<> send(Rank src, Rank dst, Bytes bytes, int rail, Callback landed = {});
  /// RDMA read of `bytes` of target's memory into initiator's: returns when the data and the
  /// completion are in the initiator's memory.
  Task<> rdma_read(Rank initiator, Rank target, Bytes bytes, int rail);
  /// Receives `receiver` posts for messages from `sender` (the CPU cost is the caller's:
  /// post_receive_cpu each).
  void post_receives(Rank receiver, Rank sender, int count);

  /// CPU time to register `bytes` of `buffer` on rank r: 0 on a registration-cache hit.
  Time register_memory(Rank r, std::uint64_t buffer, Bytes bytes);
  /// One-way zero-load time of a header-only packet between two ranks' HCAs, PCIe included.
  Time small_latency(Rank a, Rank b) const;
  /// Payload bytes per second one stream can reach: the slowest of the sender's DMA reads, the
  /// wire with its headers at the MTU, and the receiver's DMA writes.
  Rate stream_ceiling() const;

  PcieLink& pcie(NodeId node, int rail) { return pcie_[static_cast<std::size_t>(node * rails_ + rail)]; }
  const HcaCounters& counters() const { return counters_; }

 private:
  struct Stream;
  struct StreamEnd {
    Time last_arrival = 0;    // the last packet at the destination's HCA
    Time data_in_memory = 0;  // its data in the destination's memory
  };
  /// Work requests of one queue pair leave in order: one streams at a time (holding the pair's
  /// turn), the others wait.
  Semaphore& queue_pair(Rank src, Rank dst, int rail);
  /// A work request's start: the post, the HCA's turn, the queue pair (held on return) and,
  /// when it consumes one, a receive posted at dst; returns when its first packet may start.
  Task<> begin(Rank src, Rank dst, int rail, Bytes bytes, bool consumes_receive);
  /// The work request's way into the HCA; when its first packet can start.
  Time post(NodeId node, int rail, Bytes bytes);
  /// Moves `bytes` packet by packet from one HCA to another; `fetch`: DMA-read each packet's
  /// data first; `store`: DMA-write it at the destination. Frees `qp` (if any) once its last
  /// packet is on the wire.
  Task<StreamEnd> stream(NodeId from, NodeId to, int rail, Bytes bytes, PacketHeaders headers, bool fetch, bool store,
                         Semaphore* qp);
  /// The responder acknowledges a packet that arrived at `arrival`; the initiator's HCA writes
  /// the completion: returns when it is in the initiator's CQ.
  Task<> acknowledge(NodeId responder, NodeId initiator, int rail, Time arrival);
  Task<> take_receive(Rank receiver, Rank sender);
  const PacketFormat* format(Bytes extra);
  static void packet_arrived(void* stream, std::uint64_t bytes);
  void call_at(Time when, Callback callback);

  node::Job& job_;
  InfinibandParams p_;
  int rails_;
  std::vector<PcieLink> pcie_;                                // per node and rail
  std::vector<net::LinkTimeline> engines_;                    // per node and rail: work-request processing
  std::deque<PacketFormat> formats_;                          // by extra header bytes; stable addresses
  std::unordered_map<std::uint64_t, Semaphore> queue_pairs_;  // a node-based map: stable
  struct ReceiveQueue {
    int posted = 0;
    WaitQueue waiting;
  };
  std::unordered_map<std::uint64_t, ReceiveQueue> receive_queues_;
  RegistrationCache registered_;
  HcaCounters counters_;
};

}  // namespace torsim::nic
