// The packet model (default): messages cut into packets of the machine's format, moved as
// trains of whole packets with virtual cut-through timing and per-link contention.
//
// Mechanism, per train (at most `train_bytes` of payload, whole packets):
//  - The head enters link i at h_i, pipelining across routers: h_{i+1} = h_i + latency_i,
//    where h_i is delayed to the link's first idle instant if the link is busy.
//  - On link i the train needs ser_i = its wire bytes / bandwidth_i of the link's time. It
//    takes ser_i of the link's idle time from max(h_i, t_i - ser_i) on, filling gaps left by
//    earlier bookings as its packets would, where t_i = e_{i-1} + latency_{i-1} is when its
//    tail arrives from upstream; it finishes at e_i >= t_i. A fast link after a slow one is
//    charged only its own serialisation time; the slack stays free for other traffic.
//  - The last byte is delivered at e_last + latency_last. Uncontended, a message therefore
//    takes exactly nic_latency + sum(link latencies) + wire_bytes / bottleneck bandwidth.
// Arbitration: a train books all its links when it is injected, in kernel event order
// (first reserved, first served); a later booking fills whatever idle time is left. Trains
// of one message are injected back to back, so flows sharing a link interleave train by train
// and share it equally. Routers have unbounded buffers: no backpressure, no head-of-line
// blocking (a documented limitation).
#pragma once

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "models/network/link_timeline.hpp"
#include "models/network/network_model.hpp"
#include "sim/core/huge_pages.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::net {

extern const ParamTable kPacketModelParams;

/// The packet model's parameters (defaults, units and meanings: kPacketModelParams).
struct PacketModelParams {
  Bytes train_bytes = 0;
  bool credit_flow_control = false;
};
PacketModelParams parse_packet_model(const ParamReader& r);

/// What the packet models share: link timelines with their timing tags, trains of whole
/// packets and their serialisation times, routes computed ahead on a hint, the intra-node
/// copy engines. PacketModel (unbounded router buffers) and CreditModel (credit flow control,
/// flow_control.hpp) book trains on it in their own ways.
class PacketModelBase : public NetworkModel {
 public:
  PacketModelBase(Kernel& kernel, const Machine& machine, Bytes train_bytes);
  std::string_view name() const override { return "packet"; }
  void expect_transfer(NodeId src, NodeId dst) const override;

 protected:
  /// What a train's serialisation times depend on: its wire bytes and its message's slowest
  /// link. Trains of one shape (every message of a size, on routes with the same bottleneck)
  /// share them, so the divisions are done once per shape, not per train.
  struct TrainShape {
    Bytes wire_start = -1, wire_end = -1;
    Rate bottleneck = 0;
    Time bottleneck_share = 0;  // serialisation at the bottleneck bandwidth
    // Serialisation by link timing tag (a machine has a handful of distinct link timings),
    // computed on first use: each costs two divisions. -1: not computed yet (filled from
    // kRemembered, so that changing it cannot leave zeros that would read as durations).
    static constexpr std::uint32_t kRemembered = 8;
    static constexpr std::array<Time, kRemembered> kNotComputed = [] {
      std::array<Time, kRemembered> all{};
      all.fill(-1);
      return all;
    }();
    std::array<Time, kRemembered> durations = kNotComputed;
  };

  /// Counts a new transfer and opens its record in `messages` (request set, nothing sent yet);
  /// nullopt when it stays within its node (handed to that node's copy engine).
  template <class Message>
  std::optional<typename SlotPool<Message>::Index> open_message(SlotPool<Message>& messages,
                                                                const TransferRequest& request) {
    ++counters_.messages;
    counters_.payload_bytes += request.bytes;
    if (request.src == request.dst) {
      copy_within_node(memory_[static_cast<std::size_t>(request.src)], request);
      return std::nullopt;
    }
    counters_.wire_bytes += format_of(request).wire_bytes(request.bytes);
    const auto index = messages.take();
    Message& m = messages[index];
    m.request = request;
    m.next_offset = 0;
    m.latest_delivery = 0;
    return index;
  }

  void collect_link_busy() const override;
  void prefetch_route(const std::vector<LinkId>& route) const;
  /// The deterministic route from src to dst into `out`: the one computed ahead on a hint, or
  /// computed now with its timelines asked for.
  void take_route(const TransferRequest& request, std::vector<LinkId>& out);
  /// The slowest link of a route (from the compact tag array, not the timelines: the booking
  /// can start on the first link's timeline while the others are still on their way).
  Rate bottleneck_of(const std::vector<LinkId>& route) const;
  /// Payload bytes per train for this format: whole packets, at most `limit` bytes of payload.
  static Bytes whole_packets(const PacketFormat& format, Bytes limit) {
    return std::max<Bytes>(1, limit / format.payload) * format.payload;
  }
  /// `link` and its parallel lanes into `out`.
  void add_lanes(LinkId link, std::vector<LinkId>& out) const;
  /// A train's serialisation time on a link of timing `tag` (an index to link_timings_),
  /// remembered per tag.
  Time serialisation(std::uint32_t tag, TrainShape& shape) const {
    if (tag < TrainShape::kRemembered && shape.durations[tag] >= 0) return shape.durations[tag];
    return new_serialisation(tag, shape);
  }
  Time new_serialisation(std::uint32_t tag, TrainShape& shape) const;
  /// The remembered shape of these wire bytes and bottleneck (replacing the oldest if new).
  TrainShape& shape_of(Bytes wire_start, Bytes wire_end, Rate bottleneck);

  /// What a booking needs of a link. Links share a few distinct pairs; each timeline's tag
  /// indexes this table, so a hop reads one cache line (the timeline's), not also the
  /// topology's LinkInfo.
  struct LinkTiming {
    Rate bandwidth;
    Time latency;
  };
  const LinkTiming& timing(LinkId link) const {
    return link_timings_[timelines_[static_cast<std::size_t>(link)].tag()];
  }

  Bytes train_bytes_;  // payload per train, rounded down to whole packets of each transfer
  bool has_lanes_;
  std::vector<LinkTimeline, HugePageAllocator<LinkTimeline>> timelines_;  // one line a link, touched at random
  std::vector<LinkTiming> link_timings_;
  std::vector<std::uint16_t> timing_tags_;  // per link, as in its timeline's tag (compact: 2 B/link)
  std::vector<LinkTimeline> memory_;

 private:
  void tabulate_link_timings();

  std::array<TrainShape, 4> shapes_;  // the last few train shapes (a workload has a handful)
  std::size_t oldest_shape_ = 0;
  /// Routes computed ahead by expect_transfer(), for start() to take instead of computing
  /// them again. A route depends only on its ends, so a stale entry is still right. Several:
  /// other hints may come between an expected transfer and its start.
  struct ExpectedRoute {
    NodeId src = -1, dst = -1;
    std::uint64_t draw = 0;  // its random choices (topologies that draw routes)
    std::vector<LinkId> route;
  };
  mutable std::array<ExpectedRoute, 8> expected_;  // mutable: a hint fills it (a cache)
  mutable std::size_t next_expected_ = 0;
  /// The expected route from src to dst with this draw, or null.
  ExpectedRoute* find_expected(NodeId src, NodeId dst, std::uint64_t draw) const;
  /// The random choices of src's next message to dst (0 where routes draw none): a hash of the
  /// pair and of how many messages src has routed, so the same in every run.
  std::uint64_t next_draw(NodeId src, NodeId dst) const;
  bool draws_routes_;
  std::vector<std::uint32_t> routed_;  // per source node, messages routed (topologies that draw routes)
};

class PacketModel final : public PacketModelBase {
 public:
  PacketModel(Kernel& kernel, const Machine& machine, Bytes train_bytes)
      : PacketModelBase(kernel, machine, train_bytes) {
    find_unbooked_ejection_links();
  }
  void start(const TransferRequest& request) override;

 private:
  struct Message {
    TransferRequest request;
    Bytes next_offset = 0;  // payload bytes already sent in trains
    Time latest_delivery = 0;
    Rate bottleneck = 0;        // slowest link of the deterministic route
    std::vector<LinkId> route;  // deterministic route (kept for reuse across messages)
  };
  struct Booking {
    Time injected;   // tail leaves the injection link
    Time delivered;  // tail reaches the destination
  };
  /// A train in flight while its links are booked, hop by hop.
  struct Train {
    Time head;  // when the head reaches the next link
    Time tail;  // when the tail has fully arrived at the next link's input
    TrainShape* shape;
  };

  void send_next_train(std::uint64_t message_index);
  Booking book_train(Message& m, Time ready, Bytes wire_start, Bytes wire_end);
  void book_adaptive_hops(Message& m, Train& train);
  /// Books the one link a deterministic route takes (no lanes): searches its timeline once.
  /// Inline: it runs for every hop of every train. `kObserved`: reports the booking to the link
  /// observer (an instance of its own, so that runs without one pay nothing per hop).
  template <bool kObserved = false>
  [[gnu::always_inline]] void book_hop(LinkId link, Train& train) {
    const auto index = static_cast<std::size_t>(link);
    LinkTimeline& timeline = timelines_[index];
    timeline.forget_before(kernel_.now());
    const std::uint32_t tag = timeline.tag();
    const Time duration = serialisation(tag, *train.shape);
    Time head_passes = train.head;
    const Time end = timeline.reserve(head_passes, std::max(train.head, train.tail - duration), duration);
    if constexpr (kObserved) observe_booking(link, end, duration);
    leave(train, tag, head_passes, end);
  }
  /// The train leaves a link of timing `tag` that its head passed at `head_passes` and its
  /// tail at `end`: both reach the next link one latency later.
  void leave(Train& train, std::uint32_t tag, Time head_passes, Time end) const {
    const Time latency = link_timings_[tag].latency;
    train.head = head_passes + latency;
    train.tail = end + latency;
  }
  /// Marks the ejection links that can hold no queue (see the definition).
  void find_unbooked_ejection_links();
  bool unbooked(LinkId link) const { return unbooked_[static_cast<std::size_t>(link)] != 0; }
  /// Crosses an ejection link that never queues: its serialisation and latency, booked
  /// nowhere (its busy time still counted). Equal to book_hop() on an idle link.
  void cross_unbooked(LinkId link, Train& train);
  /// Books the best of the link's lanes.
  void book_lanes(LinkId link, Train& train);
  /// Books the earliest window among the candidate links (ties: first candidate), advances
  /// the train past it, and returns the link used.
  LinkId book_link(const std::vector<LinkId>& candidates, Train& train);

  SlotPool<Message> messages_;          // records keep their route's capacity from message to message
  std::vector<std::uint8_t> unbooked_;  // per link: 1 for an ejection link that never queues
  std::vector<LinkId> candidates_;      // scratch: links a train may take at this hop
  std::vector<LinkId> next_hops_;       // scratch for adaptive routing
};

}  // namespace torsim::net
