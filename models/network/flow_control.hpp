// The packet model with credit-based flow control: finite router input buffers per port and
// virtual channel, credits returned upstream with the link latency, a NIC that stops injecting
// when its router's injection buffer is full, dateline virtual channels against deadlock on
// wrap-around rings, and minimal adaptive routing that chooses by downstream credit.
//
// Mechanism. A message is cut into units of whole packets (at most `train_bytes` of payload,
// and at most half an input buffer of wire bytes, so that two fit: virtual cut-through at unit
// granularity). A unit moves router by router; each move is decided when its head reaches the
// router (one kernel event per hop):
//  - Its input buffer (the downstream end of the link it came by, on its virtual channel) is
//    a FIFO: only the unit at the front may leave (head-of-line blocking), and it leaves no
//    earlier than the unit before it started, and finishes no earlier than that one finished.
//  - It needs credit for all its wire bytes in the next buffer: the buffer's capacity minus the
//    bytes sent or promised into it whose departure is not yet scheduled, minus those whose
//    departure is scheduled but whose credit has not come back (departure + the link's
//    latency less the router's pipeline, the wire, + the credit's processing delay). When the
//    credit is not known yet, the unit waits in the next buffer's waiter queue (first come,
//    first served) and is retried when a unit there is scheduled to leave.
//  - Bubble flow control (`deadlock_avoidance: bubble`, Blue Gene's escape channel): one
//    channel per ring; a unit entering a ring's channel (from its injection buffer, another
//    dimension or an adaptive channel) needs credit for itself and one more unit (the bubble),
//    one continuing along it for itself, every unit taking a full unit's room there. A ring
//    then always keeps room for a unit to move, so it cannot deadlock. Entering units wait
//    in a queue of their own, never holding continuing ones.
//  - It then books the output link's idle time as the packet model does (cut-through: its
//    head may pass once the link is idle; it takes its serialisation time from
//    max(start, tail arrival - serialisation) on, filling gaps) and frees its input buffer at
//    the end of that booking, when its tail has left.
//  - The router (each off by default): one crossbar input per input port (`input_speedup`: a
//    unit's window on its output link must find its input idle too; with input-first switch
//    allocation, the input is held from the unit's request until its tail has passed), a unit behind another
//    in its buffer routed only after that one's tail (`head_delay`), an output channel (the next
//    buffer, as its sender sees it) allocated to one unit at a time, the next one
//    `vc_allocation_delay` after the previous one's tail, and BookSim's dateline
//    classes, a ring's second channel for the whole run of a unit whose run wraps (`whole_ring`).
// The NIC sends a message's units one after another, each when the previous one's tail has
// left (the injection link's input is the router's injection buffer, so a full buffer holds the
// NIC); the last unit's departure is the local completion. A node may have several injection
// buffers (`router.injection_fifos`, FIFOs into the router): a message uses the one of its first
// hop's direction, so a message held by a congested direction does not hold the others. The ejection link drains into
// the NIC's memory without back-pressure. A run that ends with units still in the network has deadlocked, and drive()
// reports it.
#pragma once

#include <vector>

#include "models/network/packet.hpp"

namespace torsim::net {

class CreditModel final : public PacketModelBase {
 public:
  CreditModel(Kernel& kernel, const Machine& machine, Bytes train_bytes);
  void start(const TransferRequest& request) override;
  /// Runs the kernel; throws when units are left in the network (a deadlock).
  void drive(Kernel& kernel) override;
  /// Units in the network or waiting at a NIC.
  std::size_t units_in_flight() const { return units_.in_use() + pending_.in_use(); }

 private:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  static constexpr Time kUnknown = kNever;

  struct Message {
    TransferRequest request;
    Bytes next_offset = 0;   // payload bytes already cut into units
    Bytes unit_payload = 0;  // payload bytes per unit (whole packets)
    Time latest_delivery = 0;
    std::uint16_t bottleneck = 0;  // slowest link of the deterministic route, as a timing tag
    std::uint8_t fifo = 0;         // its injection FIFO (by its first hop's direction)
    bool all_sent = false;
    std::uint32_t units_left = 0;  // units sent and not yet delivered
    // What its units take from the route when they are cut, kept here so that cutting one
    // reads the route's cache line no more: its first link, and its second (deterministic
    // routes) or its last (adaptive routing).
    LinkId first_link = -1, second_or_last = -1;
    std::vector<LinkId> route;  // deterministic route (kept for reuse across messages)
  };
  /// A unit's state, in one cache line: what each hop needs is here (its next link, its
  /// message's bottleneck), so that a hop reads this record and not also its route or message
  /// (whose cache lines have long gone by the time it leaves a congested NIC).
  /// Its head's arrival time is not kept: the arrival event runs then, so a unit in a buffer
  /// has its head in by the time it is tried, and a unit at its NIC has head == tail.
  struct alignas(64) Unit {
    Time tail = 0;                         // when its tail has fully arrived where it is (or left the NIC)
    Bytes wire_start = 0;                  // wire bytes of its message before it
    const LinkId* route = nullptr;         // its message's route: at its NIC from its next link on, in
                                           // the network from the first entry not read ahead
    std::int32_t wire = 0;                 // its wire bytes (at most a buffer: 16 MiB)
    std::uint32_t message = kNone;         // kNone: a free record
    std::uint32_t next_in_buffer = kNone;  // the unit behind it in its input buffer
    std::uint32_t next_waiter = kNone;     // the unit behind it in a waiter queue (a UnitId)
    std::uint32_t waits_on = kNone;        // the buffer whose waiter queue it is in
    LinkId link = -1;                      // the link it arrived by; -1 at the source NIC
    LinkId next_link = -1;                 // deterministic routes, and any at its NIC: route[0], read ahead
    union {
      LinkId ejection = -1;  // adaptive routing: its route's last link (it heads for its router)
      LinkId first_hop;      // deterministic routes, at its NIC: route[1], read when it is cut
    };
    std::int32_t next_waiter_room = 0;  // the credit next_waiter needs (deterministic routes)
    std::uint16_t bottleneck = 0;       // its message's slowest link, as a timing tag (clamps serialisation)
    std::uint8_t vc : 4 = 0;            // virtual channel of its input buffer (kMaxChannels)
    std::uint8_t fifo : 4 = 0;          // at its NIC: its injection FIFO (kMaxFifos)
    bool crossed_dateline : 1 = false;  // in its current dimension (picks the dateline channel)
    bool last : 1 = false;              // its message's last unit
    bool enters : 1 = false;            // it waits in waits_on's queue of units entering a ring (bubble)
  };
  static_assert(sizeof(Unit) == 64, "a unit is one cache line");
  /// A unit in the network: its state, and the next links of a deterministic route read ahead
  /// from its message's, so that its hops read the route once per kAhead hops and not each hop,
  /// asked for a hop before it is read (a message's route is seldom in the cache when its units
  /// move). Units waiting at their
  /// NIC (all but one of a congested node's messages have one there) are kept apart, as plain
  /// Units: the units in the network, far fewer, then share fewer pages and cache lines.
  struct alignas(64) InFlight {
    static constexpr std::size_t kAhead = 15;
    Unit unit;
    std::array<LinkId, kAhead> ahead{};  // route entries after unit.next_link
    std::uint8_t ahead_next = 0, ahead_count = 0;
  };
  static_assert(sizeof(InFlight) == 128, "a unit in the network is two cache lines");
  /// Names a unit: an index to units_ (in the network), or with kPending to pending_ (at its
  /// NIC). A buffer's waiter queue holds either kind: an injection buffer's, units at their
  /// NIC; a network buffer's, units in the network.
  using UnitId = std::uint32_t;
  static constexpr UnitId kPending = UnitId{1} << 31;
  Unit& unit(UnitId id) { return id & kPending ? pending_[id & ~kPending] : units_[id].unit; }
  static constexpr std::uint32_t kMaxChannels = 16, kMaxFifos = 16;  // what a unit's fields hold
  /// One input buffer: a link's downstream end, one virtual channel, as the sender upstream
  /// sees it through its credits.
  struct Buffer {
    static constexpr std::size_t kCredits = 4;
    Time last_start = 0, last_end = 0;       // of the unit last scheduled out of it (FIFO order)
    Bytes committed = 0;                     // sent or promised into it, departure not scheduled yet
    Time filled_until = 0;                   // the end of the last unit booked into it (its output channel's)
    std::array<Time, kCredits> credit_at{};  // credits on their way back, oldest first
    std::array<std::int32_t, kCredits> credit_bytes{};
    std::uint32_t fifo_head = kNone, fifo_tail = kNone;          // arrived units, in order
    std::uint32_t waiters_head = kNone, waiters_tail = kNone;    // units upstream waiting for space
    std::uint32_t entering_head = kNone, entering_tail = kNone;  // the same, entering a ring (bubble)
    std::uint8_t credits = 0;
  };
  /// A way out of a router: a link and the virtual channel of its downstream buffer.
  struct Option {
    LinkId link;
    std::uint8_t vc;
    bool crossed_dateline;
  };

  Buffer& buffer(LinkId link, std::uint8_t vc) { return buffers_[buffer_index(link, vc)]; }
  /// Network links have a buffer per virtual channel, injection links one per injection FIFO,
  /// ejection links none (they drain without back-pressure).
  std::uint32_t buffer_index(LinkId link, std::uint8_t vc) const {
    return first_buffer_[static_cast<std::size_t>(link)] + vc;
  }
  bool is_ejection(LinkId link) const { return link_class_[static_cast<std::size_t>(link)] & kEjection; }
  /// The injection FIFO of a message leaving by this route: its first hop's direction.
  std::uint8_t injection_fifo(const std::vector<LinkId>& route) const;

  void classify_links();
  void tabulate_credit_returns(const RouterParams& router);
  void allocate_buffers();
  /// Input errors: too few virtual channels for the scheme, no network buffers (unbounded), a
  /// buffer smaller than a packet.
  void check_router(const Machine& machine) const;
  std::uint16_t bottleneck_tag(const std::vector<LinkId>& route) const;
  /// Payload bytes per unit of this format: whole packets, at most half the smallest buffer.
  Bytes unit_payload(const PacketFormat& format) const;
  void send_next_unit(std::uint64_t message_index);
  /// An arrival event's argument: the unit (an index to units_) and the buffer it arrives in,
  /// and for the kernel's prefetcher only, its next link and that link's channel when they are
  /// known at its departure. Packed (20 bits for each index, 3 for the channel) under a flag in
  /// the top bit when they fit; else the unit and buffer alone, 32 bits each (a buffer index
  /// stays below 2^31).
  struct Arrival {
    static constexpr std::uint32_t kNoLink = UINT32_MAX;
    static constexpr std::uint8_t kNoBuffer = 7;  // the channel field of an ejection link (no buffer)
    static constexpr int kBits = 20;
    static constexpr std::uint64_t kPacked = std::uint64_t{1} << 63, kMask = (std::uint64_t{1} << kBits) - 1;
    std::uint32_t unit, buffer;
    std::uint32_t next_link = kNoLink;
    std::uint8_t next_vc = kNoBuffer;
    std::uint64_t encode() const {
      if (unit <= kMask && buffer <= kMask && next_link <= kMask && next_vc <= kNoBuffer)
        return kPacked | unit | std::uint64_t{buffer} << kBits | std::uint64_t{next_link} << 2 * kBits |
               std::uint64_t{next_vc} << 3 * kBits;
      return unit | std::uint64_t{buffer} << 32;
    }
    static Arrival decode(std::uint64_t arg) {
      if (!(arg & kPacked)) return {static_cast<std::uint32_t>(arg), static_cast<std::uint32_t>(arg >> 32)};
      return {static_cast<std::uint32_t>(arg & kMask), static_cast<std::uint32_t>(arg >> kBits & kMask),
              static_cast<std::uint32_t>(arg >> 2 * kBits & kMask), static_cast<std::uint8_t>(arg >> 3 * kBits & 7)};
    }
  };
  void arrive(std::uint64_t argument);
  void prefetch_arrival(std::uint64_t argument) const;
  /// Moves the unit out of its buffer (or NIC) if it is at the front and has credit; else
  /// leaves it where it is, queued for the credit it needs.
  void try_forward(UnitId id);
  /// Retries every unit woken by the moves so far.
  void drain();
  /// Queues a unit for drain(), asking for its record now (it was last touched long ago).
  void retry(UnitId id) {
    prefetch_unit(id);
    work_.push_back(id);
  }
  void prefetch_unit(UnitId id) const {
    if (id & kPending) {
      __builtin_prefetch(&pending_[id & ~kPending]);
    } else {
      __builtin_prefetch(&units_[id]);
      __builtin_prefetch(&units_[id].ahead);
    }
  }
  /// Moves a unit leaving its NIC into a record of the network's; returns its index there.
  std::uint32_t enter_network(UnitId id);
  /// Sets the unit's next link to its route's next entry, reading ahead when it has used all.
  void next_hop(InFlight& f);
  void read_ahead(InFlight& f);
  void prefetch_message(std::uint32_t message_index) const;
  void prefetch_hop(const Unit& u, LinkId link) const;
  /// The unit's ways out of the router it is at, the deterministic one first.
  void options_for(const Unit& u);
  /// The way out by `link` on the escape channel (adaptive_channel < 0) or on an adaptive one.
  Option option(const Unit& u, LinkId link, int adaptive_channel) const;
  /// Bubble flow control: the unit would enter a ring's escape channel by this way out.
  bool enters_ring(const Unit& u, const Option& out) const;
  /// The room the unit takes in the buffer of `link` and channel `vc`.
  Bytes footprint(const Unit& u, LinkId link, std::uint8_t vc) const;
  /// When `bytes` of credit will have come back for `b` (0: now), or kUnknown.
  Time credit_time(Buffer& b, Bytes capacity, Bytes bytes);
  void add_credit(Buffer& b, Time at, Bytes bytes);
  /// The unit next in a waiter queue when the one ahead of it leaves, and the credit it needs.
  struct Woken {
    UnitId unit = kNone;
    Bytes room = 0;
  };
  /// Books the unit out by `out` and retries `woken`, unless it would find no credit.
  void book(UnitId id, const Option& out, Time start, Woken woken);
  void leave_input(Unit& u, Time head_passes, Time end);
  /// The earliest a unit at the front of `in` may leave, after the unit before it.
  Time behind(const Buffer& in) const;
  /// The start of the unit's window on `out` that its crossbar input can pass (and books it there,
  /// from `request` on with input-first allocation).
  Time through_crossbar(const Unit& u, const LinkTimeline& out, Time request, Time from, Time duration);
  /// Whether the unit's run along the ring it enters by `link` crosses the ring's dateline.
  bool run_wraps(const Unit& u, LinkId link) const;
  /// The credit the unit needs in the buffer of `out` (with a bubble when it enters a ring).
  Bytes room_needed(const Unit& u, const Option& out) const;
  void wait_for(UnitId id, const Option& out);
  /// Takes the unit out of the queue it waits in; returns the next in it.
  Woken stop_waiting(Unit& u);
  /// The first unit of the queue `u` waits in.
  UnitId queue_head(const Unit& u) const {
    const Buffer& b = buffers_[u.waits_on];
    return u.enters ? b.entering_head : b.waiters_head;
  }
  void deliver(std::uint32_t unit_index, Time at);

  static constexpr std::uint8_t kEjection = 0x80;
  static constexpr std::uint8_t kDateline = 0x40;
  static constexpr std::uint8_t kDimMask = 0x3f;  // dimension + 1; 0 for injection and ejection
  Bytes capacity(LinkId link) const {
    return link_class_[static_cast<std::size_t>(link)] & kDimMask ? network_capacity_ : injection_capacity_;
  }
  /// The credit check for one way out: the time the unit may start on it, or kUnknown.
  Time may_start(UnitId id, const Unit& u, const Option& out, Time earliest);
  /// An index into options_ (options_.size(): none has credit) and when the unit may start there.
  struct Choice {
    std::size_t option;
    Time start;
  };
  Choice first_to_finish(UnitId id, const Unit& u, Time earliest, Time tail);

  std::vector<Time> credit_return_;  // per link timing tag: tail leaves a buffer -> its credit usable upstream
  std::vector<std::uint8_t> link_class_;
  std::vector<std::uint32_t> first_buffer_;  // per link: its first buffer in buffers_
  std::vector<std::uint8_t> direction_;      // per link: 2 * dimension (+1 if negative); 0 off the network
  std::uint32_t vcs_ = 1;                    // virtual channels per network link
  std::uint32_t injection_fifos_ = 1;
  std::uint8_t adaptive_vc_ = 1;   // minimal adaptive routing's first channel (after the escape ones)
  std::uint8_t adaptive_vcs_ = 0;  // its channels
  bool adaptive_;
  bool bubble_ = false;
  Bytes bubble_bytes_ = 0;       // the largest unit: the room a unit entering a ring leaves
  std::uint64_t ring_dims_ = 0;  // bit d + 1: dimension d has wrap-around links
  Bytes network_capacity_, injection_capacity_;
  bool dateline_ = false;
  Time vc_allocation_delay_ = 0;     // a unit into a buffer starts this long after the previous one's tail (0: off)
  Time head_delay_ = 0;              // a unit behind another in its input buffer leaves this long after that one's tail
  bool whole_ring_ = false;          // a ring's dateline channel for a unit's whole run along it
  std::uint32_t input_speedup_ = 0;  // crossbar inputs per input port (0: one per channel, not modelled)
  bool input_first_ = false;         // a unit holds its crossbar input from its request to its tail
  std::vector<LinkTimeline> inputs_;  // per link (its router end) and crossbar input: units switched from it
  std::vector<Buffer> buffers_;       // per link and virtual channel
  SlotPool<Message> messages_;
  SlotPool<InFlight> units_;       // units in the network
  SlotPool<Unit> pending_;         // units at their NIC, not yet on the injection link
  std::vector<UnitId> work_;       // units to retry
  std::vector<Option> options_;    // scratch
  std::vector<LinkId> next_hops_;  // scratch
  std::vector<LinkId> lanes_;      // scratch
};

}  // namespace torsim::net
