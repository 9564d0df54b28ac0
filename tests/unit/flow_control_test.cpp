#include <catch2/catch.hpp>

#include <deque>
#include <functional>
#include <map>

#include "models/network/flow_control.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"
#include "tests/support/fixtures.hpp"

using namespace torsim;
using namespace torsim::test;

namespace {

// A machine with router buffers (wire bytes per port and virtual channel).
Machine buffered(Json topology, const std::string& buffer, const std::string& injection = "10GB/s",
                 const std::string& avoidance = "dateline") {
  Json m = machine_json(topology, injection);
  m["router"] = {{"buffer_per_vc", buffer},
                 {"injection_buffer", buffer},
                 {"virtual_channels", 3},
                 {"deadlock_avoidance", avoidance}};
  return make_machine(m);
}

struct Flow {
  int src, dst;
  Bytes bytes;
};

// Starts every flow on `network`; the completions fill in as the kernel runs.
std::deque<Completion> start_all(net::NetworkModel& network, Kernel& k, const std::vector<Flow>& flows) {
  std::deque<Completion> done;
  for (const Flow& f : flows) {
    done.push_back({-1, -1, &k});
    network.start(done.back().request(f.src, f.dst, f.bytes));
  }
  return done;
}

// Starts all flows at time 0 on the credit model; returns their completions.
std::deque<Completion> run_credit(const Machine& m, const std::vector<Flow>& flows, Bytes train = 4096) {
  Kernel k;
  net::CreditModel network(k, m, train);
  std::deque<Completion> done = start_all(network, k, flows);
  network.drive(k);
  CHECK(network.units_in_flight() == 0);
  return done;
}

// The same on the packet model without flow control (unbounded buffers).
std::deque<Completion> run_unbounded(const Machine& m, const std::vector<Flow>& flows) {
  Kernel k;
  auto network = net::make_network_model(Json{{"model", "packet"}, {"flow_control", "none"}}, Where("test"), k, m);
  std::deque<Completion> done = start_all(*network, k, flows);
  k.run();
  return done;
}

}  // namespace

TEST_CASE("credit model: an uncontended message takes exactly the closed form", "[network][flow_control]") {
  // Buffers large enough for the credit round trip: flow control never holds a lone message.
  const Machine m = buffered(torus_json({4, 3, 5}, {"9.375GB/s", "4.68GB/s", "7GB/s"}, 2), "64KiB", "8.3GB/s");
  for (Bytes bytes : {Bytes{0}, Bytes{1}, Bytes{100}, Bytes{4097}, Bytes{(1 << 20) + 3}})
    for (auto [src, dst] : std::vector<std::pair<int, int>>{{0, 1}, {0, 7}, {3, 40}, {0, 119}}) {
      INFO("bytes " << bytes << " " << src << " -> " << dst);
      CHECK(run_credit(m, {{src, dst, bytes}})[0].delivered == closed_form(m, src, dst, bytes));
    }
}

TEST_CASE("credit model: the NIC's latency is a pipeline, paid once by back-to-back messages",
          "[network][flow_control]") {
  // As the packet model: 100 small messages, each sent at the previous one's local completion.
  const Machine m = buffered(torus_json({4, 4}, {"10GB/s", "10GB/s"}), "64KiB", "5GB/s");
  const int n = 100;
  const Bytes bytes = 200;
  Kernel k;
  net::CreditModel network(k, m, 4096);
  int left = n;
  Time last = -1;
  std::function<void()> send;
  struct Hooks {
    std::function<void()>* send;
    int* left;
    Time* last;
    Kernel* k;
  } hooks{&send, &left, &last, &k};
  send = [&] {
    network.start({0,
                   5,
                   bytes,
                   {[](void* h, std::uint64_t) {
                      auto* x = static_cast<Hooks*>(h);
                      if (--*x->left > 0) (*x->send)();
                    },
                    &hooks, 0},
                   {[](void* h, std::uint64_t) { *static_cast<Hooks*>(h)->last = static_cast<Hooks*>(h)->k->now(); },
                    &hooks, 0}});
  };
  send();
  network.drive(k);
  CHECK(last == closed_form(m, 0, 5, bytes) + (n - 1) * transfer_time(m.packet.wire_bytes(bytes), 5000000000));
}

TEST_CASE("credit model: units follow routes longer than the links a unit reads ahead at once",
          "[network][flow_control]") {
  // A unit reads its route 15 links at a time (its first network link when it is cut): on a
  // 24x24 torus, 0 -> (12, 12) is 26 links, read in three parts. Every unit must book each
  // link of the route once, and no other link; and a lone message still takes the closed form.
  const Machine m = buffered(torus_json({24, 24}, {"5GB/s", "4GB/s"}), "64KiB", "8GB/s");
  const int src = 0, dst = 12 + 24 * 12;
  std::vector<topo::LinkId> route;
  m.topology->route(src, dst, route);
  REQUIRE(route.size() == 26);
  for (Bytes bytes : {Bytes{100}, Bytes{200000}}) {
    Kernel k;
    net::CreditModel network(k, m, 4096);
    std::map<topo::LinkId, int> booked;
    network.set_link_observer([&](topo::LinkId link, Time, Time) { ++booked[link]; });
    std::deque<Completion> done = start_all(network, k, {{src, dst, bytes}});
    network.drive(k);
    const int units = static_cast<int>(network.counters().trains);
    INFO(bytes << " bytes, " << units << " units");
    CHECK(booked.size() == route.size());
    for (topo::LinkId link : route) CHECK(booked[link] == units);
    CHECK(done[0].delivered == closed_form(m, src, dst, bytes));
  }
}

TEST_CASE("credit model: back-pressure holds the source to the route's bottleneck", "[network][flow_control]") {
  // A 40 GB/s NIC in front of 5 GB/s links: without flow control the tail leaves the NIC at
  // 40 GB/s; with 4 KiB buffers it leaves once all but the buffered bytes have crossed the
  // slow link.
  const Json topology = torus_json({4}, {"5GB/s"});
  const Machine m = buffered(topology, "4KiB", "40GB/s");
  const Bytes bytes = 1 << 20;
  const Time wire_at_bottleneck = transfer_time(m.packet.wire_bytes(bytes), 5000000000);
  const Completion c = run_credit(m, {{0, 2, bytes}})[0];
  CHECK(c.injected > wire_at_bottleneck * 9 / 10);
  CHECK(c.injected < c.delivered);
  CHECK(run_unbounded(m, {{0, 2, bytes}})[0].injected < wire_at_bottleneck / 4);
}

TEST_CASE("credit model: a flow blocked downstream holds back another sharing its input buffer (head-of-line)",
          "[network][flow_control]") {
  // 8x4 torus, X links 5 GB/s, Y links 1 GB/s. A (0 -> 10) runs X+ to router 2 and turns into
  // its slow Y+ link; B (1 -> 3) runs X+ through router 2 straight on, sharing no link with A
  // after 1 -> 2. Both enter router 2's input buffer from link 1 -> 2, where A's units leave
  // at the Y link's pace: B's units wait behind them (first in, first out) and for the room
  // they hold (credit). With unbounded buffers B passes, at about half of link 1 -> 2. The
  // check fails only if both the order and the room are lost (checked by removing both).
  const Machine m = buffered(torus_json({8, 4}, {"5GB/s", "1GB/s"}), "8KiB", "5GB/s");
  const std::vector<Flow> flows{{0, 10, 1 << 20}, {1, 3, 256 << 10}};
  const Time b_alone = closed_form(m, 1, 3, 256 << 10);
  const Time b_unbounded = run_unbounded(m, flows)[1].delivered;
  const Time b_credit = run_credit(m, flows)[1].delivered;
  CHECK(b_unbounded < b_alone * 21 / 10);  // about half of link 1 -> 2 while A crosses it
  CHECK(b_credit > 2 * b_unbounded);
}

TEST_CASE("credit model: injection FIFOs by direction end head-of-line blocking at the source",
          "[network][flow_control]") {
  // 8x4 torus, X links 5 GB/s, Y links 1 GB/s, a 6 GB/s NIC. From node 0, A (0 -> 8) leaves by
  // its slow Y+ link and B (0 -> 1) by X+. With one injection buffer B's units queue behind A's,
  // which leave it at the Y link's pace; with a FIFO per direction B only shares the injection
  // link. Fails if the FIFO is not chosen by direction (B then waits as with one).
  Json topology = torus_json({8, 4}, {"5GB/s", "1GB/s"});
  auto b_delivered = [&](int fifos) {
    Json m = machine_json(topology, "6GB/s");
    m["router"] = {
        {"buffer_per_vc", "4KiB"}, {"injection_buffer", "4KiB"}, {"virtual_channels", 2}, {"injection_fifos", fifos}};
    return run_credit(make_machine(m), {{0, 8, 1 << 20}, {0, 1, 256 << 10}})[1].delivered;
  };
  const Machine alone = buffered(topology, "4KiB", "6GB/s");
  const Time b_alone = closed_form(alone, 0, 1, 256 << 10);
  const Time b_fifos = b_delivered(6);
  CHECK(b_fifos < b_alone * 13 / 10);
  CHECK(b_delivered(1) > 2 * b_fifos);
  CHECK(b_delivered(2) == b_delivered(1));  // X+ and Y+ are directions 0 and 2: the same of two FIFOs
}

TEST_CASE("credit model: buffers smaller than the credit round trip slow a lone flow", "[network][flow_control]") {
  // 200 ns per hop: a 20 GB/s link needs about 8 KB in flight to stay busy.
  Json topology = torus_json({8}, {"20GB/s"});
  topology["dims"][0]["link_latency"] = "200ns";
  const Bytes bytes = 1 << 20;
  auto delivered = [&](const char* buffer) {
    return run_credit(buffered(topology, buffer, "20GB/s"), {{0, 3, bytes}})[0].delivered;
  };
  const Machine large = buffered(topology, "256KiB", "20GB/s");
  CHECK(delivered("256KiB") == closed_form(large, 0, 3, bytes));
  CHECK(delivered("2KiB") > delivered("8KiB"));
  CHECK(delivered("8KiB") > delivered("256KiB"));
}

TEST_CASE("credit model: two flows sharing a link each get half of it", "[network][flow_control]") {
  const Machine m = buffered(torus_json({3}, {"5GB/s"}, 2, "dimension_order", false), "16KiB", "40GB/s");
  const int bytes = 4 << 20;
  const Time alone = run_credit(m, {{0, 4, bytes}})[0].delivered;
  const auto shared = run_credit(m, {{0, 4, bytes}, {1, 5, bytes}});
  const Time serialisation = transfer_time(m.packet.wire_bytes(bytes), 5000000000);
  for (const auto& c : shared)
    CHECK(std::abs(static_cast<double>(c.delivered - alone - serialisation)) < 0.02 * serialisation);
}

TEST_CASE("credit model: wrap-around rings deadlock without the dateline, and not with it", "[network][flow_control]") {
  // Every node of an 8-ring sends a long message 3 hops + at once (tornado): each message
  // fills the buffers ahead of it and waits for the next one's.
  std::vector<Flow> tornado;
  for (int i = 0; i < 8; ++i) tornado.push_back({i, (i + 3) % 8, 256 << 10});
  for (const char* avoidance : {"dateline", "bubble", "none"}) {
    const Machine m = buffered(torus_json({8}, {"5GB/s"}), "2KiB", "10GB/s", avoidance);
    Kernel k;
    net::CreditModel network(k, m, 4096);
    std::deque<Completion> done = start_all(network, k, tornado);
    INFO(avoidance);
    if (std::string(avoidance) != "none") {
      network.drive(k);
      for (const auto& c : done) CHECK(c.delivered > 0);
    } else {
      CHECK_THROWS_WITH(network.drive(k), Catch::Contains("deadlock"));
      CHECK(network.units_in_flight() > 0);
    }
  }
}

TEST_CASE("credit model: bubble flow control keeps rings moving with units of every size", "[network][flow_control]") {
  // All-to-all on a 16-ring of Blue Gene/P links, one channel per ring, 5,000 B messages
  // (their last unit is smaller than the others). Counted in bytes, smaller units left free
  // room scattered over several buffers, none enough for a full unit, and the ring deadlocked
  // (82 units stuck); counted in unit slots, the bubble always leaves a whole unit's room.
  Json ring = Json::parse(R"({"preset": "intrepid-512", "name": "ring16",
    "topology": {"type": "torus", "routing": "dimension_order", "concentration": 1,
                 "dims": [{"name": "Z", "size": 16, "wrap": true, "link_bandwidth": "425MB/s", "link_latency": "100ns"}]},
    "router": {"deadlock_avoidance": "bubble"}})");
  const Json doc{{"machine", ring},
                 {"network", {{"model", "packet"}, {"flow_control", "credit"}}},
                 {"placement", {{"mode", "SMP"}}},
                 {"workload", {{"name", "traffic"}, {"pattern", "all_to_all"}, {"size", "5000B"}, {"window", 1000}}}};
  const PointResult r = Simulation(Scenario(doc, "test").doc(), Where("test"), 1).run();
  CHECK(r.output.metrics.at("messages_delivered").get<int>() == 16 * 15);
}

TEST_CASE("credit model: a second adaptive channel removes head-of-line blocking on a ring",
          "[network][flow_control]") {
  // Shift by 3 on an 8-ring: three flows on every link, so the channel-load bound is three
  // times a flow's serialisation. With one adaptive channel (and the dateline pair) a unit
  // blocked at the head of a buffer holds those behind it, which would eject; with two, the
  // router takes either channel's head. (1 GB/s links: two units cover a credit round trip.)
  const Bytes bytes = 256 << 10;
  auto finish = [&](int channels) {
    Json spec = machine_json(torus_json({8}, {"1GB/s"}, 1, "minimal_adaptive"), "10GB/s");
    spec["router"] = {{"buffer_per_vc", "1KiB"},
                      {"injection_buffer", "1KiB"},
                      {"virtual_channels", 4},
                      {"adaptive_channels", channels},
                      {"injection_fifos", 2}};
    std::vector<Flow> shift;
    for (int i = 0; i < 8; ++i) shift.push_back({i, (i + 3) % 8, bytes});
    Time last = 0;
    for (const auto& c : run_credit(make_machine(spec), shift)) last = std::max(last, c.delivered);
    return last;
  };
  const Machine plain = buffered(torus_json({8}, {"1GB/s"}), "1KiB", "10GB/s");
  const Time bound = 3 * transfer_time(plain.packet.wire_bytes(bytes), 1000000000);
  CHECK(finish(2) < bound * 105 / 100);
  CHECK(finish(1) > bound * 13 / 10);
}

TEST_CASE("credit model: minimal adaptive routing spreads flows by credit", "[network][flow_control]") {
  auto finish = [](const char* routing) {
    const Machine m = buffered(torus_json({4, 4}, {"5GB/s", "5GB/s"}, 1, routing), "8KiB", "40GB/s");
    Time last = 0;
    for (const auto& c : run_credit(m, {{0, 5, 1 << 20}, {4, 1, 1 << 20}, {0, 9, 1 << 20}}))
      last = std::max(last, c.delivered);
    return last;
  };
  CHECK(finish("minimal_adaptive") < finish("dimension_order"));
}

TEST_CASE("credit model: too few virtual channels, no buffers or too small a buffer is an input error",
          "[network][flow_control]") {
  Kernel k;
  Json spec = machine_json(torus_json({4, 4}, {"5GB/s", "5GB/s"}, 1, "minimal_adaptive"));
  spec["router"] = {{"buffer_per_vc", "4KiB"}, {"virtual_channels", 2}};
  const Machine few = make_machine(spec);
  CHECK_THROWS_WITH(net::CreditModel(k, few, 4096), Catch::Contains("virtual_channels"));
  CHECK_THROWS_WITH(net::CreditModel(k, few, 4096),
                    Catch::Contains("expected at least 3 virtual channels (2 for dateline deadlock avoidance, and "
                                    "minimal adaptive routing's 1), got 2"));
  spec["router"] = {{"buffer_per_vc", "64B"}, {"virtual_channels", 3}};
  const Machine small = make_machine(spec);
  CHECK_THROWS_WITH(net::CreditModel(k, small, 4096), Catch::Contains("at least one packet"));
  spec["router"] = {{"virtual_channels", 3}};  // no buffers: unbounded, nothing to control
  const Machine unbounded = make_machine(spec);
  CHECK_THROWS_WITH(net::CreditModel(k, unbounded, 4096), Catch::Contains("buffer_per_vc"));
}

namespace {

// An 8-ring of 5 GB/s links, 200 ns per hop, with the router parameters given.
Machine ring_router(const Json& router, const std::string& buffer = "2KiB", const std::string& injection = "20GB/s") {
  Json topology = torus_json({8}, {"5GB/s"});
  topology["dims"][0]["link_latency"] = "200ns";
  Json m = machine_json(topology, injection);
  m["router"] = {{"buffer_per_vc", buffer}, {"injection_buffer", buffer}, {"virtual_channels", 2}};
  for (const auto& [key, value] : router.items()) m["router"][key] = value;
  return make_machine(m);
}

}  // namespace

TEST_CASE("credit model: a router pipeline apart from the wire shortens the credit loop", "[network][flow_control]") {
  // A lone flow with buffers smaller than the round trip runs at about buffer / round trip. The
  // credit crosses only the wire back (link_latency - pipeline_latency), plus credit_delay.
  const Bytes bytes = 256 << 10;
  auto delivered = [&](const Json& router) { return run_credit(ring_router(router), {{0, 3, bytes}})[0].delivered; };
  const Time whole_hop = delivered(Json::object());
  const Time wire_only = delivered({{"pipeline_latency", "150ns"}});
  CHECK(wire_only < whole_hop * 8 / 10);
  CHECK(delivered({{"pipeline_latency", "150ns"}, {"credit_delay", "150ns"}}) == whole_hop);
  CHECK(delivered({{"credit_delay", "100ns"}}) > whole_hop);
  // Buffers that cover the round trip: the pipeline is part of the hop's latency, no more.
  const Machine deep = ring_router({{"pipeline_latency", "150ns"}}, "64KiB");
  CHECK(run_credit(deep, {{0, 3, bytes}})[0].delivered == closed_form(deep, 0, 3, bytes));
  CHECK_THROWS_WITH(ring_router({{"pipeline_latency", "250ns"}}), Catch::Contains("pipeline_latency"));
}

TEST_CASE("credit model: one crossbar input per port serialises its channels (input_speedup 1)",
          "[network][flow_control]") {
  // Node 0's NIC (20 GB/s) fills two injection FIFOs (one per direction) faster than the 5 GB/s
  // links drain them: with a crossbar input per FIFO both messages leave at once, with one per
  // port they take turns, so the later finishes about twice as late.
  const Bytes bytes = 256 << 10;
  auto later = [&](int speedup) {
    const Machine m = ring_router({{"injection_fifos", 2}, {"input_speedup", speedup}}, "64KiB");
    const auto done = run_credit(m, {{0, 1, bytes}, {0, 7, bytes}});
    return std::max(done[0].delivered, done[1].delivered);
  };
  const Time alone = run_credit(ring_router({{"injection_fifos", 2}}, "64KiB"), {{0, 1, bytes}})[0].delivered;
  INFO("alone " << alone << ", input_speedup 0: " << later(0) << ", 1: " << later(1));
  CHECK(later(0) < alone * 12 / 10);
  CHECK(later(1) > alone * 18 / 10);
  CHECK(later(2) == later(0));
}

TEST_CASE("credit model: input-first switch allocation holds the crossbar input while its pick waits",
          "[network][flow_control]") {
  // Router 0's injection port (one crossbar input, two injection FIFOs) sends to node 1 by its +
  // link, which a flow from node 7 to node 2 also takes, and to node 7 by its idle - link. With
  // window allocation a unit waiting for the + link leaves the input to the other FIFO; with
  // input-first allocation it holds the input from its request on, so the - message is later.
  const Bytes bytes = 256 << 10;
  auto to_minus = [&](const char* allocation, bool contended) {
    const Machine m =
        ring_router({{"injection_fifos", 2}, {"input_speedup", 1}, {"switch_allocation", allocation}}, "64KiB");
    std::vector<Flow> flows{{0, 1, bytes}, {0, 7, bytes}};
    if (contended) flows.push_back({7, 2, 4 * bytes});
    return run_credit(m, flows)[1].delivered;
  };
  INFO("window " << to_minus("window", true) << ", input_first " << to_minus("input_first", true));
  CHECK(to_minus("input_first", true) > to_minus("window", true) * 12 / 10);
  // Without contention for the + link no unit waits with the input held: the same.
  CHECK(to_minus("input_first", false) == to_minus("window", false));
  // Input-first allocation allocates crossbar inputs: a router without them is an input error.
  Kernel k;
  CHECK_THROWS_WITH(net::CreditModel(k, ring_router({{"switch_allocation", "input_first"}}), 4096),
                    Catch::Contains("switch_allocation"));
}

TEST_CASE("credit model: a unit behind another waits head_delay after its tail", "[network][flow_control]") {
  // A lone flow of 1 KiB units (deep buffers): each unit behind another in an input buffer
  // leaves head_delay after that one's tail, so the flow's rate falls to unit / (serialisation +
  // head_delay).
  const Bytes bytes = 256 << 10;
  auto delivered = [&](const char* delay) {
    return run_credit(ring_router({{"head_delay", delay}}, "64KiB"), {{0, 2, bytes}}, 1024)[0].delivered;
  };
  const Time unit = transfer_time(Bytes{1024}, 5000000000);
  const Time base = delivered("0ns");
  const Time slower = delivered("100ns");
  const double units = static_cast<double>(bytes) / 1024;
  CHECK(static_cast<double>(slower - base) > 0.8 * units * 100000);
  CHECK(static_cast<double>(slower - base) < 1.2 * units * (100000 + unit));
}

TEST_CASE("credit model: an output channel is allocated to the next unit vc_allocation_delay after a tail",
          "[network][flow_control]") {
  // A lone flow of 1 KiB units (deep buffers, no head delay): each unit into a router's output
  // channel after another starts vc_allocation_delay after that one's tail, so the flow's rate
  // falls to unit / (serialisation + delay); the first unit, alone, is not delayed.
  const Bytes bytes = 256 << 10;
  auto delivered = [&](const char* delay, Bytes size) {
    return run_credit(ring_router({{"vc_allocation_delay", delay}}, "64KiB"), {{0, 2, size}}, 1024)[0].delivered;
  };
  const Time unit = transfer_time(Bytes{1024}, 5000000000);
  const Time slower = delivered("100ns", bytes) - delivered("0ns", bytes);
  const double units = static_cast<double>(bytes) / 1024;
  CHECK(static_cast<double>(slower) > 0.8 * units * 100000);
  CHECK(static_cast<double>(slower) < 1.2 * units * (100000 + unit));
  CHECK(delivered("100ns", 1024) == delivered("0ns", 1024));
}

TEST_CASE("credit model: whole-ring dateline classes keep the rings free of deadlock", "[network][flow_control]") {
  // The tornado that deadlocks without the dateline (above), with BookSim's classes: a unit
  // whose run along a ring wraps takes channel 1 for the whole run.
  std::vector<Flow> tornado;
  for (int i = 0; i < 8; ++i) tornado.push_back({i, (i + 3) % 8, 256 << 10});
  Json spec = machine_json(torus_json({8}, {"5GB/s"}), "10GB/s");
  spec["router"] = {{"buffer_per_vc", "2KiB"},
                    {"injection_buffer", "2KiB"},
                    {"virtual_channels", 2},
                    {"dateline_channel", "whole_ring"}};
  const auto done = run_credit(make_machine(spec), tornado);
  for (const auto& c : done) CHECK(c.delivered > 0);
}
