#include <catch2/catch.hpp>

#include <map>

#include "run/simulation.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/input_error.hpp"

using namespace torsim;
using namespace torsim::test;

namespace {

// A 4x4 torus at 5 GB/s per link, 10 GB/s injection, 500 ns NIC latency, 100 ns per hop.
Json scenario(const Json& workload, const Json& placement = Json::object()) {
  return {{"machine", machine_json(torus_json({4, 4}, {"5GB/s", "5GB/s"}))},
          {"placement", placement},
          {"workload", workload}};
}

PointResult run(const Json& doc) {
  Simulation sim(doc, Where("test"), 1);
  return sim.run();
}

const Series& series(const PointResult& r, const std::string& name) {
  for (const auto& s : r.output.series)
    if (s.name == name) return s;
  FAIL("no series " << name);
  return r.output.series.front();
}

double metric(const PointResult& r, const char* name) { return r.output.metrics.at(name).get<double>(); }

InputError check_error(const Json& doc) {
  return input_error_of([&] { Simulation sim(doc, Where("test"), 1); });
}

}  // namespace

TEST_CASE("ping-pong one-way latency is the network's closed form on the raw layer", "[workloads]") {
  const auto r =
      run(scenario({{"name", "pingpong"}, {"sizes", {8, 4096, 65536}}, {"iterations", 3}}, {{"node_list", {0, 5}}}));
  const auto& rows = series(r, "latency").rows;
  REQUIRE(rows.size() == 3);
  // Nodes 0 and 5 are 2 hops apart: 500 ns + 2 x 100 ns + wire bytes at 5 GB/s.
  for (const auto& row : rows) {
    const auto bytes = static_cast<Bytes>(row[0]);
    const Bytes wire = bytes + ((bytes + 63) / 64) * 32;
    CHECK(row[1] == Approx(to_microseconds(700 * kNanosecond + transfer_time(wire, 5000000000))).epsilon(1e-9));
  }
  CHECK(r.blocked_processes == 0);
}

TEST_CASE("one-sided ping-pong times a round trip", "[workloads]") {
  const auto r = run(scenario({{"name", "pingpong"}, {"sizes", {8}}, {"operation", "put"}}, {{"node_list", {0, 1}}}));
  // The put goes one hop and a zero-byte ack comes back.
  const Time expected = 2 * (600 * kNanosecond) + transfer_time(40, 5000000000) + transfer_time(32, 5000000000);
  CHECK(series(r, "latency").rows[0][1] == Approx(to_microseconds(expected)).epsilon(1e-9));
}

TEST_CASE("streaming bandwidth approaches the bottleneck's payload rate", "[workloads]") {
  const auto uni = run(scenario({{"name", "bandwidth"}, {"sizes", {1 << 20}}, {"window", 8}, {"iterations", 2}},
                                {{"node_list", {0, 1}}}));
  const double payload_rate = 5000.0 * 64 / 96;  // MB/s: 64 B of payload per 96 B packet
  CHECK(metric(uni, "peak_bandwidth_MBps") == Approx(payload_rate).epsilon(0.02));
  const auto bi =
      run(scenario({{"name", "bandwidth"}, {"sizes", {1 << 20}}, {"window", 8}, {"iterations", 2}, {"direction", "bi"}},
                   {{"node_list", {0, 1}}}));
  CHECK(metric(bi, "peak_bandwidth_MBps") == Approx(2 * payload_rate).epsilon(0.02));
}

TEST_CASE("message rate counts every message", "[workloads]") {
  const auto r = run(scenario({{"name", "message_rate"}, {"pairs", 2}, {"window", 16}, {"iterations", 4}},
                              {{"nodes", 2}, {"ranks_per_node", 2}}));
  CHECK(metric(r, "peak_million_messages_per_s") > 0);
  CHECK(r.counters["messages"].get<int>() == 2 * 4 * (16 + 1));  // data plus one ack per window
}

TEST_CASE("flood bandwidth grows with the links in use", "[workloads]") {
  const auto r = run(scenario({{"name", "flood"},
                               {"links", {1, 2, 4}},
                               {"sizes", {65536}},
                               {"window", 4},
                               {"iterations", 2},
                               {"bidirectional", false}}));
  const auto& rows = series(r, "flood").rows;
  REQUIRE(rows.size() == 3);
  // Injection (10 GB/s) lets two 5 GB/s links run at full speed; four are injection-bound.
  CHECK(rows[1][2] == Approx(2 * rows[0][2]).epsilon(0.03));
  CHECK(rows[2][2] == Approx(rows[0][2] * 10.0 / 5.0).epsilon(0.03));
}

TEST_CASE("traffic patterns deliver every message", "[workloads]") {
  const std::vector<std::pair<std::string, int>> expected{
      {"shift", 16 * 3},           {"random_permutation", 16 * 3},   {"bit_complement", 16 * 3}, {"incast", 15 * 3},
      {"all_to_all", 16 * 15 * 3}, {"nearest_neighbor", 16 * 4 * 3}, {"uniform_random", 16 * 3}};
  for (const auto& [pattern, count] : expected) {
    INFO(pattern);
    const auto r = run(scenario({{"name", "traffic"}, {"pattern", pattern}, {"size", "2KiB"}, {"messages", 3}}));
    CHECK(metric(r, "messages_delivered") == count);
    CHECK(metric(r, "completion_time_us") > 0);
    CHECK(r.blocked_processes == 0);
  }
}

TEST_CASE("open-loop arrivals offer their mean rate: periodic, Bernoulli and Poisson", "[workloads]") {
  // 16 ranks each offering 0.5 GB/s of 1 KiB messages, a tenth of their links: the network
  // accepts what is offered; random arrivals queue more than periodic ones.
  std::map<std::string, double> latency;
  for (const std::string arrivals : {"periodic", "bernoulli", "poisson"}) {
    INFO(arrivals);
    Json workload = {{"name", "traffic"}, {"pattern", "uniform_random"}, {"size", "1KiB"},      {"messages", 2000},
                     {"window", 100000},  {"offered_rate", "0.5GB/s"},   {"arrivals", arrivals}};
    const auto r = run(scenario(workload));
    CHECK(metric(r, "accepted_GBps_per_rank") == Approx(0.5).epsilon(0.05));
    CHECK(metric(r, "messages_delivered") == 16 * 2000);
    latency[arrivals] = metric(r, "mean_latency_us");
  }
  CHECK(latency["bernoulli"] > latency["periodic"]);
  CHECK(latency["poisson"] > latency["periodic"]);
}

TEST_CASE("random arrivals need an open loop, and a slot no longer than the mean gap", "[workloads]") {
  auto e = check_error(scenario({{"name", "traffic"}, {"pattern", "uniform_random"}, {"arrivals", "poisson"}}));
  CHECK(e.path() == "/workload/arrivals");
  e = check_error(scenario({{"name", "traffic"},
                            {"pattern", "uniform_random"},
                            {"offered_rate", "1GB/s"},
                            {"size", "1KiB"},
                            {"arrivals", "bernoulli"},
                            {"slot", "2us"}}));
  CHECK(e.path() == "/workload/slot");
  CHECK_THAT(e.message(), Catch::Contains("mean gap"));
  e = check_error(
      scenario({{"name", "traffic"}, {"pattern", "uniform_random"}, {"offered_rate", "1GB/s"}, {"slot", "1ns"}}));
  CHECK(e.path() == "/workload/slot");
}

TEST_CASE("an incast is paced by the receiver's ejection link", "[workloads]") {
  // Network links four times faster than the nodes' links, so the ejection is the bottleneck
  // (at 5 GB/s, eight sources share one Y link into the target under dimension order).
  Json doc = scenario({{"name", "traffic"}, {"pattern", "incast"}, {"size", "64KiB"}, {"messages", 4}});
  doc["machine"]["topology"] = torus_json({4, 4}, {"40GB/s", "40GB/s"});
  const auto r = run(doc);
  const Bytes wire = 65536 + 1024 * 32;
  const double ejection_bound_us = to_microseconds(transfer_time(15 * 4 * wire, 10000000000));
  CHECK(metric(r, "completion_time_us") >= ejection_bound_us);
  CHECK(metric(r, "completion_time_us") < ejection_bound_us * 1.05);
}

TEST_CASE("the latency map grows with hops", "[workloads]") {
  const auto r = run(scenario({{"name", "traffic"}, {"pattern", "latency_map"}, {"size", "8B"}}));
  const auto& rows = series(r, "latency_map").rows;
  REQUIRE(rows.size() == 15);
  for (const auto& row : rows)  // 500 ns + 100 ns per hop + 40 B at 5 GB/s (or 10 GB/s with 0 hops)
    CHECK(row[3] == Approx(0.5 + 0.1 * row[2] + 0.008).epsilon(1e-9));
}

TEST_CASE("workloads reject jobs they cannot run", "[workloads]") {
  auto e = check_error(scenario({{"name", "traffic"}, {"pattern", "bit_complement"}}, {{"nodes", 12}}));
  CHECK_THAT(e.message(), Catch::Contains("power-of-two number of ranks"));
  e = check_error(scenario({{"name", "flood"}, {"links", {5}}}));
  CHECK_THAT(e.message(), Catch::Contains("has 4"));
  e = check_error(scenario({{"name", "pingpong"}, {"peer", 3}}, {{"nodes", 2}}));
  CHECK_THAT(e.message(), Catch::Contains("needs at least 4 ranks"));
  CHECK(e.path() == "/workload");
}
