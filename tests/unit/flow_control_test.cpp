#include <catch2/catch.hpp>

#include <deque>

#include "models/network/flow_control.hpp"
#include "tests/support/fixtures.hpp"

using namespace torsim;
using namespace torsim::test;

namespace {

// A machine with router buffers (wire bytes per port and virtual channel).
Machine buffered(Json topology, const std::string& buffer, const std::string& injection = "10GB/s",
                 const std::string& avoidance = "dateline") {
  Json m = machine_json(topology, injection);
  m["router"] = {{"buffer_per_vc", buffer}, {"injection_buffer", buffer}, {"virtual_channels", 3},
                 {"deadlock_avoidance", avoidance}};
  return make_machine(m);
}

struct Flow {
  int src, dst;
  Bytes bytes;
};

// Starts all flows at time 0 on the credit model; returns their completions.
std::deque<Completion> run_credit(const Machine& m, const std::vector<Flow>& flows, Bytes train = 4096) {
  Kernel k;
  net::CreditModel network(k, m, train);
  std::deque<Completion> done;
  for (const Flow& f : flows) {
    done.push_back({-1, -1, &k});
    network.start(done.back().request(f.src, f.dst, f.bytes));
  }
  network.drive(k);
  CHECK(network.units_in_flight() == 0);
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
  Kernel k;
  auto unbounded = net::make_network_model(Json{{"model", "packet"}, {"flow_control", "none"}}, Where("test"), k, m);
  Completion free{-1, -1, &k};
  unbounded->start(free.request(0, 2, bytes));
  k.run();
  CHECK(free.injected < wire_at_bottleneck / 4);
}

TEST_CASE("credit model: buffers smaller than the credit round trip slow a lone flow", "[network][flow_control]") {
  // 200 ns per hop: a 20 GB/s link needs about 8 KB in flight to stay busy.
  Json topology = torus_json({8}, {"20GB/s"});
  topology["dims"][0]["link_latency"] = "200ns";
  const Bytes bytes = 1 << 20;
  auto delivered = [&](const char* buffer) { return run_credit(buffered(topology, buffer, "20GB/s"), {{0, 3, bytes}})[0].delivered; };
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
  for (const auto& c : shared) CHECK(std::abs(static_cast<double>(c.delivered - alone - serialisation)) < 0.02 * serialisation);
}

TEST_CASE("credit model: wrap-around rings deadlock without the dateline, and not with it", "[network][flow_control]") {
  // Every node of an 8-ring sends a long message 3 hops + at once (tornado): each message
  // fills the buffers ahead of it and waits for the next one's.
  std::vector<Flow> tornado;
  for (int i = 0; i < 8; ++i) tornado.push_back({i, (i + 3) % 8, 256 << 10});
  for (const char* avoidance : {"dateline", "none"}) {
    const Machine m = buffered(torus_json({8}, {"5GB/s"}), "2KiB", "10GB/s", avoidance);
    Kernel k;
    net::CreditModel network(k, m, 4096);
    std::deque<Completion> done;
    for (const Flow& f : tornado) {
      done.push_back({-1, -1, &k});
      network.start(done.back().request(f.src, f.dst, f.bytes));
    }
    INFO(avoidance);
    if (std::string(avoidance) == "dateline") {
      network.drive(k);
      for (const auto& c : done) CHECK(c.delivered > 0);
    } else {
      CHECK_THROWS_WITH(network.drive(k), Catch::Contains("deadlock"));
      CHECK(network.units_in_flight() > 0);
    }
  }
}

TEST_CASE("credit model: minimal adaptive routing spreads flows by credit", "[network][flow_control]") {
  auto finish = [](const char* routing) {
    const Machine m = buffered(torus_json({4, 4}, {"5GB/s", "5GB/s"}, 1, routing), "8KiB", "40GB/s");
    Time last = 0;
    for (const auto& c : run_credit(m, {{0, 5, 1 << 20}, {4, 1, 1 << 20}, {0, 9, 1 << 20}})) last = std::max(last, c.delivered);
    return last;
  };
  CHECK(finish("minimal_adaptive") < finish("dimension_order"));
}

TEST_CASE("credit model: too few virtual channels or too small a buffer is an input error", "[network][flow_control]") {
  Kernel k;
  Json spec = machine_json(torus_json({4, 4}, {"5GB/s", "5GB/s"}, 1, "minimal_adaptive"));
  spec["router"] = {{"buffer_per_vc", "4KiB"}, {"virtual_channels", 2}};
  const Machine few = make_machine(spec);
  CHECK_THROWS_WITH(net::CreditModel(k, few, 4096), Catch::Contains("virtual_channels"));
  spec["router"] = {{"buffer_per_vc", "64B"}, {"virtual_channels", 3}};
  const Machine small = make_machine(spec);
  CHECK_THROWS_WITH(net::CreditModel(k, small, 4096), Catch::Contains("at least one packet"));
}
