#include "models/network/flow_control.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace torsim::net {

namespace {
constexpr Bytes kUnbounded = INT64_MAX / 4;  // room for any sum of units in flight
Bytes capacity_or_unbounded(Bytes buffer) { return buffer > 0 ? buffer : kUnbounded; }
// A prefetch the compiler keeps: GCC 12 compiled prefetch_arrival, made of built-in prefetches
// only, to an empty function (the hint then asked for nothing, and the run was 25 % slower).
inline void prefetch_line(const void* p) {
#if defined(__x86_64__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}
}  // namespace

CreditModel::CreditModel(Kernel& kernel, const Machine& machine, Bytes train_bytes)
    : PacketModelBase(kernel, machine, train_bytes),
      adaptive_(topology_.routing() == topo::Routing::minimal_adaptive),
      network_capacity_(capacity_or_unbounded(machine.router.buffer_per_vc)),
      injection_capacity_(capacity_or_unbounded(machine.router.injection_buffer)) {
  classify_links();
  tabulate_credit_returns(machine.router);
  // The dateline pair, or the bubble, only where there are rings to break.
  using Avoidance = RouterParams::DeadlockAvoidance;
  dateline_ = ring_dims_ != 0 && machine.router.deadlock_avoidance == Avoidance::dateline;
  whole_ring_ = dateline_ && !adaptive_ && machine.router.dateline_channel == RouterParams::DatelineChannel::whole_ring;
  input_speedup_ = static_cast<std::uint32_t>(machine.router.input_speedup);
  input_first_ = machine.router.switch_allocation == RouterParams::SwitchAllocation::input_first;
  head_delay_ = machine.router.head_delay;
  vc_allocation_delay_ = machine.router.vc_allocation_delay;
  if (input_speedup_ > 0)
    inputs_ = std::vector<LinkTimeline>(static_cast<std::size_t>(topology_.link_count()) * input_speedup_);
  bubble_ =
      ring_dims_ != 0 && machine.router.deadlock_avoidance == Avoidance::bubble && network_capacity_ != kUnbounded;
  if (bubble_) bubble_bytes_ = machine.packet.wire_bytes(unit_payload(machine.packet));
  const std::uint32_t escape_vcs = dateline_ ? 2 : 1;
  adaptive_vc_ = static_cast<std::uint8_t>(escape_vcs);
  adaptive_vcs_ = static_cast<std::uint8_t>(adaptive_ ? machine.router.adaptive_channels : 0);
  vcs_ = escape_vcs + adaptive_vcs_;
  injection_fifos_ = static_cast<std::uint32_t>(machine.router.injection_fifos);
  check_router(machine);
  // The parameters' ranges keep these within a unit's fields.
  if (vcs_ > kMaxChannels || injection_fifos_ > kMaxFifos)
    throw std::logic_error("credit model: more virtual channels or injection FIFOs than a unit records");
  allocate_buffers();
  kernel.add_prefetcher(
      member_callback<CreditModel, &CreditModel::arrive>(this).fn,
      [](const void* ctx, std::uint64_t arg) { static_cast<const CreditModel*>(ctx)->prefetch_arrival(arg); });
  kernel.add_prefetcher(member_callback<CreditModel, &CreditModel::send_next_unit>(this).fn,
                        [](const void* ctx, std::uint64_t arg) {
                          static_cast<const CreditModel*>(ctx)->prefetch_message(static_cast<std::uint32_t>(arg));
                        });
}

// A message record spans three cache lines; a unit's send and delivery read all of them.
void CreditModel::prefetch_message(std::uint32_t mi) const {
  const auto* record = reinterpret_cast<const char*>(&messages_[mi]);
  for (std::size_t offset = 0; offset < sizeof(Message); offset += 64) __builtin_prefetch(record + offset);
  __builtin_prefetch(record + sizeof(Message) - 1);
}

void CreditModel::classify_links() {
  link_class_.resize(static_cast<std::size_t>(topology_.link_count()));
  for (LinkId l = 0; l < topology_.link_count(); ++l) {
    const auto& info = topology_.link(l);
    std::uint8_t c = info.kind == topo::LinkKind::network ? static_cast<std::uint8_t>((info.dim + 1) & kDimMask) : 0;
    if (info.kind == topo::LinkKind::ejection) c |= kEjection;
    if (topology_.crosses_dateline(l)) {
      c |= kDateline;
      ring_dims_ |= std::uint64_t{1} << (c & kDimMask);
    }
    link_class_[static_cast<std::size_t>(l)] = c;
    direction_.push_back(info.kind == topo::LinkKind::network && info.dim >= 0
                             ? static_cast<std::uint8_t>(2 * info.dim + (info.direction < 0 ? 1 : 0))
                             : 0);
  }
}

// A credit crosses the wire back (the link's latency less the router pipeline it includes; an
// injection link's, which may be shorter than the pipeline, at least 0) and is then processed.
void CreditModel::tabulate_credit_returns(const RouterParams& router) {
  for (const LinkTiming& t : link_timings_)
    credit_return_.push_back(std::max<Time>(0, t.latency - router.pipeline_latency) + router.credit_delay);
}

void CreditModel::allocate_buffers() {
  std::uint32_t next = 0;
  for (LinkId l = 0; l < topology_.link_count(); ++l) {
    first_buffer_.push_back(next);
    const topo::LinkKind kind = topology_.link(l).kind;
    next += kind == topo::LinkKind::network ? vcs_ : kind == topo::LinkKind::injection ? injection_fifos_ : 0;
  }
  buffers_.resize(next);
}

std::uint8_t CreditModel::injection_fifo(const std::vector<LinkId>& route) const {
  if (injection_fifos_ == 1) return 0;
  const LinkId first_hop = route[1];  // route[0] is the injection link; a route ends with an ejection link
  return static_cast<std::uint8_t>(direction_[static_cast<std::size_t>(first_hop)] % injection_fifos_);
}

void CreditModel::check_router(const Machine& machine) const {
  const Where where = machine.where / "router";
  if (machine.router.virtual_channels < static_cast<int>(vcs_))
    (where / "virtual_channels")
        .fail("expected at least " + std::to_string(vcs_) + " virtual channels (" +
              (dateline_ ? "2 for dateline deadlock avoidance" : "1 escape channel") +
              (adaptive_ ? ", and minimal adaptive routing's " + std::to_string(adaptive_vcs_) : "") + "), got " +
              std::to_string(machine.router.virtual_channels));
  if (input_first_ && input_speedup_ == 0)
    (where / "switch_allocation")
        .fail(
            "input_first allocates crossbar inputs, and this router has none: set router.input_speedup (1 for "
            "an input-queued router's one per port)");
  // Unbounded network buffers would give credit flow control nothing to control: the run would
  // be the packet model's without flow control, slower, under a name that says otherwise.
  if (machine.router.buffer_per_vc == 0)
    (where / "buffer_per_vc")
        .fail(
            "credit flow control (network.flow_control: credit) needs the router's input buffers, and this machine "
            "has none (0 B: unbounded): expected router.buffer_per_vc, in wire bytes per port and virtual channel "
            "(or network.flow_control: none)");
  const Bytes packet = machine.packet.payload + machine.packet.header;
  for (Bytes buffer : {machine.router.buffer_per_vc, machine.router.injection_buffer})
    if (buffer > 0 && buffer < packet)
      where.fail("router buffers must hold at least one packet (" + std::to_string(packet) + " wire bytes), got " +
                 std::to_string(buffer) + " B");
}

void CreditModel::start(const TransferRequest& request) {
  const auto opened = open_message(messages_, request);
  if (!opened) return;
  const auto index = *opened;
  const PacketFormat& format = format_of(request);
  Message& m = messages_[index];
  m.units_left = 0;
  m.all_sent = false;
  m.unit_payload = unit_payload(format);
  take_route(request, m.route);
  m.bottleneck = bottleneck_tag(m.route);
  m.fifo = injection_fifo(m.route);
  m.first_link = m.route.front();
  m.second_or_last = adaptive_ ? m.route.back() : m.route[1];  // a route has injection and ejection links
  send_next_unit(index);
}

// The timing tag of the route's slowest link (the first of equal bandwidths: they clamp alike).
std::uint16_t CreditModel::bottleneck_tag(const std::vector<LinkId>& route) const {
  std::uint16_t slowest = timing_tags_[static_cast<std::size_t>(route.front())];
  for (LinkId l : route) {
    const std::uint16_t tag = timing_tags_[static_cast<std::size_t>(l)];
    if (link_timings_[tag].bandwidth < link_timings_[slowest].bandwidth) slowest = tag;
  }
  return slowest;
}

// Two units fit in the smallest buffer on the way (whole packets, at least one).
Bytes CreditModel::unit_payload(const PacketFormat& format) const {
  const Bytes smallest = std::min(network_capacity_, injection_capacity_);
  const Bytes packets = std::max<Bytes>(1, smallest / 2 / (format.payload + format.header));
  return whole_packets(format, std::min(train_bytes_, packets * format.payload));
}

// The NIC takes the message's next unit now: it may leave for the router's injection buffer
// nic_latency later (the NIC's latency is a pipeline: it delays each unit, it does not space them).
void CreditModel::send_next_unit(std::uint64_t message_index) {
  const auto mi = static_cast<std::uint32_t>(message_index);
  const auto pi = pending_.take();
  Message& m = messages_[mi];
  const PacketFormat& format = format_of(m.request);
  const Bytes start = m.next_offset;
  const Bytes end = std::min(m.request.bytes, start + m.unit_payload);
  m.next_offset = end;
  m.all_sent = end >= m.request.bytes;
  ++m.units_left;
  Unit& u = pending_[pi];
  u = Unit{};
  u.message = mi;
  u.wire_start = format.wire_offset(start);
  u.wire = static_cast<std::int32_t>((m.request.bytes == 0 ? format.header : format.wire_offset(end)) - u.wire_start);
  u.bottleneck = m.bottleneck;
  u.route = m.route.data();
  u.next_link = m.first_link;
  if (adaptive_)
    u.ejection = m.second_or_last;
  else
    u.first_hop = m.second_or_last;
  u.fifo = m.fifo;
  u.tail = kernel_.now() + machine_.node.nic_latency;  // the NIC's pipeline: on the wire nic_latency after it takes it
  u.last = m.all_sent;
  ++counters_.trains;
  try_forward(pi | kPending);
  drain();
}

// A hop's lines, asked for one event ahead without reading the unit: its record, its input
// buffer and, when the argument carries them, its next link's timeline and buffer.
void CreditModel::prefetch_arrival(std::uint64_t argument) const {
  const Arrival a = Arrival::decode(argument);
  const InFlight& f = units_[a.unit];
  prefetch_line(&f.unit);
  prefetch_line(&f.ahead);
  const auto* in = reinterpret_cast<const char*>(&buffers_[a.buffer]);
  prefetch_line(in);
  prefetch_line(in + sizeof(Buffer) - 1);
  if (a.next_link == Arrival::kNoLink) return;
  prefetch_line(&timelines_[a.next_link]);
  if (a.next_vc == Arrival::kNoBuffer) return;  // an ejection link
  const auto* next = reinterpret_cast<const char*>(&buffers_[first_buffer_[a.next_link] + a.next_vc]);
  prefetch_line(next);
  prefetch_line(next + sizeof(Buffer) - 1);
}

void CreditModel::arrive(std::uint64_t argument) {
  const Arrival arrival = Arrival::decode(argument);
  const std::uint32_t ui = arrival.unit;
  Buffer& in = buffers_[arrival.buffer];
  if (in.fifo_tail == kNone)
    in.fifo_head = ui;
  else
    units_[in.fifo_tail].unit.next_in_buffer = ui;
  in.fifo_tail = ui;
  if (in.fifo_head != ui) return;  // behind another unit: moved when that one leaves
  try_forward(ui);
  drain();
}

// What a move to `link` reads after the credit check: the link's timeline, and the message
// record when the unit is delivered or is its message's last to leave the NIC. Asked for at
// once, so that the misses overlap.
void CreditModel::prefetch_hop(const Unit& u, LinkId link) const {
  __builtin_prefetch(&timelines_[static_cast<std::size_t>(link)]);
  if (is_ejection(link) || (u.link < 0 && u.last)) prefetch_message(u.message);  // delivered, or injected
}

void CreditModel::drain() {
  while (!work_.empty()) {
    const UnitId id = work_.back();
    work_.pop_back();
    try_forward(id);
  }
}

CreditModel::Option CreditModel::option(const Unit& u, LinkId link, int adaptive_channel) const {
  const std::uint8_t c = link_class_[static_cast<std::size_t>(link)];
  if (c & kEjection) return {link, 0, false};
  if (!(c & kDimMask)) return {link, u.fifo, false};  // injection
  // The dateline channel is kept from the link where the unit crossed its ring's wrap-around
  // to the end of that dimension.
  const bool same_dimension =
      u.link >= 0 && (link_class_[static_cast<std::size_t>(u.link)] & kDimMask) == (c & kDimMask);
  const bool crossed = dateline_ && (whole_ring_ ? (same_dimension ? u.crossed_dateline : run_wraps(u, link))
                                                 : (same_dimension && u.crossed_dateline) || (c & kDateline));
  const int vc = adaptive_channel >= 0 ? adaptive_vc_ + adaptive_channel : crossed ? 1 : 0;
  return {link, static_cast<std::uint8_t>(vc), crossed};
}

// Whether the unit's run along the ring it enters by `link` (its next link) crosses the ring's
// dateline: `link` or the following links of its route along the same dimension. A unit in the
// network is the first member of its InFlight record, whose read-ahead links follow its next
// link, and then its route.
bool CreditModel::run_wraps(const Unit& u, LinkId link) const {
  const auto dimension_of = [this](LinkId l) { return link_class_[static_cast<std::size_t>(l)] & kDimMask; };
  const auto dateline = [this](LinkId l) { return (link_class_[static_cast<std::size_t>(l)] & kDateline) != 0; };
  const auto dimension = dimension_of(link);
  if (dateline(link)) return true;
  const auto& f = *reinterpret_cast<const InFlight*>(&u);
  for (std::uint8_t i = f.ahead_next; i < f.ahead_count; ++i) {
    if (dimension_of(f.ahead[i]) != dimension) return false;
    if (dateline(f.ahead[i])) return true;
  }
  for (const LinkId* next = f.unit.route;; ++next) {  // a route ends with an ejection link, of no dimension
    if (dimension_of(*next) != dimension) return false;
    if (dateline(*next)) return true;
  }
}

// With the bubble, a ring's escape buffers hold whole units as slots: a smaller unit (a
// message's last) takes a full one, so that the room one unit leaves is room for any unit
// (free bytes scattered over several buffers would let none move).
Bytes CreditModel::footprint(const Unit& u, LinkId link, std::uint8_t vc) const {
  if (!bubble_ || vc != 0) return u.wire;
  const std::uint8_t c = link_class_[static_cast<std::size_t>(link)];
  return (c & kDimMask) && (ring_dims_ >> (c & kDimMask) & 1) ? std::max<Bytes>(u.wire, bubble_bytes_) : u.wire;
}

// Continuing along a ring's escape channel is the only move that needs no bubble.
bool CreditModel::enters_ring(const Unit& u, const Option& out) const {
  if (!bubble_ || out.vc != 0) return false;
  const std::uint8_t c = link_class_[static_cast<std::size_t>(out.link)];
  if (!(ring_dims_ >> (c & kDimMask) & 1) || !(c & kDimMask)) return false;  // not a ring's link
  if (u.link < 0 || u.vc != 0) return true;
  const std::uint8_t from = link_class_[static_cast<std::size_t>(u.link)];
  return (from & kDimMask) != (c & kDimMask);  // from injection or another dimension
}

void CreditModel::options_for(const Unit& u) {
  options_.clear();
  // The router the route's ejection link leaves from, and that link: on the message's rail.
  const topo::RouterId destination = adaptive_ ? topology_.link(u.ejection).from : 0;
  const bool at_destination = adaptive_ && u.link >= 0 && topology_.link(u.link).to == destination;
  if (!adaptive_ || u.link < 0 || at_destination) {
    const LinkId next = at_destination ? u.ejection : u.next_link;
    if (!has_lanes_) return options_.push_back(option(u, next, -1));
    lanes_.clear();
    add_lanes(next, lanes_);
    for (LinkId lane : lanes_) options_.push_back(option(u, lane, -1));
    return;
  }
  // Minimal adaptive: the deterministic (escape) link first, then every productive link and
  // lane on each adaptive channel.
  topology_.next_hops(topology_.link(u.link).to, destination, next_hops_);
  options_.push_back(option(u, next_hops_.front(), -1));
  lanes_.clear();
  for (LinkId hop : next_hops_) add_lanes(hop, lanes_);
  for (LinkId lane : lanes_)
    for (int channel = 0; channel < adaptive_vcs_; ++channel) options_.push_back(option(u, lane, channel));
}

Time CreditModel::credit_time(Buffer& b, Bytes capacity, Bytes bytes) {
  const Time now = kernel_.now();
  std::size_t arrived = 0;
  while (arrived < b.credits && b.credit_at[arrived] <= now) ++arrived;
  if (arrived > 0) {
    std::copy(b.credit_at.begin() + static_cast<std::ptrdiff_t>(arrived), b.credit_at.begin() + b.credits,
              b.credit_at.begin());
    std::copy(b.credit_bytes.begin() + static_cast<std::ptrdiff_t>(arrived), b.credit_bytes.begin() + b.credits,
              b.credit_bytes.begin());
    b.credits = static_cast<std::uint8_t>(b.credits - arrived);
  }
  // Bytes whose credit may still be on its way when this unit goes.
  const Bytes allowed = capacity - b.committed - bytes;
  if (allowed < 0) return kUnknown;
  Bytes outstanding = 0;
  for (std::size_t i = 0; i < b.credits; ++i) outstanding += b.credit_bytes[i];
  Time at = 0;
  for (std::size_t i = 0; i < b.credits && outstanding > allowed; ++i) {
    outstanding -= b.credit_bytes[i];
    at = b.credit_at[i];
  }
  return at;
}

// Credits come back in departure order; when more are on their way than are kept, the two
// oldest become one, arriving with the later (a credit a little late, never early).
void CreditModel::add_credit(Buffer& b, Time at, Bytes bytes) {
  if (b.credits == Buffer::kCredits) {
    b.credit_at[0] = b.credit_at[1];
    b.credit_bytes[0] += b.credit_bytes[1];
    for (std::size_t i = 1; i + 1 < Buffer::kCredits; ++i) {
      b.credit_at[i] = b.credit_at[i + 1];
      b.credit_bytes[i] = b.credit_bytes[i + 1];
    }
    --b.credits;
  }
  b.credit_at[b.credits] = at;
  b.credit_bytes[b.credits] = static_cast<std::int32_t>(bytes);
  ++b.credits;
}

void CreditModel::try_forward(UnitId id) {
  Unit& u = unit(id);
  if (u.message == kNone) return;  // moved on or delivered since it was queued for a retry
  Buffer* in = u.link >= 0 ? &buffer(u.link, u.vc) : nullptr;
  if (in && in->fifo_head != id) return;                   // head-of-line: behind another unit
  if (u.waits_on != kNone && queue_head(u) != id) return;  // queued behind others
  // A unit in a buffer has its head in (it was tried no earlier than its arrival); at its NIC
  // its head leaves with its tail.
  const Time earliest = std::max({kernel_.now(), in ? behind(*in) : u.tail});
  if (!adaptive_ && !has_lanes_) {  // one way out
    const Option out = option(u, u.next_link, -1);
    prefetch_hop(u, out.link);
    const Time start = may_start(id, u, out, earliest);
    if (start == kUnknown) return wait_for(id, out);
    return book(id, out, start, stop_waiting(u));
  }
  options_for(u);
  const Choice best = first_to_finish(id, u, earliest, std::max(u.tail, in ? in->last_end : 0));
  if (best.option == options_.size()) return wait_for(id, options_.front());
  book(id, options_[best.option], best.start, stop_waiting(u));
}

// A unit at the front of its input buffer leaves no earlier than the unit before it started,
// nor, with a head delay, earlier than that long after that one's tail.
Time CreditModel::behind(const Buffer& in) const {
  return head_delay_ > 0 ? std::max(in.last_start, in.last_end + head_delay_) : in.last_start;
}

// Among the ways out with credit, the one on which the unit's tail would leave first.
CreditModel::Choice CreditModel::first_to_finish(UnitId id, const Unit& u, Time earliest, Time tail) {
  TrainShape& shape = shape_of(u.wire_start, u.wire_start + u.wire, link_timings_[u.bottleneck].bandwidth);
  Choice best{options_.size(), 0};
  Time best_end = kNever;
  for (std::size_t i = 0; i < options_.size(); ++i) {
    const Time start = may_start(id, u, options_[i], earliest);
    if (start == kUnknown) continue;
    LinkTimeline& timeline = timelines_[static_cast<std::size_t>(options_[i].link)];
    timeline.forget_before(kernel_.now());
    const Time duration = serialisation(timeline.tag(), shape);
    const Time end = timeline.plan(std::max(start, tail - duration), duration).end;
    if (end < best_end) {
      best = {i, start};
      best_end = end;
    }
  }
  return best;
}

Time CreditModel::may_start(UnitId id, const Unit& u, const Option& out, Time earliest) {
  if (is_ejection(out.link)) return earliest;
  Buffer& next = buffer(out.link, out.vc);
  // First come, first served (among the units entering a ring, if it enters one).
  const UnitId first = enters_ring(u, out) ? next.entering_head : next.waiters_head;
  if (first != kNone && first != id) return kUnknown;
  const Time credit = credit_time(next, capacity(out.link), room_needed(u, out));
  if (credit == kUnknown) return kUnknown;
  // A router's output channel is allocated to the unit once the one before it has left (the
  // NIC's injection FIFO is not a router's output).
  if (vc_allocation_delay_ > 0 && (link_class_[static_cast<std::size_t>(out.link)] & kDimMask))
    return std::max({earliest, credit, next.filled_until + vc_allocation_delay_});
  return std::max(earliest, credit);
}

Bytes CreditModel::room_needed(const Unit& u, const Option& out) const {
  const Bytes room = footprint(u, out.link, out.vc);
  return enters_ring(u, out) ? std::min(capacity(out.link), room + bubble_bytes_) : room;
}

void CreditModel::wait_for(UnitId id, const Option& out) {
  Unit& u = unit(id);
  const std::uint32_t b = buffer_index(out.link, out.vc);
  if (u.waits_on == b) return;  // already queued there
  u.waits_on = b;
  u.next_waiter = kNone;
  u.enters = enters_ring(u, out);
  Buffer& next = buffers_[b];
  UnitId& head = u.enters ? next.entering_head : next.waiters_head;
  UnitId& tail = u.enters ? next.entering_tail : next.waiters_tail;
  if (tail == kNone) {
    head = id;
  } else {
    Unit& ahead = unit(tail);
    ahead.next_waiter = id;
    ahead.next_waiter_room = static_cast<std::int32_t>(room_needed(u, out));
  }
  tail = id;
}

// A unit that moves was at the front of the queue it waited in: the next one may try.
CreditModel::Woken CreditModel::stop_waiting(Unit& u) {
  if (u.waits_on == kNone) return {};
  Buffer& b = buffers_[u.waits_on];
  std::uint32_t& head = u.enters ? b.entering_head : b.waiters_head;
  std::uint32_t& tail = u.enters ? b.entering_tail : b.waiters_tail;
  head = u.next_waiter;
  if (head == kNone) tail = kNone;
  const Woken woken{u.next_waiter, u.next_waiter_room};
  u.waits_on = kNone;
  u.next_waiter = kNone;
  u.enters = false;
  return woken;
}

// Books the unit on the chosen link from `start` on and moves it to the next router.
void CreditModel::book(UnitId id, const Option& out, Time start, Woken woken) {
  Unit& u = unit(id);
  const Time tail = std::max(u.tail, u.link >= 0 ? buffer(u.link, u.vc).last_end : 0);
  TrainShape& shape = shape_of(u.wire_start, u.wire_start + u.wire, link_timings_[u.bottleneck].bandwidth);
  LinkTimeline& timeline = timelines_[static_cast<std::size_t>(out.link)];
  timeline.forget_before(kernel_.now());
  const std::uint32_t tag = timeline.tag();
  const Time duration = serialisation(tag, shape);
  Time from = std::max(start, tail - duration);
  if (input_speedup_ > 0 && u.link >= 0) {
    const Time passes = through_crossbar(u, timeline, start, from, duration);
    if (passes != from) start = from = passes;
  }
  Time head_passes = start;
  const Time end = timeline.reserve(head_passes, from, duration);
  observe_booking(out.link, end, duration);
  if (!is_ejection(out.link)) {
    Buffer& next = buffer(out.link, out.vc);
    next.committed += footprint(u, out.link, out.vc);
    next.filled_until = end;
  }
  // With one way out, the unit woken waited for the buffer this one has just filled: a retry
  // that would find too little credit there would only queue it again where it is, so it is
  // skipped (room made later, by a unit leaving that buffer, retries it then: its record is
  // asked for now, for that retry, the next in that queue).
  if (woken.unit != kNone) {
    if (adaptive_ || has_lanes_ || capacity(out.link) - buffer(out.link, out.vc).committed - woken.room >= 0)
      retry(woken.unit);
    else
      prefetch_unit(woken.unit);
  }
  const LinkId came_by = u.link;
  leave_input(u, head_passes, end);
  const Time latency = link_timings_[tag].latency;
  u.link = out.link;
  u.vc = out.vc;
  u.crossed_dateline = out.crossed_dateline;
  const Time head = head_passes + latency;
  u.tail = end + latency;
  if (came_by < 0) {  // it left the NIC: the NIC took it nic_latency earlier (or now), and may take the next
    const std::uint32_t mi = u.message;
    const Time taken = std::max(kernel_.now(), end - machine_.node.nic_latency);
    if (u.last) {
      notify(taken, messages_[mi].request.on_injected);
    } else {
      prefetch_message(mi);  // for that unit, cut when this one has been taken
      kernel_.at(taken, member_callback<CreditModel, &CreditModel::send_next_unit>(this, mi));
    }
  }
  if (is_ejection(out.link)) return deliver(id, u.tail);
  const std::uint32_t ui = came_by < 0 ? enter_network(id) : id;
  InFlight& f = units_[ui];
  if (!adaptive_) next_hop(f);  // an adaptive unit's next link is chosen at its next router
  Arrival arrival{ui, buffer_index(f.unit.link, f.unit.vc)};
  if (!adaptive_ && !has_lanes_ && !whole_ring_) {  // its one way out is known now (whole_ring_ reads the route)
    const Option next = option(f.unit, f.unit.next_link, -1);
    if (is_ejection(next.link) || next.vc < Arrival::kNoBuffer) {
      arrival.next_link = static_cast<std::uint32_t>(next.link);
      arrival.next_vc = is_ejection(next.link) ? Arrival::kNoBuffer : next.vc;
    }
  }
  kernel_.at(head, member_callback<CreditModel, &CreditModel::arrive>(this, arrival.encode()));
}

// Switch allocation with few crossbar inputs: the unit's input port (its channel's share of it)
// passes one unit at a time, so the output link's window must find that input idle too. Its
// window on the output link (gaps filled) is planned from `from` on; while the crossbar input
// is busy within it, the plan starts again where the input is next free for as long. Books the
// input for the window found; returns where the unit's booking on `out` may start (`from`, or
// later). With input-first allocation the input is held from the unit's request (`request`:
// at the front of its buffer with credit) on, not only for its window: an input port that has
// picked a channel's request keeps it while the output serves others, its other channels idle.
Time CreditModel::through_crossbar(const Unit& u, const LinkTimeline& out, Time request, Time from, Time duration) {
  LinkTimeline& input = inputs_[static_cast<std::size_t>(u.link) * input_speedup_ + u.vc % input_speedup_];
  input.forget_before(kernel_.now());
  for (;;) {
    const LinkTimeline::Plan plan = out.plan(from, duration);
    const Time held = input_first_ ? std::min(request, plan.first) : plan.first;
    const Time free = input.first_window(held, plan.end - held);
    if (free == held) {
      input.book({held, plan.end});
      return from;
    }
    from = std::max(from, free);
    request = free;  // the input picks this request once it is free
  }
}

std::uint32_t CreditModel::enter_network(UnitId id) {
  Unit& pending = pending_[id & ~kPending];
  const std::uint32_t ui = units_.take();
  InFlight& f = units_[ui];
  f.unit = pending;
  f.ahead_next = f.ahead_count = 0;
  if (!adaptive_) {  // its first hop was read when it was cut; the rest is read at that hop
    f.unit.route += 2;
    f.ahead[f.ahead_count++] = f.unit.first_hop;
  }
  pending.message = kNone;
  pending_.release(id & ~kPending);
  return ui;
}

// The route is asked for a hop before it is read.
void CreditModel::next_hop(InFlight& f) {
  if (f.ahead_next == f.ahead_count) read_ahead(f);
  f.unit.next_link = f.ahead[f.ahead_next++];
  if (is_ejection(f.unit.next_link)) return prefetch_message(f.unit.message);  // delivered at its next router
  if (f.ahead_next == f.ahead_count) {
    __builtin_prefetch(f.unit.route);
    __builtin_prefetch(f.unit.route + InFlight::kAhead - 1);
  }
}

// A route ends with its only ejection link: reading stops there.
void CreditModel::read_ahead(InFlight& f) {
  std::uint8_t n = 0;
  for (bool ejection = false; n < InFlight::kAhead && !ejection; ++n) {
    f.ahead[n] = *f.unit.route++;
    ejection = is_ejection(f.ahead[n]);
  }
  f.ahead_count = n;
  f.ahead_next = 0;
}

// The unit's tail leaves its input buffer at `end`; the credit reaches the sender, and is
// processed, credit_return_ later. The unit behind it, and the first waiting for space, may move.
void CreditModel::leave_input(Unit& u, Time head_passes, Time end) {
  if (u.link < 0) return;
  Buffer& in = buffer(u.link, u.vc);
  in.fifo_head = u.next_in_buffer;
  if (in.fifo_head == kNone) in.fifo_tail = kNone;
  u.next_in_buffer = kNone;
  const Bytes room = footprint(u, u.link, u.vc);
  in.committed -= room;
  add_credit(in, end + credit_return_[timing_tags_[static_cast<std::size_t>(u.link)]], room);
  in.last_start = head_passes;
  in.last_end = end;
  if (in.fifo_head != kNone) retry(in.fifo_head);
  if (in.waiters_head != kNone) retry(in.waiters_head);
  if (in.entering_head != kNone) retry(in.entering_head);
}

void CreditModel::deliver(std::uint32_t ui, Time at) {
  Unit& u = units_[ui].unit;
  const std::uint32_t mi = u.message;
  u.message = kNone;
  units_.release(ui);
  Message& m = messages_[mi];
  m.latest_delivery = std::max(m.latest_delivery, at);
  if (--m.units_left > 0 || !m.all_sent) return;
  notify(m.latest_delivery, m.request.on_delivered);
  messages_.release(mi);
}

// A deadlock with one channel per ring is what the configuration asked for (an input error,
// naming it); with the dateline pair it would be a fault of the model.
void CreditModel::drive(Kernel& kernel) {
  kernel.run();
  if (kernel.stopped() || units_in_flight() == 0) return;
  const std::string what =
      "network deadlock: " + std::to_string(units_in_flight()) +
      " packet units are stuck in router buffers at t = " + std::to_string(to_microseconds(kernel.now())) +
      " us, each waiting for credit that another unit of the cycle holds";
  if (!dateline_ && !bubble_) (machine_.where / "router" / "deadlock_avoidance").fail(what + " (no dateline channels)");
  throw std::logic_error(what + (dateline_ ? " despite the dateline channels" : " despite bubble flow control"));
}

}  // namespace torsim::net
