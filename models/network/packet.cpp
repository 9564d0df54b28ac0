#include "models/network/packet.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "sim/config/fields.hpp"

namespace torsim::net {

namespace {
constexpr ChoiceName<bool> kFlowControlNames[] = {{"credit", true}, {"none", false}};
using P = PacketModelParams;
constexpr Field<P> kFields[] = {
    unbound<P>(kNetworkModelKey),
    bind<&P::train_bytes>(
        {"train_bytes", ParamKind::size, "4KiB", "B", "1B", "1GiB",
         "payload moved as one train of whole packets; smaller is finer-grained sharing, slower to simulate",
         "assumption: 4 KiB keeps sharing fair at the granularity of a few microseconds"}),
    bind_choice<&P::credit_flow_control, kFlowControlNames>(
        {"flow_control", ParamKind::choice, "none", "", "", "",
         "credit: finite router buffers (machine.router), credits, back-pressure to the NIC; none: unbounded "
         "buffers, each train books its whole path when injected (faster)",
         "assumption: see docs/models/network.md", "credit|none"}),
};
constexpr auto kSpecs = specs_of(kFields);
void ignore_delivery(void*, std::uint64_t) {}
}  // namespace

const ParamTable kPacketModelParams{"network (model: packet)",
                                    "Packet trains with cut-through timing and per-link contention.", kSpecs};

PacketModelParams parse_packet_model(const ParamReader& r) { return parse_fields(r, kFields); }

PacketModelBase::PacketModelBase(Kernel& kernel, const Machine& machine, Bytes train_bytes)
    : NetworkModel(kernel, machine),
      train_bytes_(train_bytes),
      has_lanes_(topology_.has_lanes()),
      timelines_(static_cast<std::size_t>(topology_.link_count())),
      memory_(static_cast<std::size_t>(topology_.node_count())),
      draws_routes_(topology_.draws_routes()) {
  tabulate_link_timings();
  if (draws_routes_) routed_.assign(static_cast<std::size_t>(topology_.node_count()), 0);
}

void PacketModelBase::tabulate_link_timings() {
  std::map<std::pair<Rate, Time>, std::uint32_t> index;
  for (LinkId l = 0; l < topology_.link_count(); ++l) {
    const auto& info = topology_.link(l);
    const auto [at, added] = index.try_emplace({info.bandwidth, info.latency}, link_timings_.size());
    if (added) link_timings_.push_back({info.bandwidth, info.latency});
    timelines_[static_cast<std::size_t>(l)].set_tag(at->second);
    timing_tags_.push_back(static_cast<std::uint16_t>(at->second));
  }
  // Timings come from a handful of per-dimension and per-node parameters.
  if (link_timings_.size() > 65536) throw std::logic_error("more than 65,536 distinct link timings");
}

// An ejection link at least as fast as all the links that can feed it (its router's incoming
// links, but for its own node's injection link: a route never returns to its source) can hold
// no queue: in the fluid limit what its feeders bring at their rates it takes at once. It is
// not booked. Booking it would serialise trains that arrive together on different feeders,
// each charged a contiguous window at its tail: six trains ending together on Blue Gene/P's
// six incoming links (its reception takes 6 x 425 MB/s) would leave the last one 5/6 of a
// train late, and the deep queues of short windows those bookings leave are the costliest a
// large all-to-all books.
void PacketModel::find_unbooked_ejection_links() {
  std::vector<Rate> inflow(static_cast<std::size_t>(topology_.router_count()), 0);  // into each router
  for (const auto& info : topology_.links())
    if (info.to < topology_.router_count()) inflow[static_cast<std::size_t>(info.to)] += info.bandwidth;
  unbooked_.assign(static_cast<std::size_t>(topology_.link_count()), 0);
  for (int rail = 0; rail < topology_.rail_count(); ++rail) {
    for (topo::NodeId n = 0; n < topology_.node_count(); ++n) {
      const LinkId ejection = topology_.ejection_link(n, rail);
      const auto& info = topology_.link(ejection);
      const Rate own = topology_.link(topology_.injection_link(n, rail)).bandwidth;  // same router
      const Rate feeders = inflow[static_cast<std::size_t>(info.from)] - own;
      unbooked_[static_cast<std::size_t>(ejection)] = info.bandwidth >= feeders ? 1 : 0;
    }
  }
}

void PacketModel::start(const TransferRequest& request) {
  const auto opened = open_message(messages_, request);
  if (!opened) return;
  const auto index = *opened;
  Message& m = messages_[index];
  take_route(request, m.route);
  m.bottleneck = bottleneck_of(m.route);
  send_next_train(index);
}

void PacketModelBase::take_route(const TransferRequest& request, std::vector<LinkId>& out) {
  if (request.rail >= 0) {  // the caller's rail (an HCA of a multi-rail fabric)
    topology_.route_on_rail(request.src, request.dst, request.rail, out);
    return prefetch_route(out);
  }
  const std::uint64_t draw = next_draw(request.src, request.dst);
  if (draws_routes_) ++routed_[static_cast<std::size_t>(request.src)];
  if (ExpectedRoute* e = find_expected(request.src, request.dst, draw)) {
    out.swap(e->route);  // the slot keeps the message's old vector, and its capacity
    e->src = e->dst = -1;
    return;
  }
  topology_.route_drawn(request.src, request.dst, draw, out);
  prefetch_route(out);
}

std::uint64_t PacketModelBase::next_draw(NodeId src, NodeId dst) const {
  if (!draws_routes_) return 0;
  std::uint64_t z =
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32 | static_cast<std::uint32_t>(dst)) +
      routed_[static_cast<std::size_t>(src)] * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;  // SplitMix64's finaliser
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Rate PacketModelBase::bottleneck_of(const std::vector<LinkId>& route) const {
  Rate bottleneck = INT64_MAX;
  for (LinkId l : route)
    bottleneck = std::min(bottleneck, link_timings_[timing_tags_[static_cast<std::size_t>(l)]].bandwidth);
  return bottleneck;
}

// Getting ready one event ahead: the route's timelines are then on their way while that
// event runs, instead of being waited for at the start of the booking.
void PacketModelBase::expect_transfer(NodeId src, NodeId dst) const {
  const std::uint64_t draw = next_draw(src, dst);
  if (src == dst || find_expected(src, dst, draw)) return;  // nothing to do, or asked for already
  ExpectedRoute& e = expected_[next_expected_];
  next_expected_ = (next_expected_ + 1) % expected_.size();
  e.src = src;
  e.dst = dst;
  e.draw = draw;
  topology_.route_drawn(src, dst, draw, e.route);
  prefetch_route(e.route);
}

PacketModelBase::ExpectedRoute* PacketModelBase::find_expected(NodeId src, NodeId dst, std::uint64_t draw) const {
  for (ExpectedRoute& e : expected_)
    if (e.src == src && e.dst == dst && e.draw == draw) return &e;
  return nullptr;
}

// Each link's timeline is a likely cache miss: ask for all of them at once.
void PacketModelBase::prefetch_route(const std::vector<LinkId>& route) const {
  for (LinkId l : route) __builtin_prefetch(&timelines_[static_cast<std::size_t>(l)]);
}

void PacketModelBase::collect_link_busy() const {
  for (std::size_t link = 0; link < timelines_.size(); ++link) link_busy_[link] = timelines_[link].busy();
}

// The NIC takes the message's next train now (it reads it at the injection rate) and puts it
// on the injection link nic_latency later: the NIC's latency is a pipeline, which delays each
// train but does not space them. Books it; schedules the next train when the NIC has taken
// this one (nic_latency before it leaves the injection link), or the completions after the
// last one: the local completion is when the NIC has taken the message.
void PacketModel::send_next_train(std::uint64_t message_index) {
  const auto index = static_cast<SlotPool<Message>::Index>(message_index);
  Message& m = messages_[index];
  const PacketFormat& format = format_of(m.request);
  const Bytes start = m.next_offset;
  // Trains are whole packets of this transfer's format.
  const Bytes train = whole_packets(format, train_bytes_);
  const Bytes end = std::min(m.request.bytes, start + train);
  m.next_offset = end;
  const Bytes wire_start = format.wire_offset(start);
  const Bytes wire_end = m.request.bytes == 0 ? format.header : format.wire_offset(end);
  const Time nic = machine_.node.nic_latency;
  const Booking b = book_train(m, kernel_.now() + nic, wire_start, wire_end);
  ++counters_.trains;
  m.latest_delivery = std::max(m.latest_delivery, b.delivered);
  const Time taken = std::max(kernel_.now(), b.injected - nic);
  if (m.next_offset < m.request.bytes) {
    kernel_.at(taken, member_callback<PacketModel, &PacketModel::send_next_train>(this, index));
    return;
  }
  notify(taken, m.request.on_injected);
  // The delivery event calls the requester itself: reading the message back then would be
  // a cache miss. Without a callback it stays a (no-op) event, so event counts are unchanged.
  const Callback delivered = m.request.on_delivered.fn ? m.request.on_delivered : Callback{ignore_delivery};
  messages_.release(index);
  kernel_.at(m.latest_delivery, delivered);
}

PacketModel::Booking PacketModel::book_train(Message& m, Time ready, Bytes wire_start, Bytes wire_end) {
  Train train{ready, ready, &shape_of(wire_start, wire_end, m.bottleneck)};
  const auto& route = m.route;
  if (wire_start > 0) prefetch_route(route);  // the first train's links were asked for by start()
  // A spilled timeline's intervals are a second miss: ask for those at once too.
  for (LinkId l : route) timelines_[static_cast<std::size_t>(l)].prefetch_intervals();
  Booking booking{};
  auto walk = [&](auto book) {
    book(route.front());
    booking.injected = train.tail - timing(route.front()).latency;
    if (topology_.routing() == topo::Routing::dimension_order) {
      for (std::size_t i = 1; i + 1 < route.size(); ++i) book(route[i]);
    } else {
      book_adaptive_hops(m, train);
    }
    if (unbooked(route.back())) return cross_unbooked(route.back(), train);
    book(route.back());
  };
  // The hot loop is the lane-less one: one link per hop, booked inline.
  if (has_lanes_)
    walk([&](LinkId link) { book_lanes(link, train); });
  else if (observed())
    walk([&](LinkId link) { book_hop<true>(link, train); });
  else
    walk([&](LinkId link) { book_hop(link, train); });
  booking.delivered = train.tail;
  return booking;
}

void PacketModel::cross_unbooked(LinkId link, Train& train) {
  LinkTimeline& timeline = timelines_[static_cast<std::size_t>(link)];
  const std::uint32_t tag = timeline.tag();
  const Time duration = serialisation(tag, *train.shape);
  const Time end = std::max(train.head, train.tail - duration) + duration;
  timeline.add_busy(duration);
  observe_booking(link, end, duration);
  leave(train, tag, train.head, end);
}

void PacketModel::book_lanes(LinkId link, Train& train) {
  candidates_.clear();
  add_lanes(link, candidates_);
  book_link(candidates_, train);
}

// Minimal adaptive routing: at each router the train takes, among every productive link and
// lane, the one with the earliest window.
void PacketModel::book_adaptive_hops(Message& m, Train& train) {
  // The routers the route's injection and ejection links meet: on the message's rail.
  const topo::RouterId destination = topology_.link(m.route.back()).from;
  topo::RouterId at = topology_.link(m.route.front()).to;
  while (at != destination) {
    topology_.next_hops(at, destination, next_hops_);
    candidates_.clear();
    for (LinkId hop : next_hops_) add_lanes(hop, candidates_);
    at = topology_.link(book_link(candidates_, train)).to;
  }
}

void PacketModelBase::add_lanes(LinkId link, std::vector<LinkId>& out) const {
  const auto [first, count] = topology_.lanes(link);
  for (int k = 0; k < count; ++k) out.push_back(first + k);
}

PacketModelBase::TrainShape& PacketModelBase::shape_of(Bytes wire_start, Bytes wire_end, Rate bottleneck) {
  for (TrainShape& shape : shapes_)
    if (shape.wire_end == wire_end && shape.wire_start == wire_start && shape.bottleneck == bottleneck) return shape;
  TrainShape& shape = shapes_[oldest_shape_];
  oldest_shape_ = (oldest_shape_ + 1) % shapes_.size();
  shape = {wire_start, wire_end, bottleneck, stream_time(wire_end, bottleneck) - stream_time(wire_start, bottleneck)};
  return shape;
}

Time PacketModelBase::new_serialisation(std::uint32_t tag, TrainShape& shape) const {
  // Differences of stream_time() add up exactly over a message's trains; the clamp to the
  // bottleneck's share removes a 1 ps rounding flip on faster links, so that an uncontended
  // message takes exactly the closed form.
  const Rate rate = link_timings_[tag].bandwidth;
  const Time duration =
      std::min(stream_time(shape.wire_end, rate) - stream_time(shape.wire_start, rate), shape.bottleneck_share);
  if (tag < TrainShape::kRemembered) shape.durations[tag] = duration;
  return duration;
}

// Among the candidates (lanes, or adaptive routing's options), the link that would finish the
// train first; ties go to the first candidate.
LinkId PacketModel::book_link(const std::vector<LinkId>& candidates, Train& train) {
  LinkId best = candidates.front();
  LinkTimeline::Plan best_plan{0, kNever};
  Time best_duration = 0;
  for (LinkId link : candidates) {
    LinkTimeline& timeline = timelines_[static_cast<std::size_t>(link)];
    timeline.forget_before(kernel_.now());
    const Time duration = serialisation(timeline.tag(), *train.shape);
    const auto plan = timeline.plan(std::max(train.head, train.tail - duration), duration);
    if (plan.end < best_plan.end) {
      best = link;
      best_plan = plan;
      best_duration = duration;
    }
  }
  LinkTimeline& timeline = timelines_[static_cast<std::size_t>(best)];
  const Time head_passes = timeline.first_idle(train.head);
  timeline.book(best_plan);
  timeline.add_busy(best_duration);
  observe_booking(best, best_plan.end, best_duration);
  leave(train, timeline.tag(), head_passes, best_plan.end);
  return best;
}

}  // namespace torsim::net
