#include <catch2/catch.hpp>

#include <deque>
#include <functional>

#include "models/network/analytic.hpp"
#include "models/network/packet.hpp"
#include "tests/support/fixtures.hpp"
#include "topologies/torus.hpp"

using namespace torsim;
using namespace torsim::test;

namespace {

Time run_one(const Machine& m, const char* model, Bytes train, topo::NodeId src, topo::NodeId dst, Bytes bytes) {
  Kernel k;
  Json spec{{"model", model}};
  if (std::string(model) == "packet") spec["train_bytes"] = std::to_string(train) + "B";
  auto network = net::make_network_model(spec, Where("test"), k, m);
  Completion c{-1, -1, &k};
  network->start(c.request(src, dst, bytes));
  k.run();
  return c.delivered;
}

}  // namespace

TEST_CASE("an uncontended message takes exactly the closed form", "[network][packet]") {
  // Different bandwidth per dimension and a slower injection than the fastest link, so the
  // bottleneck moves with the route.
  const Machine m = make_machine(machine_json(torus_json({4, 3, 5}, {"9.375GB/s", "4.68GB/s", "7GB/s"}, 2), "8.3GB/s"));
  const std::vector<std::pair<int, int>> pairs{{0, 1}, {0, 2}, {0, 7}, {3, 40}, {0, 119}, {17, 100}};
  for (Bytes bytes : {Bytes{0}, Bytes{1}, Bytes{64}, Bytes{100}, Bytes{4096}, Bytes{4097}, Bytes{(1 << 20) + 3}}) {
    for (Bytes train : {Bytes{64}, Bytes{4096}, Bytes{1 << 20}}) {
      for (auto [src, dst] : pairs) {
        INFO("bytes " << bytes << " train " << train << " " << src << " -> " << dst);
        CHECK(run_one(m, "packet", train, src, dst, bytes) == closed_form(m, src, dst, bytes));
      }
    }
  }
}

TEST_CASE("the analytic model gives the same closed form", "[network][analytic]") {
  const Machine m = make_machine(machine_json(torus_json({4, 4}, {"9.375GB/s", "4.68GB/s"}), "8.3GB/s"));
  for (Bytes bytes : {Bytes{8}, Bytes{5000}, Bytes{1 << 20}})
    CHECK(run_one(m, "analytic", 4096, 0, 10, bytes) == closed_form(m, 0, 10, bytes));
}

TEST_CASE("intra-node transfers use the memory-copy path", "[network]") {
  const Machine m = make_machine(machine_json(torus_json({4}, {"5GB/s"})));
  CHECK(run_one(m, "packet", 4096, 2, 2, 8000) == 100 * kNanosecond + transfer_time(8000, 8000000000));
  CHECK(run_one(m, "analytic", 4096, 2, 2, 8000) == 100 * kNanosecond + transfer_time(8000, 8000000000));
}

namespace {

// Starts all transfers at time 0 and returns their delivery times.
std::vector<Time> run_together(const Machine& m, const char* model, const std::vector<std::array<int, 3>>& flows) {
  Kernel k;
  auto network = net::make_network_model(Json{{"model", model}}, Where("test"), k, m);
  std::deque<Completion> done;
  for (const auto& [src, dst, bytes] : flows) {
    done.push_back({-1, -1, &k});
    network->start(done.back().request(src, dst, bytes));
  }
  k.run();
  std::vector<Time> out;
  for (const auto& c : done) out.push_back(c.delivered);
  return out;
}

}  // namespace

namespace {

constexpr Time kStagger = 50 * kNanosecond;

// Starts each flow at a time of its own (so that each books on the links the earlier ones
// left), first telling the model, through expect_transfer(), about `expected` pairs: the
// flow's own, others, or none. Returns the delivery times and each link's busy time.
std::pair<std::vector<Time>, std::vector<Time>> run_expecting(
    const Machine& m, const std::vector<std::array<int, 3>>& flows,
    const std::function<std::vector<std::pair<int, int>>(std::size_t)>& expected) {
  Kernel k;
  auto network = net::make_network_model(Json{{"model", "packet"}}, Where("test"), k, m);
  std::deque<Completion> done;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    done.push_back({-1, -1, &k});
    const auto [src, dst, bytes] = flows[i];
    k.spawn([](Kernel& kernel, net::NetworkModel& net, Completion& c, Time at, int from, int to, int size,
               std::vector<std::pair<int, int>> expect) -> Task<> {
      co_await kernel.sleep(at);
      for (auto [s, d] : expect) net.expect_transfer(s, d);
      net.start(c.request(from, to, size));
    }(k, *network, done.back(), static_cast<Time>(i) * kStagger, src, dst, bytes, expected(i)));
  }
  k.run();
  std::vector<Time> delivered;
  for (const auto& c : done) delivered.push_back(c.delivered);
  return {delivered, network->link_busy()};
}

}  // namespace

TEST_CASE("a transfer the packet model was told to expect takes the same time", "[network][packet]") {
  // Flows that share links on a 4x4 torus (some queue behind others), and one within a node.
  const Machine m = make_machine(machine_json(torus_json({4, 4}, {"10GB/s", "5GB/s"}), "8GB/s"));
  std::vector<std::array<int, 3>> flows;
  for (int i = 0; i < 24; ++i) flows.push_back({(i * 5) % 16, (i * 7 + 3) % 16, 3000 + 1000 * (i % 4)});
  flows.push_back({6, 6, 5000});
  const auto plain = run_expecting(m, flows, [](std::size_t) { return std::vector<std::pair<int, int>>{}; });
  const auto own = [&](std::size_t i) { return std::pair<int, int>{flows[i][0], flows[i][1]}; };
  // Its own pair; its own among others, more than the model keeps; only others; its own
  // twice; another flow's pair with the ends swapped.
  const std::vector<std::function<std::vector<std::pair<int, int>>(std::size_t)>> cases{
      [&](std::size_t i) { return std::vector{own(i)}; },
      [&](std::size_t i) {
        std::vector expect{own(i)};
        for (int k = 0; k < 12; ++k) expect.push_back({k, (k + 5) % 16});  // more than the model keeps (8)
        return expect;
      },
      [&](std::size_t i) {
        return std::vector{std::pair{1, 2}, std::pair{3, 4}, own((i + 1) % flows.size())};
      },
      [&](std::size_t i) {
        return std::vector{own(i), own(i)};
      },
      [&](std::size_t i) {
        return std::vector{std::pair{own(i).second, own(i).first}};
      },
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    INFO("case " << c);
    const auto expecting = run_expecting(m, flows, cases[c]);
    CHECK(expecting.first == plain.first);
    CHECK(expecting.second == plain.second);
  }
  int queued = 0;  // the flows did meet on links
  for (std::size_t i = 0; i + 1 < flows.size(); ++i)
    queued += plain.first[i] > static_cast<Time>(i) * kStagger + closed_form(m, flows[i][0], flows[i][1], flows[i][2]);
  CHECK(queued > 3);
}

TEST_CASE("two flows sharing a link each get half of it", "[network][packet]") {
  // A 3-router line with two nodes per router: 0->4 and 1->5 share both network links; the
  // injection links (40 GB/s) are much faster than the shared 5 GB/s links.
  const Machine m = make_machine(machine_json(torus_json({3}, {"5GB/s"}, 2, "dimension_order", false), "40GB/s"));
  const int bytes = 4 << 20;
  const Time alone = run_together(m, "packet", {{0, 4, bytes}})[0];
  const auto shared = run_together(m, "packet", {{0, 4, bytes}, {1, 5, bytes}});
  const Time serialisation = transfer_time(m.packet.wire_bytes(bytes), 5000000000);
  // Each flow got half the link: both finish after about two serialisation times.
  for (Time t : shared) CHECK(std::abs(static_cast<double>(t - alone - serialisation)) < 0.01 * serialisation);
  // The analytic model ignores contention.
  const auto analytic = run_together(m, "analytic", {{0, 4, bytes}, {1, 5, bytes}});
  CHECK(analytic[0] == analytic[1]);
  CHECK(analytic[0] == alone);
}

TEST_CASE("an N-to-1 incast is limited by the ejection link", "[network][packet]") {
  const Machine m = make_machine(machine_json(torus_json({4, 4}, {"10GB/s", "10GB/s"}), "5GB/s"));
  std::vector<std::array<int, 3>> flows;
  const int bytes = 1 << 20;
  for (int src = 1; src < 16; ++src) flows.push_back({src, 0, bytes});
  const auto done = run_together(m, "packet", flows);
  const Time last = *std::max_element(done.begin(), done.end());
  const Time ejection_bound = 15 * transfer_time(m.packet.wire_bytes(bytes), 5000000000);
  CHECK(last >= ejection_bound);
  CHECK(last < ejection_bound + 5 * kMicrosecond);
}

TEST_CASE("an ejection link as fast as all its incoming links serialises nothing", "[network][packet]") {
  // A 3x3 torus of 1 GB/s links: node 4's router has four incoming links, one from each of
  // nodes 1, 3, 5 and 7, whose messages arrive together. A 4 GB/s ejection link takes them
  // all at once (the node's own injection link cannot feed it: no route returns to its
  // source), so each is delivered at its closed form; it is not booked, but its busy time counts.
  const int bytes = 64 << 10;
  const std::vector<std::array<int, 3>> flows{{1, 4, bytes}, {3, 4, bytes}, {5, 4, bytes}, {7, 4, bytes}};
  const Machine fast = make_machine(machine_json(torus_json({3, 3}, {"1GB/s", "1GB/s"}), "4GB/s"));
  Kernel k;
  auto network = net::make_network_model(Json{{"model", "packet"}}, Where("test"), k, fast);
  std::deque<Completion> done;
  for (const auto& [src, dst, b] : flows) {
    done.push_back({-1, -1, &k});
    network->start(done.back().request(src, dst, b));
  }
  k.run();
  for (std::size_t i = 0; i < flows.size(); ++i) CHECK(done[i].delivered == closed_form(fast, flows[i][0], 4, bytes));
  const auto ejection = static_cast<std::size_t>(fast.topology->ejection_link(4));
  CHECK(network->link_busy()[ejection] == 4 * transfer_time(fast.packet.wire_bytes(bytes), 4000000000));
  // One byte per second slower and it could queue: it is booked, and trains whose tails arrive
  // together take turns on it, each charged a window of its own at its tail.
  const Machine slower = make_machine(machine_json(torus_json({3, 3}, {"1GB/s", "1GB/s"}), "3999999999B/s"));
  const auto booked = run_together(slower, "packet", flows);
  // Each message's last train (4 KiB of payload, the default) waits for the others' windows.
  const Time window = transfer_time(slower.packet.wire_bytes(4096), 3999999999);
  CHECK(*std::max_element(booked.begin(), booked.end()) == closed_form(slower, 1, 4, bytes) + 3 * window);
}

TEST_CASE("link busy time adds up to the serialisation booked", "[network][packet]") {
  const Machine m = make_machine(machine_json(torus_json({4}, {"5GB/s"}), "40GB/s"));
  Kernel k;
  auto network = net::make_network_model(Json{{"model", "packet"}}, Where("test"), k, m);
  Completion a{-1, -1, &k}, b{-1, -1, &k};
  network->start(a.request(0, 1, 10000));
  network->start(b.request(0, 1, 10000));
  k.run();
  std::vector<topo::LinkId> route;
  m.topology->route(0, 1, route);
  CHECK(network->link_busy()[static_cast<std::size_t>(route[1])] ==
        2 * transfer_time(m.packet.wire_bytes(10000), 5000000000));
  CHECK(network->counters().messages == 2);
  CHECK(network->counters().payload_bytes == 20000);
  CHECK(network->counters().wire_bytes == 2 * m.packet.wire_bytes(10000));
}

namespace {
// Sends `count` messages from src to dst, each when the local completion of the one before comes
// (a sender that reuses its buffer as soon as it may), and records the last delivery.
struct BackToBack {
  net::NetworkModel* network;
  Kernel* kernel;
  int left;
  topo::NodeId src, dst;
  Bytes bytes;
  Time last_delivered = -1;
  static void injected(void* self, std::uint64_t) {
    auto* b = static_cast<BackToBack*>(self);
    if (--b->left > 0) b->send();
  }
  static void delivered(void* self, std::uint64_t) {
    auto* b = static_cast<BackToBack*>(self);
    b->last_delivered = b->kernel->now();
  }
  void send() { network->start({src, dst, bytes, {injected, this, 0}, {delivered, this, 0}}); }
};
}  // namespace

TEST_CASE("the NIC's latency is a pipeline: back-to-back messages pay it once", "[network][packet][flow_control]") {
  // 1,000 small messages, each sent when the one before is locally complete, over links faster
  // than the 5 GB/s injection link: they take N wire times and one NIC latency (500 ns), not N.
  const int n = 1000;
  const Bytes bytes = 200;
  const Json topology = torus_json({4, 4}, {"10GB/s", "10GB/s"});
  const auto machine = [&](const char* nic_latency) {  // router buffers for credit flow control
    Json spec = machine_json(topology, "5GB/s", nic_latency);
    spec["router"] = {{"buffer_per_vc", "8KiB"}, {"injection_buffer", "8KiB"}, {"virtual_channels", 2}};
    return make_machine(spec);
  };
  const Machine with = machine("500ns");
  const Machine without = machine("0ns");
  const Time wire = transfer_time(with.packet.wire_bytes(bytes), 5000000000);
  const auto last_delivery = [&](const Machine& m, const Json& spec) {
    Kernel k;
    auto network = net::make_network_model(spec, Where("test"), k, m);
    BackToBack sender{network.get(), &k, n, 0, 5, bytes};
    sender.send();
    network->drive(k);
    return sender.last_delivered;
  };
  for (const Json& spec : {Json{{"model", "packet"}, {"flow_control", "none"}},
                           Json{{"model", "packet"}, {"flow_control", "credit"}}, Json{{"model", "analytic"}}}) {
    INFO(spec.dump());
    const Time t = last_delivery(with, spec);
    CHECK(t == closed_form(with, 0, 5, bytes) + (n - 1) * wire);
    CHECK(t - last_delivery(without, spec) == with.node.nic_latency);
  }
}

TEST_CASE("with random ties each message of a pair draws its direction", "[network][packet]") {
  // Node 0 to node 4 on an 8-ring: exactly half-way. Ties + put every message on the + links;
  // random ties split them between the two ways (each way's first link busy for its share).
  for (const char* ties : {"plus", "random"}) {
    INFO(ties);
    Json spec = machine_json(torus_json({8}, {"5GB/s"}), "40GB/s");
    spec["topology"]["ties"] = ties;
    const Machine m = make_machine(spec);
    Kernel k;
    auto network = net::make_network_model(Json{{"model", "packet"}}, Where("test"), k, m);
    std::deque<Completion> done;
    for (int i = 0; i < 200; ++i) {
      done.emplace_back(Completion{-1, -1, &k});
      network->start(done.back().request(0, 4, 1000));
    }
    k.run();
    const auto& t = dynamic_cast<const topo::Torus&>(*m.topology);
    const Time plus = network->link_busy()[static_cast<std::size_t>(t.port(0, 0, +1))];
    const Time minus = network->link_busy()[static_cast<std::size_t>(t.port(0, 0, -1))];
    const Time each = transfer_time(m.packet.wire_bytes(1000), 5000000000);
    CHECK(plus + minus == 200 * each);
    if (std::string(ties) == "plus") {
      CHECK(minus == 0);
    } else {
      CHECK(plus > 70 * each);
      CHECK(minus > 70 * each);
    }
  }
}

TEST_CASE("minimal adaptive routing spreads flows that dimension order piles up", "[network][packet]") {
  // On a 4x4 torus, 0 -> 5 and 1 -> 6... use flows from two nodes on one X row to targets
  // diagonal from them: dimension order sends both along X first through the same link.
  auto finish = [](const char* routing) {
    const Machine m = make_machine(machine_json(torus_json({4, 4}, {"5GB/s", "5GB/s"}, 1, routing), "40GB/s"));
    const auto done = run_together(m, "packet", {{0, 5, 1 << 20}, {4, 1, 1 << 20}, {0, 9, 1 << 20}});
    return *std::max_element(done.begin(), done.end());
  };
  CHECK(finish("minimal_adaptive") < finish("dimension_order"));
}

TEST_CASE("packet wire bytes follow the machine's format", "[network]") {
  PacketFormat f{64, 32, 1};
  CHECK(f.wire_bytes(0) == 32);
  CHECK(f.wire_bytes(1) == 33);
  CHECK(f.wire_bytes(64) == 96);
  CHECK(f.wire_bytes(65) == 96 + 33);
  PacketFormat bgq{512, 40, 32};
  CHECK(bgq.wire_bytes(1) == 72);
  CHECK(bgq.wire_bytes(512) == 552);
  CHECK(bgq.wire_bytes(513) == 552 + 72);
  // Additive at packet boundaries, so trains split exactly.
  CHECK(f.wire_offset(128) + (f.wire_offset(200) - f.wire_offset(128)) == f.wire_offset(200));
}

namespace {
// Deterministic draws below `bound` for the timelines' random bookings.
struct TimelineDraws {
  std::uint64_t state;
  Time operator()(std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<Time>((state >> 33) % bound);
  }
};
}  // namespace

TEST_CASE("a timeline's reserve() books what first_idle(), plan() and book() would", "[network][timeline]") {
  // Random bookings, short and long, gaps and back-to-back, on two copies of one link: the
  // fused path must leave the same intervals and return the same instants.
  TimelineDraws next{12345};
  std::size_t longest = 0;
  for (int run = 0; run < 200; ++run) {
    net::LinkTimeline fused, reference;
    Time now = 0;
    // Half the runs let time stand still for long: queues grow past the searches' linear
    // steps to where they bisect.
    const std::uint64_t advance_one_in = run % 2 == 0 ? 4 : 60;
    for (int step = 0; step < 300; ++step) {
      now += next(advance_one_in) == 0 ? next(50) : 0;
      fused.forget_before(now);
      reference.forget_before(now);
      const Time head = now + next(advance_one_in == 4 ? 120 : 2000);
      const Time from = head + (next(3) == 0 ? 0 : next(80));
      const Time duration = next(10) == 0 ? 0 : 1 + next(40);
      Time fused_head = head;
      const Time fused_end = fused.reserve(fused_head, from, duration);
      const Time reference_head = reference.first_idle(head);
      const auto plan = reference.plan(from, duration);
      reference.book(plan);
      REQUIRE(fused_head == reference_head);
      REQUIRE(fused_end == plan.end);
      REQUIRE(fused.busy_intervals() == reference.busy_intervals());
      longest = std::max(longest, fused.intervals());
    }
  }
  CHECK(longest > 16);
}

TEST_CASE("a long timeline books in its middle as a plain list of intervals would", "[network][timeline]") {
  // Bookings far ahead of the head leave hundreds of intervals; later ones land anywhere in
  // them (merging several, or inserted between two), so both ends of a booking move, by
  // element and by memmove. The reference keeps the intervals in a plain sorted list.
  TimelineDraws next{777};
  std::size_t longest = 0;
  for (int run = 0; run < 20; ++run) {
    net::LinkTimeline timeline;
    std::vector<std::pair<Time, Time>> reference;
    Time now = 0;
    for (int step = 0; step < 2000; ++step) {
      if (next(40) == 0) now += next(3000);
      timeline.forget_before(now);
      std::erase_if(reference, [now](const auto& i) { return i.second <= now; });
      const Time from = now + next(100000);
      const Time duration = 1 + next(60);
      const auto plan = timeline.plan(from, duration);
      Time head = now;
      REQUIRE(timeline.reserve(head, from, duration) == plan.end);
      // The plan fills every gap between its first instant and its end: one merged interval.
      std::vector<std::pair<Time, Time>> merged;
      Time lo = plan.first, hi = plan.end;
      for (const auto& i : reference) {
        if (i.second < lo || i.first > hi)
          merged.push_back(i);
        else
          lo = std::min(lo, i.first), hi = std::max(hi, i.second);
      }
      merged.emplace_back(lo, hi);
      std::sort(merged.begin(), merged.end());
      reference = merged;
      REQUIRE(timeline.busy_intervals() == reference);
      longest = std::max(longest, timeline.intervals());
    }
  }
  CHECK(longest > 200);
}
