// The Blue Gene/P node's network hardware as DCMF drives it: the torus DMA engine (direct
// puts into target memory, memory-FIFO packets that the target's core reads, remote gets that
// the target's DMA answers without its core), and the two other networks a partition has, the
// collective (tree) network and the global barrier network. Messaging layers (DCMF, MPI and
// GASNet over DCMF) charge their software costs on the cores and move bytes through this.
//
// Mechanism:
//  - A direct put is one network transfer in DMA packets (the machine's packet format); it is
//    in target memory when its last packet arrives. No core at the target is involved.
//  - A memory-FIFO message is the same transfer; its packets land in a reception FIFO that the
//    target's core must poll and copy out (the layer charges that).
//  - A remote get sends one packet carrying a descriptor; the target's DMA queues it in its
//    remote-get injection FIFO (a turnaround) and injects what it describes (data as a direct
//    put, or a memory-FIFO packet). A put with remote completion (DCMF_Put's ack) is a direct
//    put followed by a remote get whose descriptor sends a memory-FIFO packet back: in-order
//    deterministic routing keeps it behind the data. The remote-get packet travels as the
//    last packet of the put (one transfer), which costs the same wire bytes within a chunk.
//  - The collective network is a tree over the partition's nodes: an operation climbs it and
//    comes back down, each hop adding a latency, its bytes pipelined in 256 B packets at the
//    tree link's rate; one operation at a time uses it. Integer combining is in hardware;
//    double-precision sums take two passes (exponent maximum, then aligned mantissa sum).
//  - The barrier network completes a barrier a fixed latency after its last rank enters.
#pragma once

#include <cstdint>
#include <vector>

#include "models/network/link_timeline.hpp"
#include "models/node/job.hpp"
#include "sim/core/slot_pool.hpp"
#include "sim/core/wait.hpp"

namespace torsim::nic {

using node::Rank;

// Every field is read by parse_bgp from its declaration in bgp_dma.cpp, which holds the default.
struct BgpParams {
  Time remote_get_turnaround = 0;  // target DMA: remote-get packet in, its descriptor injected
  Bytes descriptor_bytes = 0;      // a DMA descriptor (remote-get payload)
  Bytes ack_bytes = 0;             // a memory-FIFO completion packet's payload
  // Collective (tree) network.
  Rate tree_bandwidth = 0;
  Time tree_hop_latency = 0;
  int tree_fanout = 0;
  Bytes tree_packet = 0;
  // Global barrier network.
  Time barrier_latency = 0;
};

extern const ParamTable kBgpParams;
BgpParams parse_bgp(const ParamReader& r);
/// The machine's "nic" object as BG/P parameters; an error if the machine has no BG/P NIC.
BgpParams bgp_of(const Machine& machine, const Where& where);

/// Hardware collectives (barrier network, collective network): every rank enters with a word;
/// when the last one has, all leave at a time it sets, with the sum of the words (a broadcast's
/// non-roots give 0). Collectives on all ranks are called in the same order everywhere, so one
/// meeting serves them one after the other.
class Meeting {
 public:
  Meeting(Kernel& kernel, int participants) : kernel_(kernel), participants_(participants) {}
  /// Awaitable yielding the sum: `release(now)` is called by the last to arrive and gives the
  /// time all leave.
  template <class Release>
  auto enter(std::uint64_t word, Release release) {
    struct Entry {
      Meeting& meeting;
      std::uint64_t word;
      Release release;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) {
        const bool last = static_cast<int>(meeting.waiting_.size()) + 1 == meeting.participants_;
        meeting.sum_ += word;
        meeting.arrive(h, last ? release(meeting.kernel_.now()) : 0);
      }
      std::uint64_t await_resume() const noexcept { return meeting.result_; }
    };
    return Entry{*this, word, release};
  }

 private:
  void arrive(std::coroutine_handle<> h, Time release);
  Kernel& kernel_;
  int participants_;
  std::vector<std::coroutine_handle<>> waiting_;
  std::uint64_t sum_ = 0, result_ = 0;
};

class BgpDma {
 public:
  BgpDma(node::Job& job, const BgpParams& params);
  const BgpParams& params() const { return p_; }

  /// A direct put of `bytes` (plus `extra` bytes riding as its last packet): resumes when the
  /// last byte is in the target's memory. `injected`, if given, fires when the source DMA has
  /// sent the last byte (the sender's injection counter reaches zero): the sender's buffer
  /// may be reused, once its core has polled the counter.
  Task<> transfer(Rank from, Rank to, Bytes bytes, Callback injected = {});
  /// The same for a protocol written as events: `delivered` runs when the last byte is in.
  void start_transfer(Rank from, Rank to, Bytes bytes, Callback delivered, Callback injected = {});
  /// A remote get: the request packet to `target`, the target DMA's turnaround, then `bytes`
  /// back to `initiator` as a direct put. Resumes when they are in the initiator's memory;
  /// `data_injected` runs when the target's DMA has sent them.
  Task<> remote_get(Rank initiator, Rank target, Bytes bytes, Callback data_injected = {});
  /// A put with remote completion: the data and the remote-get packet behind it, the target
  /// DMA's turnaround, and a memory-FIFO ack back. `acked` runs when the ack is in the
  /// initiator's reception FIFO (its core still has to poll for it). Events only, no process:
  /// a 16,384-rank FFT has millions of puts in flight.
  void start_put_with_ack(Rank initiator, Rank target, Bytes bytes, Callback acked);
  /// The same as an awaitable: resumes when the ack is in.
  Task<> put_with_ack(Rank initiator, Rank target, Bytes bytes);

  /// Collective network: when an operation whose last participant entered at `entered` is
  /// complete everywhere. `passes`: 1 for integer combining or a broadcast, 2 for a
  /// double-precision sum; `up` and `down`: which ways it crosses the tree (an allreduce both,
  /// a broadcast down, a reduction up). Books the network for that time.
  Time tree_operation(Time entered, Bytes bytes, int passes, bool up, bool down);
  /// Depth of the collective-network tree over the job's nodes.
  int tree_depth() const { return tree_depth_; }

 private:
  struct PutInFlight {
    Rank initiator, target;
    Callback acked;
  };
  void put_landed(std::uint64_t index);
  void send_ack(std::uint64_t index);
  void ack_landed(std::uint64_t index);

  node::Job& job_;
  BgpParams p_;
  SlotPool<PutInFlight> puts_;
  int tree_depth_ = 0;
  net::LinkTimeline tree_;  // one operation at a time on the collective network
};

}  // namespace torsim::nic
