// InfiniBand on the node's side: the PCIe link model, the HCA and its verbs, and MVAPICH2's
// protocol ladder over them; and on the fabric's side, what a user of the presets sees.
#include <catch2/catch.hpp>

#include "models/nic/pcie.hpp"
#include "models/runtime/infiniband/mvapich2.hpp"
#include "models/runtime/infiniband/verbs.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"

using namespace torsim;

namespace {

// A scenario document on a preset (expanded), with machine overrides.
Json scenario(const std::string& preset, const std::string& layer, const Json& placement, const Json& workload,
              const Json& machine = Json::object()) {
  Json m = machine;
  m["preset"] = preset;
  return Scenario(
             Json{{"machine", m}, {"runtime", {{"layer", layer}}}, {"placement", placement}, {"workload", workload}},
             "test")
      .doc();
}

PointResult run(const Json& doc) { return Simulation(doc, Where("test"), 1).run(); }

Json pingpong(const Json& sizes, const std::string& operation = "send_recv") {
  return {{"name", "pingpong"}, {"sizes", sizes}, {"iterations", 3}, {"warmup", 1}, {"operation", operation}};
}

double latency_us(const PointResult& r, std::size_t row = 0) { return r.output.series.at(0).rows.at(row).at(1); }

double peak_MBps(const Json& doc) { return run(doc).output.metrics["peak_bandwidth_MBps"].get<double>(); }

nic::PcieParams pcie(int generation, int lanes) {
  const Json link = {{"generation", generation}, {"lanes", lanes}, {"latency", "150ns"}, {"read_latency", "300ns"}};
  return nic::parse_pcie(ParamReader(link, Where("test"), nic::kPcieParams));
}

}  // namespace

TEST_CASE("PCIe: link rates and TLP overheads from the specification", "[pcie]") {
  CHECK(nic::pcie_link_rate(2, 8) == 4'000'000'000);    // 8 x 5 GT/s x 8/10 / 8
  CHECK(nic::pcie_link_rate(3, 16) == 15'753'846'153);  // 16 x 8 GT/s x 128/130 / 8
  CHECK(nic::pcie_link_rate(1, 1) == 250'000'000);
  CHECK(nic::pcie_tlp_overhead(2) == 8);   // sequence 2, LCRC 4, STP + END 2
  CHECK(nic::pcie_tlp_overhead(3) == 10);  // gen3's 4 B start token
  Kernel kernel;
  nic::PcieLink link(kernel, pcie(2, 8));
  CHECK(link.tlp_bytes(1024, 256, 16) == 1024 + 4 * 24);
  CHECK(link.tlp_bytes(0, 256, 16) == 24);  // a header-only TLP
  CHECK(link.write_throughput() == 4'000'000'000LL * 256 / 280);
  CHECK(link.read_throughput() == 4'000'000'000LL * 256 / 276);  // completions: 12 B headers
}

TEST_CASE("PCIe: posted writes, MMIO writes and DMA reads on an idle link", "[pcie]") {
  Kernel kernel;
  nic::PcieLink link(kernel, pcie(2, 8));
  // 512 B to memory: two 256 B TLPs of 280 link bytes, then the link's latency.
  CHECK(link.write_to_memory(0, 512) == transfer_time(560, 4'000'000'000) + 150 * kNanosecond);
  // A 64 B doorbell-page write: one TLP of 64 + 24 B.
  CHECK(link.write_to_device(0, 64) == transfer_time(88, 4'000'000'000) + 150 * kNanosecond);
  // A 1 KiB read: two requests (24 B each) out, the first crosses, memory answers, four
  // completions (256 + 20 B) stream back and cross.
  nic::PcieLink idle(kernel, pcie(2, 8));
  const Time first_request = transfer_time(24, 4'000'000'000);
  CHECK(idle.read_from_memory(0, 1024) == first_request + 150 * kNanosecond + 300 * kNanosecond +
                                              transfer_time(4 * 276, 4'000'000'000) + 150 * kNanosecond);
  // Writes queue behind each other in one direction; reads' completions use the other.
  nic::PcieLink busy(kernel, pcie(2, 8));
  const Time one = busy.write_to_memory(0, 256);
  CHECK(busy.write_to_memory(0, 256) == one + transfer_time(280, 4'000'000'000));
  CHECK(busy.busy_to_memory() == 2 * transfer_time(280, 4'000'000'000));
}

TEST_CASE("PCIe: reads are bounded by the outstanding read tags per round trip", "[pcie]") {
  Kernel kernel;
  auto p = pcie(3, 16);
  p.read_tags = 2;
  nic::PcieLink link(kernel, p);
  // Round trip 2 x 150 + 300 = 600 ns; 2 tags x 512 B per 600 ns = 1.707 GB/s, far below the link.
  CHECK(link.read_throughput() == 2 * 512 * kSecond / (600 * kNanosecond));
  const Time done = link.read_from_memory(0, 1 << 20);
  CHECK(done > Time{1 << 20} * 600 * kNanosecond / 1024);
}

TEST_CASE("one stream's bandwidth is the slower of the wire and the host interface", "[infiniband][bandwidth]") {
  const Json stream{{"name", "bandwidth"}, {"sizes", {4 << 20}}, {"window", 16}, {"iterations", 2}, {"warmup", 1}};
  const Json nodes{{"node_list", {0, 18}}};
  // Gen2 x8 behind QDR: posted writes of 256 B payloads carry 4 GB/s x 256/280 = 3,657 MB/s,
  // below the wire's 4 GB/s x 2048/2074 = 3,950 MB/s.
  const double gen2 = peak_MBps(scenario("qdr-cluster", "mpi", nodes, stream));
  CHECK(gen2 <= 3657.2);
  CHECK(gen2 > 3657.2 * 0.98);
  // Gen3 x16: the wire is the narrower pipe.
  const double gen3 = peak_MBps(
      scenario("qdr-cluster", "mpi", nodes, stream, {{"nic", {{"pcie", {{"generation", 3}, {"lanes", 16}}}}}}));
  CHECK(gen3 <= 3950.0);
  CHECK(gen3 > 3950.0 * 0.98);
  // The ceiling the HCA reports is the same bound.
  Simulation sim(scenario("qdr-cluster", "mpi", nodes, stream), Where("test"), 1);
  CHECK(dynamic_cast<rt::InfinibandLayer*>(sim.layer())->hca().stream_ceiling() == 4'000'000'000LL * 256 / 280);
}

TEST_CASE("latency grows by two switch traversals from a same-leaf pair to a cross-spine pair",
          "[infiniband][latency]") {
  for (const std::string layer : {"verbs", "mpi"})
    for (const std::string preset : {"qdr-cluster", "wilkes"}) {
      INFO(layer << " on " << preset);
      const int far = preset == "wilkes" ? 16 : 18;  // the first node of the second leaf
      const double same_leaf = latency_us(run(scenario(preset, layer, {{"node_list", {0, 1}}}, pingpong({8}))));
      const double across = latency_us(run(scenario(preset, layer, {{"node_list", {0, far}}}, pingpong({8}))));
      const double link_latency = preset == "wilkes" ? 0.130 : 0.100;
      CHECK(across - same_leaf == Approx(2 * link_latency).margin(1e-6));
    }
}

TEST_CASE("verbs: an RDMA write's wire bytes are its packets' headers and payload", "[infiniband][verbs]") {
  // 10 KiB on a 4 KiB MTU: three packets (26 B each, RETH 16 B on the first), then a 30 B
  // acknowledgement (26 + AETH 4).
  const auto r =
      run(scenario("wilkes", "verbs", {{"node_list", {0, 16}}},
                   {{"name", "pingpong"}, {"sizes", {10240}}, {"iterations", 1}, {"warmup", 0}, {"operation", "put"}}));
  CHECK(r.counters["messages"] == 4);
  CHECK(r.counters["wire_bytes"] == 10240 + 3 * 26 + 16 + 30);
}

TEST_CASE("verbs: a send waits for a posted receive; the registration cache keeps recent buffers",
          "[infiniband][verbs]") {
  Simulation sim(scenario("qdr-cluster", "verbs", {{"node_list", {0, 1}}}, pingpong({8})), Where("test"), 1);
  auto& hca = dynamic_cast<rt::InfinibandLayer*>(sim.layer())->hca();
  Kernel& kernel = sim.layer()->kernel();
  Time arrived = -1;
  auto sender = [&]() -> Task<> {
    co_await hca.send(0, 1, 8, 0, {[](void* t, std::uint64_t) { *static_cast<Time*>(t) = 1; }, &arrived, 0});
  };
  kernel.spawn(sender());
  kernel.run_until(100 * kMicrosecond);
  CHECK(arrived == -1);  // no receive posted: the message waits (RNR)
  CHECK(hca.counters().receive_queue_waits == 1);
  hca.post_receives(1, 0, 1);
  kernel.run();
  CHECK(arrived == 1);
  // Registration: a miss costs the call and the pages, a hit nothing; the least recently used
  // buffer leaves a full cache (1,024 entries on this preset).
  CHECK(hca.register_memory(0, 1, 8192) == 10 * kMicrosecond + 2 * 250 * kNanosecond);
  CHECK(hca.register_memory(0, 1, 8192) == 0);
  for (std::uint64_t b = 2; b <= 1025; ++b) (void)hca.register_memory(0, b, 4096);
  CHECK(hca.register_memory(0, 1, 8192) > 0);
  CHECK(hca.counters().registration_hits == 1);
  CHECK(hca.counters().registration_misses == 1026);
}

TEST_CASE("verbs: an RDMA read costs a round trip more than a write", "[infiniband][verbs]") {
  const Json nodes{{"node_list", {0, 18}}};
  const double put = latency_us(run(scenario("qdr-cluster", "verbs", nodes, pingpong({8}, "put"))));
  const double get = latency_us(run(scenario("qdr-cluster", "verbs", nodes, pingpong({8}, "get"))));
  CHECK(get > put);
  // Both wait for a message back (the acknowledgement, the data) and the completion: the read
  // adds the responder's DMA read of the data across its PCIe.
  CHECK(get - put > 0.45);
}

TEST_CASE("MVAPICH2's ladder: fast path, eager send/receive, rendezvous, shared memory", "[infiniband][mpi]") {
  const auto work_requests = [](Bytes size, const Json& placement, const Json& machine = Json::object()) {
    Simulation sim(scenario("wilkes", "mpi", placement,
                            {{"name", "pingpong"}, {"sizes", {size}}, {"iterations", 1}, {"warmup", 0}}, machine),
                   Where("test"), 1);
    sim.run();
    return dynamic_cast<rt::InfinibandLayer*>(sim.layer())->hca().counters().work_requests;
  };
  const Json nodes{{"node_list", {0, 16}}};
  // Per round trip: one RDMA write into the ring each way (5 KiB fast-path buffers).
  CHECK(work_requests(1024, nodes) == 2);
  // Above the fast path, below the 20 KiB eager limit: a send each way.
  CHECK(work_requests(8192, nodes) == 2);
  // Rendezvous (RPUT): RTS, CTS, the data (striped over both rails from 16 KiB), FIN each way.
  CHECK(work_requests(65536, nodes) == 2 * 5);
  CHECK(work_requests(65536, nodes, {{"runtimes", {{"mpi", {{"striping_threshold", "1MiB"}}}}}}) == 2 * 4);
  // On one node, shared memory: no work request at all.
  CHECK(work_requests(65536, {{"node_list", {0}}, {"ranks_per_node", 2}}) == 0);
}

TEST_CASE("MPI: a ring without free slots falls back to send/receive", "[infiniband][mpi]") {
  // A burst of 64 small messages with one receive posted per connection: whatever leaves the
  // fast path finds the receive queue empty and waits for the receiver to post again.
  const auto receive_waits = [](int ring_slots) {
    const Json burst{{"name", "bandwidth"}, {"sizes", {64}}, {"window", 64}, {"iterations", 1}, {"warmup", 0}};
    const Json mpi{{"fast_path_buffers", ring_slots}, {"prepost_depth", 1}};
    Simulation sim(scenario("qdr-cluster", "mpi", {{"node_list", {0, 18}}}, burst, {{"runtimes", {{"mpi", mpi}}}}),
                   Where("test"), 1);
    sim.run();
    return dynamic_cast<rt::InfinibandLayer*>(sim.layer())->hca().counters().receive_queue_waits;
  };
  CHECK(receive_waits(64) == 0);  // every message (and the acknowledgement back) on a ring
  CHECK(receive_waits(2) > 0);
}

TEST_CASE("\"layer\": \"mpi\" resolves by the machine's NIC", "[infiniband][mpi]") {
  Simulation wilkes(scenario("wilkes", "mpi", {{"node_list", {0, 1}}}, pingpong({8})), Where("test"), 1);
  CHECK(dynamic_cast<rt::Mvapich2Layer*>(wilkes.layer()) != nullptr);
  try {
    Simulation bad(scenario("wilkes", "ugni", {{"node_list", {0, 1}}}, pingpong({8})), Where("test"), 1);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK_THAT(e.message(), Catch::Contains("needs a Gemini NIC"));
  }
  try {
    Simulation bad(scenario("hopper", "verbs", {{"node_list", {0, 1}}}, pingpong({8})), Where("test"), 1);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.path() == "/runtime");
    CHECK_THAT(e.message(), Catch::Contains("needs InfiniBand HCAs"));
  }
}

TEST_CASE("a layer on a machine without its NIC names the NIC, not a calibration the machine lacks",
          "[infiniband][runtime]") {
  const std::pair<std::string, std::string> layers[] = {{"pami", "needs a Blue Gene/Q message unit"},
                                                        {"dcmf", "needs a Blue Gene/P NIC"},
                                                        {"mpi_dcmf", "needs a Blue Gene/P NIC"},
                                                        {"gasnet_dcmf", "needs a Blue Gene/P NIC"}};
  for (const auto& [layer, expected] : layers) {
    CAPTURE(layer);
    try {
      Simulation bad(scenario("hopper", layer, {{"node_list", {0, 1}}}, pingpong({8})), Where("test"), 1);
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(e.path() == "/runtime");
      CHECK_THAT(e.message(), Catch::Contains(expected));
    }
  }
}

TEST_CASE("effective bisection bandwidth: static routing loses, adaptive routing brings it back toward 1",
          "[infiniband][routing]") {
  const auto fraction = [](const std::string& routing) {
    const Json ebb{{"name", "bisection"}, {"size", "64KiB"}, {"messages", 2}, {"pairings", 6}};
    Json doc = Scenario(Json{{"machine", {{"preset", "qdr-cluster"}, {"topology", {{"routing", routing}}}}},
                             {"workload", ebb}},
                        "test")
                   .doc();
    return run(doc).output.metrics["effective_bisection_fraction"].get<double>();
  };
  const double minhop = fraction("minhop"), random = fraction("random"), adaptive = fraction("adaptive");
  INFO("minhop " << minhop << ", random " << random << ", adaptive " << adaptive);
  CHECK(minhop < 0.7);
  CHECK(random < 0.7);
  CHECK(adaptive > minhop + 0.15);
  CHECK(adaptive > random + 0.15);
}

TEST_CASE("the channel-load bound holds for every pattern on the fat tree", "[infiniband][routing]") {
  // No pattern finishes before its busiest link has carried its bytes: the bound is each
  // link's busy time on the analytic model (the same messages on the same routes), and the
  // packet model, with or without credit flow control, may not beat it. Under adaptive
  // routing the routes differ per packet: only the node links, which it cannot avoid, count.
  const std::vector<Json> patterns{{{"pattern", "shift"}, {"distance", 1}},
                                   {{"pattern", "shift"}, {"distance", 17}},
                                   {{"pattern", "shift"}, {"distance", 71}},
                                   {{"pattern", "random_permutation"}},
                                   {{"pattern", "all_to_all"}},
                                   {{"pattern", "incast"}},
                                   {{"pattern", "uniform_random"}}};
  for (const std::string routing : {"dmodk", "minhop", "random", "adaptive"})
    for (const Json& pattern : patterns) {
      Json workload{{"name", "traffic"},
                    {"size", pattern["pattern"] == "all_to_all" ? "2KiB" : "16KiB"},
                    {"messages", pattern["pattern"] == "all_to_all" ? 1 : 4},
                    {"window", 4}};
      workload.update(pattern);
      // Credit flow control's adaptive routing keeps an escape channel beside the adaptive one.
      Json machine{{"preset", "qdr-cluster"}, {"topology", {{"routing", routing}}}};
      if (routing == "adaptive") machine["router"] = {{"virtual_channels", 2}};
      const auto doc = [&](const Json& network) {
        return Scenario(Json{{"machine", machine}, {"network", network}, {"workload", workload}}, "test").doc();
      };
      const auto bound = run(doc({{"model", "analytic"}}));
      Simulation probe(doc({{"model", "analytic"}}), Where("test"), 1);
      const auto& topology = *probe.machine().topology;
      Time busiest = 0;
      for (topo::LinkId l = 0; l < topology.link_count(); ++l)
        if (routing != "adaptive" || topology.link(l).kind != topo::LinkKind::network)
          busiest = std::max(busiest, bound.link_busy[static_cast<std::size_t>(l)]);
      for (const std::string flow_control : {"none", "credit"}) {
        INFO(routing << ", " << pattern.dump() << ", flow control " << flow_control);
        const auto packet = run(doc({{"model", "packet"}, {"flow_control", flow_control}}));
        CHECK(packet.simulated_time >= busiest);
        CHECK(packet.output.metrics["messages_delivered"] == bound.output.metrics["messages_delivered"]);
      }
    }
}
