// The SimGrid backend. SimGrid runs one simulation per process, so every run here happens in
// a forked child (ctest also runs each test case in a process of its own).
#include <catch2/catch.hpp>

#include <array>
#include <deque>

#include <sys/wait.h>
#include <unistd.h>

#include "run/scenario.hpp"
#include "run/simulation.hpp"
#include "tests/support/fixtures.hpp"

using namespace torsim;
using namespace torsim::test;

namespace {

// Delivery time of each flow, all started at time 0 on one network, run in a forked child.
std::vector<Time> run_together(const Machine& m, const Json& spec, const std::vector<std::array<int, 3>>& flows) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    Kernel k;
    auto network = net::make_network_model(spec, Where("test"), k, m);
    std::deque<Completion> done;
    for (auto [src, dst, bytes] : flows) {
      done.push_back({-1, -1, &k});
      network->start(done.back().request(src, dst, bytes));
    }
    network->drive(k);
    std::vector<Time> times;
    for (const auto& c : done) times.push_back(c.delivered);
    const auto size = times.size() * sizeof(Time);
    const bool ok = ::write(fds[1], times.data(), size) == static_cast<ssize_t>(size);
    ::_exit(ok ? 0 : 1);
  }
  ::close(fds[1]);
  std::vector<Time> times(flows.size(), -2);
  std::size_t got = 0;
  const auto want = times.size() * sizeof(Time);
  while (got < want) {
    const auto n = ::read(fds[0], reinterpret_cast<char*>(times.data()) + got, want - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(got == want);
  return times;
}

const Json kSimgrid{{"model", "simgrid"}};

}  // namespace

TEST_CASE("simgrid: an uncontended message takes the packet model's closed form", "[network][simgrid]") {
  // Per-dimension bandwidths, two nodes per router and an injection link slower than the
  // fastest network link, so the bottleneck moves with the route.
  const Machine m = make_machine(machine_json(torus_json({4, 3, 5}, {"9.375GB/s", "4.68GB/s", "7GB/s"}, 2), "8.3GB/s"));
  const std::vector<std::array<int, 2>> pairs{{0, 1}, {0, 2}, {0, 7}, {3, 40}, {0, 119}, {17, 100}};
  for (Bytes bytes : {Bytes{0}, Bytes{1}, Bytes{64}, Bytes{4097}, Bytes{(1 << 20) + 3}}) {
    for (const char* sharing : {"LV08", "CM02"}) {
      std::vector<std::array<int, 3>> one;
      for (auto [src, dst] : pairs) {
        const auto t =
            run_together(m, {{"model", "simgrid"}, {"sharing", sharing}}, {{src, dst, static_cast<int>(bytes)}});
        INFO(sharing << " bytes " << bytes << " " << src << " -> " << dst);
        // Within 1 ps: the closed form rounds each serialisation up to a whole picosecond,
        // SimGrid's double-precision clock is rounded to the nearest one.
        CHECK(std::abs(t[0] - closed_form(m, src, dst, bytes)) <= 1);
      }
    }
  }
}

TEST_CASE("simgrid: intra-node transfers take the memcpy path", "[network][simgrid]") {
  const Machine m = make_machine(machine_json(torus_json({4}, {"5GB/s"}), "40GB/s"));
  const auto t = run_together(m, kSimgrid, {{1, 1, 8000}, {1, 1, 8000}});
  // 100 ns + 8000 B / 8 GB/s = 1.1 us, then the second copy queues behind the first.
  CHECK(t[0] == 1'100'000);
  CHECK(t[1] == 2'100'000);
}

TEST_CASE("simgrid: two flows sharing a link each get half of it", "[network][simgrid]") {
  // The same 3-router line as the packet model's test: 0->4 and 1->5 share both 5 GB/s links.
  const Machine m = make_machine(machine_json(torus_json({3}, {"5GB/s"}, 2, "dimension_order", false), "40GB/s"));
  const int bytes = 4 << 20;
  const Time alone = run_together(m, kSimgrid, {{0, 4, bytes}})[0];
  const auto shared = run_together(m, kSimgrid, {{0, 4, bytes}, {1, 5, bytes}});
  const Time serialisation = transfer_time(m.packet.wire_bytes(bytes), 5000000000);
  for (Time t : shared) CHECK(std::abs(static_cast<double>(t - alone - serialisation)) < 0.01 * serialisation);
  // The sharing models differ for flows of different route latencies, not for these two.
  const auto cm02 = run_together(m, {{"model", "simgrid"}, {"sharing", "CM02"}}, {{0, 4, bytes}, {1, 5, bytes}});
  CHECK(cm02 == shared);
}

TEST_CASE("simgrid: same scenario and seed give identical results, sweeps run in one process", "[network][simgrid]") {
  const Json doc = Json::parse(R"({
    "machine": {"preset": "bgq-midplane"},
    "network": {"model": "simgrid"},
    "workload": {"name": "traffic", "pattern": "uniform_random", "size": "4KiB", "messages": 8, "window": 4}
  })");
  const Scenario scenario(doc, "test");
  auto first = Simulation(scenario.doc(), Where("test"), 7).run();
  auto second = Simulation(scenario.doc(), Where("test"), 7).run();
  CHECK(first.simulated_time > 0);
  CHECK(first.simulated_time == second.simulated_time);
  CHECK(first.output.metrics == second.output.metrics);
  CHECK(first.counters == second.counters);
  CHECK(first.link_busy == second.link_busy);
  CHECK(first.job["network_model"] == "simgrid");
  CHECK(first.counters["messages"] == 512 * 8);
}

TEST_CASE("simgrid: bad options are input errors", "[network][simgrid]") {
  const Machine m = make_machine(machine_json(torus_json({4}, {"5GB/s"}), "40GB/s"));
  Kernel k;
  CHECK_THROWS_AS(net::make_network_model({{"model", "simgrid"}, {"sharing", "TCP"}}, Where("test"), k, m), InputError);
  CHECK_THROWS_AS(net::make_network_model({{"model", "simgrid"}, {"crosstraffic", 3}}, Where("test"), k, m),
                  InputError);
  CHECK_THROWS_AS(net::make_network_model({{"model", "simgrid"}, {"train_bytes", "4KiB"}}, Where("test"), k, m),
                  InputError);
}
