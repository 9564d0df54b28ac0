#include <catch2/catch.hpp>

#include "models/runtime/charm.hpp"
#include "sim/run/scenario.hpp"
#include "sim/run/simulation.hpp"

using namespace torsim;

namespace {

// A Hopper scenario document (preset expanded) with the given layer, placement and workload.
Json hopper(const std::string& layer, const Json& placement, const Json& workload, const Json& nic = Json::object()) {
  Json doc{{"machine", {{"preset", "hopper"}, {"nic", nic}}}, {"runtime", {{"layer", layer}}},
           {"placement", placement}, {"workload", workload}};
  return Scenario(doc, "test").doc();
}

PointResult run(const Json& doc) { return Simulation(doc, Where("test"), 1).run(); }

double latency_us(const PointResult& r, std::size_t row = 0) { return r.output.series.at(0).rows.at(row).at(1); }

Json pingpong(const Json& sizes, const std::string& operation = "send_recv") {
  return {{"name", "pingpong"}, {"sizes", sizes}, {"iterations", 4}, {"warmup", 1}, {"operation", operation}};
}

std::uint64_t messages_per_round(const std::string& layer, Bytes size, const Json& placement) {
  auto one = run(hopper(layer, placement, {{"name", "pingpong"}, {"sizes", {size}}, {"iterations", 1}, {"warmup", 0}}));
  return one.counters["messages"].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("the SMSG size shrinks as the job grows", "[gemini]") {
  auto max_for = [](int nodes) {
    Json doc = hopper("ugni", {{"nodes", nodes}, {"ranks_per_node", 24}}, pingpong({8}));
    Simulation sim(doc, Where("test"), 1);
    return dynamic_cast<rt::GeminiLayer*>(sim.layer())->nic().smsg_max();
  };
  CHECK(max_for(170) == 1024);  // 4,080 PEs
  CHECK(max_for(171) == 512);   // 4,104 PEs
  CHECK(max_for(683) == 256);   // 16,392 PEs
}

TEST_CASE("MPI picks E0, E1 or rendezvous by size", "[gemini][mpi]") {
  const Json nodes{{"node_list", {0, 2}}};
  // Per round trip: E0 is one SMSG each way; E1 and rendezvous are a header, a GET request,
  // its response and a FIN each way.
  CHECK(messages_per_round("mpi", 8, nodes) == 2);
  CHECK(messages_per_round("mpi", 4096, nodes) == 8);
  CHECK(messages_per_round("mpi", 65536, nodes) == 8);
  // On one node MPI uses shared memory, not the NIC: no network message at all.
  CHECK(messages_per_round("mpi", 4096, {{"node_list", {0}}, {"ranks_per_node", 2}}) == 0);
}

TEST_CASE("MPI's small-message latency is its calibration point", "[gemini][mpi]") {
  // 1.27 us between the two nodes of one Gemini (LANL PPT hopper_config.py).
  CHECK(latency_us(run(hopper("mpi", {{"node_list", {0, 1}}}, pingpong({8})))) == Approx(1.27).epsilon(0.01));
  // Each router hop adds 105 ns.
  const double one_hop = latency_us(run(hopper("mpi", {{"node_list", {0, 2}}}, pingpong({8}))));
  const double two_hops = latency_us(run(hopper("mpi", {{"node_list", {0, 4}}}, pingpong({8}))));
  CHECK(two_hops - one_hop == Approx(0.105).epsilon(0.01));
}

TEST_CASE("a uGNI put ping-pong is cheaper than MPI's", "[gemini][ugni]") {
  const Json nodes{{"node_list", {0, 2}}};
  const double put = latency_us(run(hopper("ugni", nodes, pingpong({8}, "put_pingpong"))));
  const double mpi = latency_us(run(hopper("mpi", nodes, pingpong({8}))));
  CHECK(put < mpi);
  // Post (150 ns + 12 ns per request), one hop of network (0.70 us), the target's CQ poll (50 ns).
  CHECK(put == Approx(0.162 + 0.700 + 0.050).epsilon(0.02));
}

TEST_CASE("SMSG credits pace a sender that outruns its receiver", "[gemini][ugni]") {
  const Json nodes{{"node_list", {0, 2}}};
  const Json stream{{"name", "bandwidth"}, {"sizes", {64}}, {"window", 64}, {"iterations", 1}, {"warmup", 0}};
  const double plenty = run(hopper("ugni", nodes, stream)).output.metrics["peak_bandwidth_MBps"].get<double>();
  const double one = run(hopper("ugni", nodes, stream, {{"smsg_credits", 1}})).output.metrics["peak_bandwidth_MBps"].get<double>();
  CHECK(one < plenty / 2);  // each message waits for the previous one's credit to come back
}

TEST_CASE("BTE transfers pay their set-up and run at the engine's rate", "[gemini][ugni]") {
  const Json nodes{{"node_list", {0, 2}}};
  const double fma = latency_us(run(hopper("ugni", nodes, pingpong({1024}, "put"))));
  const double bte = latency_us(run(hopper("ugni", nodes, pingpong({2048}, "put"))));
  CHECK(bte - fma > 0.9);  // 1 us of BTE set-up, minus FMA's per-request cost
  // A 4 MiB GET (rendezvous) is paced by the BTE engine's 6.911 GB/s, not the link.
  const auto big = run(hopper("mpi", nodes, pingpong({4 << 20})));
  CHECK((4 << 20) / latency_us(big) / 1e3 == Approx(6.911).epsilon(0.03));
}

TEST_CASE("memory registration is paid once per buffer", "[gemini]") {
  const Json nodes{{"node_list", {0, 2}}};
  auto r = run(hopper("ugni", nodes, {{"name", "pingpong"}, {"sizes", {65536}}, {"iterations", 1}, {"warmup", 0},
                                      {"operation", "put"}}));
  auto warm = run(hopper("ugni", nodes, {{"name", "pingpong"}, {"sizes", {65536}}, {"iterations", 1}, {"warmup", 1},
                                         {"operation", "put"}}));
  // 3 us per call plus 100 ns per 4 KiB page: 4.6 us the first time only.
  CHECK(latency_us(r) - latency_us(warm) == Approx(4.6).epsilon(0.01));
}

TEST_CASE("Charm++ adds its send, allocation and scheduler costs to every message", "[gemini][charm]") {
  const Json nodes{{"node_list", {0, 2}}};
  const double ugni = latency_us(run(hopper("ugni", nodes, pingpong({8}))));
  const double charm = latency_us(run(hopper("charm_ugni", nodes, pingpong({8}))));
  // send 300 + alloc 50 (sender) + alloc 50 (receiver) + scheduler 200 ns = 0.6 us, plus the
  // 72 B envelope: the 8 B message becomes two 64 B packets instead of one (about 11 ns on an
  // X link) and 80 B to copy out of the mailbox (8 ns).
  CHECK(charm - ugni > 0.6);
  CHECK(charm - ugni < 0.625);
  const double charm_mpi = latency_us(run(hopper("charm_mpi", nodes, pingpong({8}))));
  CHECK(charm_mpi > charm);
}

TEST_CASE("Charm++ over uGNI: pxshm on a node, persistent messages without a handshake", "[gemini][charm]") {
  // On one node: no network message at all.
  CHECK(messages_per_round("charm_ugni", 65536, {{"node_list", {0}}, {"ranks_per_node", 2}}) == 0);
  // A large message is a control message, a GET request and response, and an ack.
  CHECK(messages_per_round("charm_ugni", 65536, {{"node_list", {0, 2}}}) == 8);
}

TEST_CASE("a run's core time by use and idle add up to ranks x elapsed", "[gemini][breakdown]") {
  const auto r = run(hopper("charm_mpi", {{"nodes", 2}, {"ranks_per_node", 4}},
                            {{"name", "nqueens"}, {"board", 8}, {"grain", 4}}));
  double sum = 0;
  for (const auto& [use, us] : r.counters["core_time_us"].items()) sum += us.get<double>();
  CHECK(sum == Approx(8 * to_microseconds(r.simulated_time)).epsilon(1e-9));
  CHECK(r.counters["core_time_us"]["compute"].get<double>() > 0);
  CHECK(r.counters["core_time_us"]["scheduler"].get<double>() > 0);
}

TEST_CASE("a ping-pong's latency breaks down into core time by use and the wire", "[gemini][breakdown]") {
  const auto r = run(hopper("ugni", {{"node_list", {0, 2}}}, pingpong({8}, "put_pingpong")));
  const auto& s = r.output.series.at(1);
  REQUIRE(s.name == "latency_breakdown");
  auto at = [&](const std::string& column) {
    return s.rows.at(0).at(static_cast<std::size_t>(std::find(s.columns.begin(), s.columns.end(), column) - s.columns.begin()));
  };
  // Per one-way put: FMA post (150 ns) and one 64 B request (12 ns); the target's CQ poll (50 ns);
  // the rest is one hop of network, 0.70 us.
  CHECK(at("send_us") == Approx(0.162).margin(1e-6));
  CHECK(at("poll_us") == Approx(0.050).margin(1e-6));
  CHECK(at("wait_us") == Approx(0.700).margin(0.005));
  CHECK(at("latency_us") == Approx(latency_us(r)).margin(1e-9));
}
