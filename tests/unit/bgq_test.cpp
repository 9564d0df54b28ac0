#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "models/runtime/bluegene_q/mpich_pamid.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/scratch_path.hpp"

using namespace torsim;

namespace {

// A Blue Gene/Q scenario document (preset expanded).
Json bgq(const std::string& layer, const Json& placement, const Json& workload,
         const std::string& preset = "bgq-midplane") {
  Json doc{{"machine", preset}, {"runtime", {{"layer", layer}}}, {"placement", placement}, {"workload", workload}};
  return Scenario(doc, "test").doc();
}

PointResult run(const Json& doc) { return Simulation(doc, Where("test"), 1).run(); }

Json pingpong(const Json& sizes, const std::string& operation = "send_recv") {
  return {{"name", "pingpong"}, {"sizes", sizes}, {"iterations", 4}, {"warmup", 1}, {"operation", operation}};
}

double latency_ns(const PointResult& r, std::size_t row = 0) { return r.output.series.at(0).rows.at(row).at(1) * 1e3; }

struct Midplane {
  Machine machine = test::make_machine(
      Scenario(Json{{"machine", "bgq-midplane"}, {"workload", {{"name", "pingpong"}}}}, "m").doc().at("machine"));
  double ns(Time t) const { return static_cast<double>(t) / kNanosecond; }
  double copy(Bytes b) const { return ns(transfer_time(b, machine.node.memcpy_bandwidth)); }
  double wire(topo::NodeId a, topo::NodeId b, Bytes bytes) const { return ns(test::closed_form(machine, a, b, bytes)); }
};

}  // namespace

TEST_CASE("Blue Gene/Q presets derive from the midplane", "[bgq]") {
  const auto sequoia = load_preset("sequoia", Where("test"));
  const Machine m = test::make_machine(sequoia.machine);
  CHECK(m.node_count() == 98304);
  CHECK(m.core_count() == 98304 * 16);
  CHECK(m.node.threads_per_core == 4);
  CHECK(m.nic.at("model") == "bgq_mu");
  // Where each value comes from: the size from sequoia.json, the rest from the midplane's.
  CHECK(sequoia.file_of("/topology/dims/0/size").ends_with("sequoia.json"));
  CHECK(sequoia.file_of("/topology/dims/0/link_bandwidth").ends_with("bgq-midplane.json"));
  // A 64-node block is a mesh where it covers part of a midplane's ring, a torus on C and E.
  const Machine block = test::make_machine(load_preset("bgq-64", Where("test")).machine);
  CHECK(block.node_count() == 64);
  CHECK(block.topology->summary().diameter == 1 + 1 + 2 + 1 + 1);
}

TEST_CASE("an error in a derived preset names the file that gave the value", "[bgq]") {
  namespace fs = std::filesystem;
  const fs::path data = test::scratch_path("torsim-derived-presets");
  fs::create_directories(data / "scenarios" / "machines");
  const Json base = load_preset("bgq-32", Where("test")).machine;
  std::ofstream(data / "scenarios" / "machines" / "base.json") << base.dump();
  std::ofstream(data / "scenarios" / "machines" / "derived.json")
      << R"({"preset": "base", "name": "derived", "node": {"memcpy_bandwidth": "fast"}})";
  std::ofstream(data / "scenarios" / "machines" / "loop.json") << R"({"preset": "loop"})";
  setenv("TORSIM_DATA", data.c_str(), 1);
  const Scenario scenario(Json{{"machine", "derived"}, {"workload", {{"name", "pingpong"}}}}, "scenario.json");
  try {
    Simulation(scenario.doc(), Where("scenario.json"), 1);
    FAIL("expected an input error");
  } catch (const InputError& e) {
    try {
      scenario.reraise(e);
    } catch (const InputError& attributed) {
      CHECK(attributed.file().ends_with("derived.json"));
      CHECK(attributed.path() == "/node/memcpy_bandwidth");
    }
  }
  CHECK_THROWS_WITH(load_preset("loop", Where("test")), Catch::Contains("loop"));
  unsetenv("TORSIM_DATA");
  fs::remove_all(data);
}

TEST_CASE("ranks beyond two per core stretch their software costs", "[bgq]") {
  auto stretched = [](int ranks_per_node) {
    Simulation sim(bgq("pami", {{"node_list", {0, 1}}, {"ranks_per_node", ranks_per_node}}, pingpong({8})),
                   Where("test"), 1);
    return sim.layer()->cores().occupy(0, 100 * kNanosecond, rt::CpuUse::send);
  };
  CHECK(stretched(16) == 100 * kNanosecond);
  CHECK(stretched(32) == 100 * kNanosecond);  // two threads per core run at full speed
  CHECK(stretched(64) == 200 * kNanosecond);  // four share the issue slots of two
  CHECK_THROWS_WITH(
      Simulation(bgq("pami", {{"node_list", {0, 1}}, {"ranks_per_node", 65}}, pingpong({8})), Where("test"), 1),
      Catch::Contains("at most 64 ranks per node"));
}

TEST_CASE("PAMI_Send_immediate latency is the calls' costs plus the wire", "[bgq][pami]") {
  const Midplane m;
  const auto& p = m.machine.runtimes.at("pami");
  const double send = 250, dispatch = 150;  // the preset's immediate_cpu and dispatch_cpu
  REQUIRE(p.at("immediate_cpu") == "250ns");
  REQUIRE(p.at("dispatch_cpu") == "150ns");
  const double expected = send + m.copy(8) + m.wire(0, 1, 8) + dispatch + m.copy(8);
  CHECK(latency_ns(run(bgq("pami", {{"node_list", {0, 1}}}, pingpong({8})))) == Approx(expected).epsilon(1e-4));
  // Each hop adds the 40 ns link latency (the packet is cut through).
  const double one = latency_ns(run(bgq("pami", {{"node_list", {0, 1}}}, pingpong({8}))));
  const double nine = latency_ns(run(bgq("pami", {{"node_list", {0, 426}}}, pingpong({8}))));
  CHECK(nine - one == Approx(8 * 40).epsilon(1e-3));
}

TEST_CASE("MPI over PAMI charges SST's calibrated send and receive times", "[bgq][mpi]") {
  const Midplane m;
  // 8 B: immediate (tx 1100 ns, rx 530 ns + match 250 ns); the MPI header rides along.
  const double small = 1100 + m.wire(0, 1, 16 + 8) + 530 + 250;
  CHECK(latency_ns(run(bgq("mpi_pami", {{"node_list", {0, 1}}}, pingpong({8})))) == Approx(small).epsilon(1e-4));
  // 256 B: one eager packet (tx 1850, rx 1100); the request completes at local completion.
  const double medium = 1850 + m.wire(0, 1, 16 + 256) + 1100 + 250;
  CHECK(latency_ns(run(bgq("mpi_pami", {{"node_list", {0, 1}}}, pingpong({256})))) == Approx(medium).epsilon(1e-4));
  // MPI is PAMI plus MPI's share: slower at every size of the ladder.
  for (const Bytes size : {Bytes{1}, Bytes{100}, Bytes{1000}, Bytes{4096}, Bytes{1 << 20}}) {
    const double pami = latency_ns(run(bgq("pami", {{"node_list", {0, 1}}}, pingpong({size}))));
    const double mpi = latency_ns(run(bgq("mpi_pami", {{"node_list", {0, 1}}}, pingpong({size}))));
    CHECK(pami < mpi);
  }
}

TEST_CASE("MPI over PAMI follows its protocol ladder", "[bgq][mpi]") {
  auto messages = [](Bytes size) {
    auto r = run(bgq("mpi_pami", {{"node_list", {0, 1}}},
                     {{"name", "pingpong"}, {"sizes", {size}}, {"iterations", 1}, {"warmup", 0}}));
    return r.counters["messages"].get<std::uint64_t>();
  };
  CHECK(messages(112) == 2);   // Send_immediate each way
  CHECK(messages(2048) == 2);  // eager: one PAMI_Send each way
  // Rendezvous: envelope, remote get, the data (its completion packet rides behind it), the
  // acknowledgement.
  CHECK(messages(2049) == 8);
}

TEST_CASE("one-sided: PAMI's remote get needs no target CPU, MPI adds its epoch", "[bgq][pami]") {
  const Midplane m;
  const double trailer = m.ns(transfer_time(m.machine.packet.wire_bytes(0), 2'000'000'000));
  const double rget = 300 + m.wire(0, 1, 64) + m.wire(1, 0, 8) + trailer + 100;
  const double simulated = latency_ns(run(bgq("pami", {{"node_list", {0, 1}}}, pingpong({8}, "get"))));
  // The completion packet follows the data out of the target's MU: its serialisation, not a
  // second latency.
  CHECK(simulated == Approx(rget).epsilon(1e-3));
  const double mpi = latency_ns(run(bgq("mpi_pami", {{"node_list", {0, 1}}}, pingpong({8}, "get"))));
  CHECK(mpi > simulated + 2 * 2 * m.wire(0, 1, 16));  // lock and unlock: two round trips
}

TEST_CASE("the message unit pins a rank's messages to one FIFO per direction", "[bgq][mu]") {
  Simulation sim(bgq("pami", {{"node_list", {0, 1, 4, 6}}, {"ranks_per_node", 1}}, pingpong({8})), Where("test"), 1);
  auto& layer = dynamic_cast<rt::PamiLayer&>(*sim.layer());
  const auto& mu = layer.mu();
  CHECK(mu.fifo_of(0, 1) == 0);  // A+
  CHECK(mu.fifo_of(0, 2) == 2);  // B+
  CHECK(mu.fifo_of(0, 3) == 3);  // two hops in A, one in B: 3 hops, modulo 10
  Simulation crowded(bgq("pami", {{"node_list", {0, 1}}, {"ranks_per_node", 64}}, pingpong({8})), Where("test"), 1);
  CHECK(dynamic_cast<rt::PamiLayer&>(*crowded.layer()).mu().fifos_per_context() == 8);
  // Two 64 KiB sends in one direction leave one after the other (the first arrives before the
  // second starts to share its link); in two directions, together.
  auto arrivals = [](const Json& nodes) {
    Simulation s(bgq("pami", {{"node_list", nodes}}, pingpong({8})), Where("test"), 1);
    auto& l = *s.layer();
    std::vector<Time> arrived;
    auto send = [&](rt::Rank dst) -> Task<> { (void)co_await l.isend(0, dst, 65536, 1, 0); };
    auto receive = [&](rt::Rank self) -> Task<> {
      co_await l.irecv(self, 0, 1);
      arrived.push_back(l.kernel().now());
    };
    for (const rt::Rank r : {1, 2}) l.kernel().spawn(receive(r));
    for (const rt::Rank r : {1, 2}) l.kernel().spawn(send(r));
    l.kernel().run();
    return arrived;
  };
  const auto one_direction = arrivals({0, 1, 2});   // nodes 1 and 2: both A+
  const auto two_directions = arrivals({0, 1, 4});  // node 1 A+, node 4 B+
  REQUIRE(one_direction.size() == 2);
  REQUIRE(two_directions.size() == 2);
  CHECK(one_direction[1] - one_direction[0] > 30 * kMicrosecond);  // a 64 KiB message takes 35 us
  CHECK(two_directions[1] - two_directions[0] < kMicrosecond);
}

TEST_CASE("the class route combines in the network", "[bgq][collective]") {
  const Midplane m;
  auto allreduce = [](const Json& placement, const std::string& layer = "mpi_pami") {
    return run(bgq(layer, placement, {{"name", "collective"}, {"operation", "allreduce"}, {"size", "8B"}}));
  };
  // On two neighbours the root is node 0: one hop up, one down, the NIC latency once.
  const double hop = 40 + m.ns(transfer_time(72, 2'000'000'000));
  const double two = allreduce({{"node_list", {0, 1}}}).output.metrics["completion_time_us"].get<double>() * 1e3;
  CHECK(two == Approx(2 * hop + 300 + m.copy(8)).epsilon(1e-4));
  // A midplane's tree is 2 + 2 + 2 + 2 + 1 hops deep; its time grows with that depth, not
  // with log2 of the ranks as point-to-point algorithms do.
  const double midplane = allreduce({{"ranks_per_node", 16}}).output.metrics["completion_time_us"].get<double>() * 1e3;
  CHECK(midplane == Approx(2 * 9 * hop + 300 + m.copy(8) + 15 * 10).epsilon(0.01));
  // Nodes that are not a rectangular block have no class route: point-to-point instead.
  const double scattered = allreduce({{"node_list", {0, 5}}}).output.metrics["completion_time_us"].get<double>() * 1e3;
  CHECK(scattered > 2000);
}
