#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>

#include "models/runtime/bluegene_p/gasnet_dcmf.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"

using namespace torsim;

namespace {

// A scenario on an Intrepid preset (expanded), one rank per node unless `placement` says.
Json intrepid(const std::string& layer, const Json& placement, const Json& workload,
              const std::string& preset = "intrepid-512") {
  Json doc{{"machine", preset}, {"runtime", {{"layer", layer}}}, {"placement", placement}, {"workload", workload}};
  return Scenario(doc, "test").doc();
}

PointResult run(const Json& doc) { return Simulation(doc, Where("test"), 1).run(); }

double latency_us(const PointResult& r, std::size_t row = 0) { return r.output.series.at(0).rows.at(row).at(1); }

Json pingpong(const Json& sizes, const std::string& operation = "send_recv") {
  return {{"name", "pingpong"}, {"sizes", sizes}, {"iterations", 4}, {"warmup", 1}, {"operation", operation}};
}

const Json kNeighbours{{"node_list", {0, 1}}};

// A job on an Intrepid partition whose ranks run programs given by the test.
struct BgpJob {
  Simulation sim;
  explicit BgpJob(const std::string& layer, const Json& placement = kNeighbours)
      : sim(intrepid(layer, placement, pingpong({8})), Where("test"), 1) {}
  rt::MessagingLayer& layer() { return *sim.layer(); }
  rt::Comm comm(rt::Rank r) { return rt::Comm(layer(), r); }
  Kernel& kernel() { return sim.kernel(); }
};

Task<> busy_then_receive(rt::Comm c, Time busy, Time& received) {
  rt::Request in = c.irecv(0);
  co_await c.compute(busy);
  co_await in;
  received = c.now();
}

Task<> send_and_time(rt::Comm c, Bytes size, Time& sent) {
  co_await c.send(1, size);
  sent = c.now();
}

Task<> put_and_time(rt::Comm c, Bytes size, Time& done) {
  co_await c.put(1, size);
  done = c.now();
}

Task<> busy(rt::Comm c, Time t) { co_await c.compute(t); }

// An idle wait (the core stays free to handle what arrives), then a blocking send or receive.
Task<> send_at(rt::Comm c, Time at, Bytes size, Time& sent) {
  co_await c.kernel().sleep(at);
  co_await send_and_time(c, size, sent);
}
Task<> receive_at(rt::Comm c, Time at, Time& received) {
  co_await c.kernel().sleep(at);
  co_await c.recv(0);
  received = c.now();
}

Task<> barrier_and_time(rt::Comm c, Time delay, Time& done) {
  co_await c.compute(delay);
  co_await c.barrier();
  done = c.now();
}

}  // namespace

TEST_CASE("Intrepid presets: meshes below 512 nodes, tori from 512, one calibration", "[bgp]") {
  const Json reference = Scenario(Json{{"machine", "intrepid-512"}, {"workload", pingpong({8})}}, "t").doc()["machine"];
  for (int nodes : {64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}) {
    const std::string name = "intrepid-" + std::to_string(nodes);
    INFO(name);
    Json m = Scenario(Json{{"machine", name}, {"workload", pingpong({8})}}, "t").doc()["machine"];
    const Machine machine = parse_machine(m, Where(name));
    CHECK(machine.node_count() == nodes);
    CHECK(m["topology"]["type"] == (nodes < 512 ? "mesh" : "torus"));
    for (const auto& dim : m["topology"]["dims"]) CHECK(dim["wrap"] == (nodes >= 512));
    // Everything but the shape is the same calibrated parameter set.
    for (const char* key : {"name", "description", "topology"}) m.erase(key);
    Json same = reference;
    for (const char* key : {"name", "description", "topology"}) same.erase(key);
    CHECK(m == same);
  }
}

TEST_CASE("node modes name the processes per node", "[bgp]") {
  for (auto [mode, ranks] : {std::pair{"SMP", 1}, {"DUAL", 2}, {"VN", 4}}) {
    Simulation sim(intrepid("raw", {{"nodes", 2}, {"mode", mode}}, pingpong({8})), Where("test"), 1);
    CHECK(sim.layer()->size() == 2 * ranks);
  }
  CHECK_THROWS_WITH(Simulation(intrepid("raw", {{"nodes", 2}, {"mode", "CO"}}, pingpong({8})), Where("test"), 1),
                    Catch::Contains("unknown node mode 'CO'"));
  CHECK_THROWS_WITH(Simulation(intrepid("raw", {{"nodes", 2}, {"mode", "VN"}, {"ranks_per_node", 4}}, pingpong({8})),
                               Where("test"), 1),
                    Catch::Contains("either 'mode' or 'ranks_per_node'"));
}

TEST_CASE("the torus DMA's latency and MPI's are their calibration points", "[bgp]") {
  // 0.5 us between nearest neighbours for one small packet (16 B payload, 32 B on the wire).
  CHECK(latency_us(run(intrepid("raw", kNeighbours, pingpong({16})))) == Approx(0.5).epsilon(0.002));
  // MPI: 2.75 us for 8 B between torus neighbours.
  CHECK(latency_us(run(intrepid("mpi_dcmf", kNeighbours, pingpong({8})))) == Approx(2.75).epsilon(0.002));
  // Each torus hop adds 100 ns.
  const double far = latency_us(run(intrepid("mpi_dcmf", {{"node_list", {0, 3}}}, pingpong({8}))));
  CHECK(far - 2.75 == Approx(0.2).epsilon(0.01));
}

TEST_CASE("a GASNet put + sync costs its software, the data, the DMA's turnaround and the ack", "[bgp][gasnet]") {
  // Issue: GASNet 150 + DCMF_Put 400 ns. Data 8 B + the 32 B remote-get descriptor behind it:
  // one 64 B packet, 325 + 100 + 150.6 ns. Turnaround 200 ns. Ack (16 B, a 32 B packet):
  // 325 + 100 + 75.3 ns. Poll 200, the packet 100, sync 100 ns.
  const double expected = 0.550 + 0.5756 + 0.200 + 0.5003 + 0.400;
  CHECK(latency_us(run(intrepid("gasnet_dcmf", kNeighbours, pingpong({8}, "put")))) == Approx(expected).epsilon(0.001));
  // A get: 150 + 300 ns, the 32 B descriptor out (a 48 B packet), the turnaround, 8 B back,
  // the poll and the sync.
  const double get = 0.450 + (0.425 + 48 / 425.0) + 0.200 + 0.5003 + 0.300;
  CHECK(latency_us(run(intrepid("gasnet_dcmf", kNeighbours, pingpong({8}, "get")))) == Approx(get).epsilon(0.001));
}

TEST_CASE("MPI over DCMF: eager below 1,200 B, its own rendezvous from it on", "[bgp][mpi]") {
  auto messages = [](Bytes size) {
    auto r = run(intrepid(
        "mpi_dcmf", kNeighbours,
        {{"name", "pingpong"}, {"operation", "ping_ack"}, {"sizes", {size}}, {"iterations", 1}, {"warmup", 0}}));
    return r.counters["messages"].get<std::uint64_t>();
  };
  CHECK(messages(1199) == 2);  // the data, the zero-byte reply
  CHECK(messages(1200) == 5);  // request to send, get request, data, acknowledgement, reply
}

TEST_CASE("a put needs no core at its target; MPI's rendezvous waits for the receiver's", "[bgp]") {
  const Time receiver_busy = 100 * kMicrosecond;
  {
    BgpJob job("gasnet_dcmf");
    Time done = 0;
    job.kernel().spawn(busy(job.comm(1), receiver_busy));
    job.kernel().spawn(put_and_time(job.comm(0), 4096, done));
    job.kernel().run();
    CHECK(done < 20 * kMicrosecond);
  }
  for (Bytes size : {Bytes{64}, Bytes{4096}}) {
    BgpJob job("mpi_dcmf");
    Time sent = 0, received = 0;
    job.kernel().spawn(busy_then_receive(job.comm(1), receiver_busy, received));
    job.kernel().spawn(send_and_time(job.comm(0), size, sent));
    job.kernel().run();
    INFO("size " << size);
    CHECK(received > receiver_busy);
    // Eager: the send completes once injected; rendezvous: after the receiver's core is back.
    if (size < 1200)
      CHECK(sent < 5 * kMicrosecond);
    else
      CHECK(sent > receiver_busy);
  }
}

TEST_CASE("an MPI rendezvous whose receive is posted late waits for it, then gets the data", "[bgp][mpi]") {
  const Time late = 100 * kMicrosecond;
  struct Times {
    Time sent = 0, received = 0;
  };
  auto run_at = [](Time send, Time receive) {
    BgpJob job("mpi_dcmf");
    Times t;
    job.kernel().spawn(receive_at(job.comm(1), receive, t.received));
    job.kernel().spawn(send_at(job.comm(0), send, 4096, t.sent));
    job.kernel().run();
    return t;
  };
  const Times rts_waits = run_at(0, late);      // the request to send is in long before the receive
  const Times receive_waits = run_at(late, 0);  // the receive is posted long before the send
  CHECK(rts_waits.received > late);
  // Waiting, the request to send has already crossed and been handled: only the get is left.
  CHECK(rts_waits.received < receive_waits.received);
  // From the data's arrival on, the protocol is the same: the ack back to the sender.
  CHECK(rts_waits.sent - rts_waits.received == receive_waits.sent - receive_waits.received);
  CHECK(rts_waits.sent > rts_waits.received);
}

TEST_CASE("barriers use the barrier network; MPI's allreduce the collective network", "[bgp]") {
  BgpJob job("mpi_dcmf", {{"nodes", 8}});
  std::vector<Time> done(8);
  for (rt::Rank r = 0; r < 8; ++r) job.kernel().spawn(barrier_and_time(job.comm(r), r * kMicrosecond, done[r]));
  job.kernel().run();
  // The last rank enters at 7 us (after a 200 ns poll): all leave 1 us later.
  for (Time t : done) CHECK(t == 7 * kMicrosecond + 200 * kNanosecond + kMicrosecond);
  auto& dma = dynamic_cast<rt::DcmfLayer&>(job.layer()).dma();
  CHECK(dma.tree_depth() == 3);  // 8 nodes in a binary tree: 1 + 2 + 4 + 1
  // A double-precision sum of 16 B: two passes up and down 3 levels, one 256 B packet each.
  const Time now = job.kernel().now();
  const Time pass = 6 * 100 * kNanosecond + transfer_time(256, 850000000);
  CHECK(dma.tree_operation(now, 16, 2, true, true) == now + 2 * pass);
}

TEST_CASE("GASNet moves more than MPI in a mid-size flood", "[bgp][gasnet]") {
  auto bandwidth = [](const std::string& layer, const std::string& operation) {
    Json flood{{"name", "flood"}, {"operation", operation}, {"links", {2}}, {"sizes", {4096}},
               {"window", 8},     {"iterations", 2}};
    return run(intrepid(layer, {{"mode", "SMP"}}, flood)).output.metrics["peak_bandwidth_MBps"].get<double>();
  };
  const double gasnet = bandwidth("gasnet_dcmf", "put"), mpi = bandwidth("mpi_dcmf", "send_recv");
  CHECK(gasnet > mpi);
  CHECK(gasnet < 2 * 2 * 425 * 240.0 / 256);  // two links, both ways, 240 B of payload per 256 B packet
}

TEST_CASE("the 3D FFT charges the NAS flops and moves every point twice", "[bgp][fft]") {
  // 64 x 32 x 32 points on 16 ranks (4 nodes in VN mode): a 4 x 4 thread grid.
  Json fft{{"name", "fft3d"}, {"nx", 64}, {"ny", 32}, {"nz", 32}};
  for (const char* variant : {"upc_slabs", "mpi_slabs", "mpi_packed_slabs"}) {
    INFO(variant);
    fft["variant"] = variant;
    const std::string layer = std::string(variant) == "upc_slabs" ? "gasnet_dcmf" : "mpi_dcmf";
    const auto r = run(intrepid(layer, {{"nodes", 4}, {"mode", "VN"}}, fft, "intrepid-64"));
    const auto& m = r.output.metrics;
    CHECK(m["ranks_done"] == 16);
    CHECK(m["thread_grid_ty"] == 4);
    // Per rank: 4,096 points, 5 log2(N) flops each for the FFT plus 5.23518 for the evolve.
    const double flops = 4096 * (5 * std::log2(64.0 * 32 * 32) + 5.23518);
    CHECK(m["computation_ms"].get<double>() == Approx(flops * 1.96e-6).epsilon(1e-4));
    CHECK(m["communication_ms"].get<double>() > 0);
    // The breakdown series: communication, computation and packing add up to the iteration.
    const auto& parts = r.output.series.at(1);
    REQUIRE(parts.name == "fft_breakdown");
    CHECK(parts.rows.at(0).at(1) + parts.rows.at(0).at(2) + parts.rows.at(0).at(3) ==
          Approx(m["iteration_ms"].get<double>()).epsilon(1e-9));
    // Every point but a rank's own blocks crosses a node boundary or a copy, twice.
    CHECK(r.counters["payload_bytes"].get<double>() >= 2 * 64 * 32 * 32 * 16 * 3 / 4.0);
  }
}
