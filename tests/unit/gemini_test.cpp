#include <catch2/catch.hpp>

#include "models/runtime/gemini/charm.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"
#include "tests/support/layer_job.hpp"

using namespace torsim;
using rt::Comm;

namespace {

// A Hopper scenario document (preset expanded) with the given layer, placement and workload.
Json hopper(const std::string& layer, const Json& placement, const Json& workload, const Json& nic = Json::object()) {
  Json doc{{"machine", {{"preset", "hopper"}, {"nic", nic}}},
           {"runtime", {{"layer", layer}}},
           {"placement", placement},
           {"workload", workload}};
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
  // Per round trip: E0 is one SMSG each way; E1 is a header, a GET request, its response and
  // a FIN each way; rendezvous GETs 64 KiB in two pieces of at most 44 KiB (two requests, two
  // responses).
  CHECK(messages_per_round("mpi", 8, nodes) == 2);
  CHECK(messages_per_round("mpi", 4096, nodes) == 8);
  CHECK(messages_per_round("mpi", 65536, nodes) == 12);
  // On one node MPI uses shared memory, not the NIC: no network message at all.
  CHECK(messages_per_round("mpi", 4096, {{"node_list", {0}}, {"ranks_per_node", 2}}) == 0);
}

TEST_CASE("MPI's small-message latency is its calibration point", "[gemini][mpi]") {
  // 1.27 us between the two nodes of one Gemini (LANL PPT hopper_config.py).
  CHECK(latency_us(run(hopper("mpi", {{"node_list", {0, 1}}}, pingpong({8})))) == Approx(1.27).epsilon(0.01));
  // Each router hop adds 105 ns (without the progress engine's polling passes, whose phase
  // moves with the arrival time).
  auto no_passes = [](Json doc) {
    doc["machine"]["runtimes"]["mpi"]["progress_cpu"] = "0ns";
    return doc;
  };
  const double one_hop = latency_us(run(no_passes(hopper("mpi", {{"node_list", {0, 2}}}, pingpong({8})))));
  const double two_hops = latency_us(run(no_passes(hopper("mpi", {{"node_list", {0, 4}}}, pingpong({8})))));
  CHECK(two_hops - one_hop == Approx(0.105).epsilon(0.01));
}

TEST_CASE("a uGNI put ping-pong is cheaper than MPI's", "[gemini][ugni]") {
  const Json nodes{{"node_list", {0, 2}}};
  const double put = latency_us(run(hopper("ugni", nodes, pingpong({8}, "put_pingpong"))));
  const double mpi = latency_us(run(hopper("mpi", nodes, pingpong({8}))));
  CHECK(put < mpi);
  // Post (150 ns + 12 ns per request), one hop of network (0.70 us), the target's CQ poll (50 ns),
  // and up to one 50 ns pass of its polling loop before it sees the event.
  CHECK(put >= 0.162 + 0.700 + 0.050 - 1e-9);
  CHECK(put <= 0.162 + 0.700 + 0.050 + 0.050);
}

TEST_CASE("SMSG credits pace a sender that outruns its receiver", "[gemini][ugni]") {
  const Json nodes{{"node_list", {0, 2}}};
  const Json stream{{"name", "bandwidth"}, {"sizes", {64}}, {"window", 64}, {"iterations", 1}, {"warmup", 0}};
  const double plenty = run(hopper("ugni", nodes, stream)).output.metrics["peak_bandwidth_MBps"].get<double>();
  const double one =
      run(hopper("ugni", nodes, stream, {{"smsg_credits", 1}})).output.metrics["peak_bandwidth_MBps"].get<double>();
  CHECK(one < plenty / 2);  // each message waits for the previous one's credit to come back
}

TEST_CASE("BTE transfers pay their set-up and run at the engine's rate", "[gemini][ugni]") {
  const Json nodes{{"node_list", {0, 2}}};
  const double fma = latency_us(run(hopper("ugni", nodes, pingpong({1024}, "put"))));
  const double bte = latency_us(run(hopper("ugni", nodes, pingpong({2048}, "put"))));
  CHECK(bte - fma > 0.9);  // 1 us of BTE set-up, minus FMA's per-request cost
  // A 4 MiB GET in one piece (rendezvous) is paced by the BTE engine's 6.911 GB/s, not the link.
  Json doc = hopper("mpi", nodes, pingpong({4 << 20}));
  doc["machine"]["runtimes"]["mpi"]["rdma_chunk"] = "0B";
  const auto big = run(doc);
  CHECK((4 << 20) / latency_us(big) / 1e3 == Approx(6.911).epsilon(0.03));
}

TEST_CASE("memory registration is paid once per buffer", "[gemini]") {
  const Json nodes{{"node_list", {0, 2}}};
  auto r =
      run(hopper("ugni", nodes,
                 {{"name", "pingpong"}, {"sizes", {65536}}, {"iterations", 1}, {"warmup", 0}, {"operation", "put"}}));
  auto warm =
      run(hopper("ugni", nodes,
                 {{"name", "pingpong"}, {"sizes", {65536}}, {"iterations", 1}, {"warmup", 1}, {"operation", "put"}}));
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

TEST_CASE("a Charm++ put or get is a message and an acknowledgement from the target", "[gemini][charm]") {
  const Json nodes{{"node_list", {0, 2}}};
  for (const std::string layer : {"charm_ugni", "charm_mpi"}) {
    const double message = latency_us(run(hopper(layer, nodes, pingpong({8}))));  // one way
    for (const std::string operation : {"put", "get"}) {
      INFO(layer << " " << operation);
      const auto r = run(hopper(layer, nodes, pingpong({8}, operation)));
      CHECK(r.blocked_processes == 0);  // the acknowledgement came back
      // There and back: more than one message's latency, less than two 8 B ones plus slack.
      CHECK(latency_us(r) > message);
      CHECK(latency_us(r) < 2 * message + 0.5);
    }
  }
}

TEST_CASE("Charm++ over uGNI: pxshm on a node, persistent messages without a handshake", "[gemini][charm]") {
  // On one node: no network message at all.
  CHECK(messages_per_round("charm_ugni", 65536, {{"node_list", {0}}, {"ranks_per_node", 2}}) == 0);
  // A large message is a control message, a GET request and response, and an ack.
  CHECK(messages_per_round("charm_ugni", 65536, {{"node_list", {0, 2}}}) == 8);
}

TEST_CASE("a run's core time by use and idle add up to ranks x elapsed", "[gemini][breakdown]") {
  const auto r = run(
      hopper("charm_mpi", {{"nodes", 2}, {"ranks_per_node", 4}}, {{"name", "nqueens"}, {"board", 8}, {"grain", 4}}));
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
    return s.rows.at(0).at(
        static_cast<std::size_t>(std::find(s.columns.begin(), s.columns.end(), column) - s.columns.begin()));
  };
  // Per one-way put: FMA post (150 ns) and one 64 B request (12 ns); the target's CQ poll (50 ns);
  // the rest is one hop of network, 0.70 us, and part of a 50 ns pass of the target's polling loop.
  CHECK(at("send_us") == Approx(0.162).margin(1e-6));
  CHECK(at("poll_us") == Approx(0.050).margin(1e-6));
  CHECK(at("wait_us") >= 0.700 - 0.001);
  CHECK(at("wait_us") <= 0.750 + 0.001);
  CHECK(at("latency_us") == Approx(latency_us(r)).margin(1e-9));
}

// ---- Mechanisms of the Gemini layers, one test each (each fails without its mechanism)

namespace {

// A Hopper job with the given layer and nodes (one rank each unless told otherwise), for tests
// that drive the layer with their own processes.
struct HopperJob : test::LayerJob {
  HopperJob(const std::string& layer_name, const Json& placement, const Json& machine_overrides = Json::object())
      : LayerJob(hopper_machine(machine_overrides), Json{{"layer", layer_name}}, placement) {}
  static Json hopper_machine(const Json& overrides) {
    Json machine = overrides;
    machine["preset"] = "hopper";
    return Scenario(Json{{"machine", machine}, {"workload", {{"name", "pingpong"}}}}, "test").doc()["machine"];
  }
  template <class T>
  T& as() {
    return dynamic_cast<T&>(*layer);
  }
};

Task<> send_then_note(Comm c, rt::Rank dst, Bytes size, Time& done) {
  co_await c.send(dst, size);
  done = c.now();
}

Task<> receive_then_note(Comm c, rt::Rank src, Time& done) {
  co_await c.recv(src);
  done = c.now();
}

Task<> busy_then_receive(Comm c, Time busy, rt::Rank src, Time& done) {
  co_await c.compute(busy);
  co_await c.recv(src);
  done = c.now();
}

double core_us(const PointResult& r, const char* use) { return r.counters["core_time_us"][use].get<double>(); }

Json stream(Bytes size, int window = 64) {
  return {{"name", "bandwidth"}, {"sizes", {size}}, {"window", window}, {"iterations", 2}, {"warmup", 1}};
}

}  // namespace

TEST_CASE("MPI sets up a connection on first contact with a peer, once", "[gemini][mpi][mechanism]") {
  HopperJob j("mpi", {{"node_list", {0, 2}}});
  auto& mpi = j.as<rt::CrayMpichLayer>();
  CHECK_FALSE(mpi.connected(0, 1));
  Time first = 0, second = 0, got = 0;
  j.kernel.spawn(send_then_note(j.comm(0), 1, 8, first));
  j.kernel.spawn(receive_then_note(j.comm(1), 0, got));
  j.kernel.run();
  CHECK(mpi.connected(0, 1));
  CHECK(mpi.connected(1, 0));  // one connection serves both ways
  const Time begin = j.kernel.now();
  j.kernel.spawn(send_then_note(j.comm(1), 0, 8, second));
  j.kernel.spawn(receive_then_note(j.comm(0), 1, got));
  j.kernel.run();
  // Both sides' set-up (4 us each) and a datagram each way (0.70 us each) came first, once.
  const Time connect = 2 * 4'000'000 + 2 * 700'000;
  CHECK(got - begin < 2'000'000);
  const auto& by_use = j.layer->cores().time_by_use();
  CHECK(by_use[rt::CpuUse::connection] == 2 * 4'000'000);
  CHECK(first >= connect);
}

TEST_CASE("without dynamic connections MPI pays no set-up", "[gemini][mpi][mechanism]") {
  const Json nodes{{"node_list", {0, 2}}};
  const Json once{{"name", "pingpong"}, {"sizes", {8}}, {"iterations", 1}, {"warmup", 0}};
  const auto dynamic = run(hopper("mpi", nodes, once));
  Json doc = hopper("mpi", nodes, once);
  doc["machine"]["runtimes"]["mpi"]["dynamic_connections"] = false;
  const auto fixed = run(doc);
  CHECK(core_us(dynamic, "connection") == Approx(8.0));
  CHECK(core_us(fixed, "connection") == 0);
  CHECK(latency_us(dynamic) - latency_us(fixed) == Approx((8.0 + 1.4) / 2).margin(0.3));
}

TEST_CASE("MPI matching costs more with more receives posted", "[gemini][mpi][mechanism]") {
  auto match_us = [](int posted) {
    HopperJob j("mpi", {{"node_list", {0, 2}}});
    std::vector<rt::Request> waiting;
    for (int k = 0; k < posted; ++k) waiting.push_back(j.layer->irecv(1, 0, 100 + k));  // never matched
    Time done = 0, got = 0;
    j.kernel.spawn(send_then_note(j.comm(0), 1, 8, done));
    j.kernel.spawn(receive_then_note(j.comm(1), 0, got));
    j.kernel.run();
    return to_microseconds(j.layer->cores().time_by_use()[rt::CpuUse::match]);
  };
  // 10 ns per posted receive searched (match_entry_cpu).
  CHECK(match_us(100) - match_us(0) == Approx(100 * 0.010).margin(0.011));
}

TEST_CASE("MPI copies an eager message twice when no receive was waiting", "[gemini][mpi][mechanism]") {
  auto copies = [](Time receiver_busy) {
    // (No connection to set up: that would need the busy receiver's progress engine first.)
    HopperJob j("mpi", {{"node_list", {0, 2}}}, {{"runtimes", {{"mpi", {{"dynamic_connections", false}}}}}});
    Time done = 0, got = 0;
    j.kernel.spawn(send_then_note(j.comm(0), 1, 512, done));  // E0: out of the mailbox
    j.kernel.spawn(busy_then_receive(j.comm(1), receiver_busy, 0, got));
    j.kernel.run();
    return static_cast<double>(j.layer->cores().time_by_use()[rt::CpuUse::copy]) /
           static_cast<double>(transfer_time(512, j.machine.node.memcpy_bandwidth));
  };
  CHECK(copies(0) == Approx(1));           // the receive was posted: straight into it
  CHECK(copies(50'000'000) == Approx(2));  // posted late: into MPI's buffer, then into it
}

TEST_CASE("MPI's E1 sender waits for a free DMA buffer", "[gemini][mpi][mechanism]") {
  const Json nodes{{"node_list", {0, 2}}};
  Json doc = hopper("mpi", nodes, stream(4096));
  const double plenty = run(doc).output.metrics["peak_bandwidth_MBps"].get<double>();
  doc["machine"]["runtimes"]["mpi"]["eager_buffers"] = 1;
  const double one = run(doc).output.metrics["peak_bandwidth_MBps"].get<double>();
  CHECK(one < plenty / 2);  // each E1 message waits for the previous one's FIN
}

TEST_CASE("MPI's E0 limit shrinks with the job like the SMSG mailboxes", "[gemini][mpi][mechanism]") {
  auto limit = [](int nodes) {
    HopperJob j("mpi", {{"nodes", nodes}, {"ranks_per_node", 24}});
    return j.as<rt::CrayMpichLayer>().vshort_max();
  };
  CHECK(limit(170) == 1024);
  CHECK(limit(171) == 512);
  CHECK(limit(683) == 256);
}

TEST_CASE("the BTE engine's set-up makes a transfer cut in pieces slower", "[gemini][mechanism]") {
  const Json nodes{{"node_list", {0, 2}}};
  Json doc = hopper("mpi", nodes, stream(1 << 20));
  doc["machine"]["runtimes"]["mpi"]["rdma_chunk"] = "0B";
  const double whole = run(doc).output.metrics["peak_bandwidth_MBps"].get<double>();
  doc["machine"]["runtimes"]["mpi"]["rdma_chunk"] = "64KiB";
  const double pieces = run(doc).output.metrics["peak_bandwidth_MBps"].get<double>();
  // 16 pieces pay 16 set-ups of 1 us where one GET pays one: 64 KiB at 6.911 GB/s is 9.5 us.
  CHECK(whole == Approx(6911).epsilon(0.03));
  CHECK(pieces == Approx(6911 * 9.48 / (9.48 + 1.0)).epsilon(0.03));
  doc["machine"]["nic"]["bte_setup"] = "0ns";
  CHECK(run(doc).output.metrics["peak_bandwidth_MBps"].get<double>() == Approx(6911).epsilon(0.03));
}

TEST_CASE("an idle rank notices an arrival at the end of its polling pass", "[gemini][mechanism]") {
  auto delay_at = [](const std::string& layer_name, Time at) {
    HopperJob j(layer_name, {{"node_list", {0, 2}}});
    Time delay = -1;
    j.kernel.spawn([](Kernel& k, const rt::GeminiLayer& layer, Time t, Time& out) -> Task<> {
      co_await k.sleep(t);
      out = layer.notice_delay(1);
    }(j.kernel, j.as<rt::GeminiLayer>(), at, delay));
    j.kernel.run();
    return delay;
  };
  // Idle since time 0: Charm++ over MPI spins in MPI_Iprobe (200 ns passes), over uGNI in
  // GNI_CqGetEvent (50 ns passes).
  CHECK(delay_at("charm_mpi", 1'050'000) == 150'000);
  CHECK(delay_at("charm_mpi", 1'000'000) == 0);
  CHECK(delay_at("charm_ugni", 1'010'000) == 40'000);
}

TEST_CASE("Charm++ over MPI tests every pending send in each progress call", "[gemini][charm][mechanism]") {
  // A rendezvous send stays pending until its FIN: every progress call tests it again.
  const Json nodes{{"node_list", {0, 2}}};
  const auto small = run(hopper("charm_mpi", nodes, pingpong({8})));
  const auto large = run(hopper("charm_mpi", nodes, pingpong({65536})));
  auto breakdown = [](const PointResult& r, const std::string& column) {
    const auto& s = r.output.series.at(1);
    return s.rows.at(0).at(
        static_cast<std::size_t>(std::find(s.columns.begin(), s.columns.end(), column) - s.columns.begin()));
  };
  // Per message: the Iprobe that finds nothing (200 ns) and one MPI_Test (50 ns) of the send.
  CHECK(breakdown(small, "poll_us") >= 0.25);
  // The large one: the receiver's core also spins in MPI_Recv during the GET (about 11 us).
  CHECK(breakdown(large, "poll_us") > 10);
}

TEST_CASE("Charm++ over MPI holds the receiving PE while a rendezvous message comes in", "[gemini][charm][mechanism]") {
  HopperJob j("charm_mpi", {{"node_list", {0, 2}}});
  Time sent = 0, got = 0;
  j.kernel.spawn(send_then_note(j.comm(0), 1, 1 << 20, sent));
  j.kernel.spawn(receive_then_note(j.comm(1), 0, got));
  j.kernel.run();
  // The receiver's core is busy for the whole GET (1 MiB: about 170 us), not just its set-up.
  CHECK(to_microseconds(j.layer->cores().time_by_use()[rt::CpuUse::poll]) > 150);
}

TEST_CASE("the registration cache sees Charm++'s reused message buffers", "[gemini][charm][mechanism]") {
  // A ping-pong of 64 KiB: each side registers a send buffer and a receive buffer once; the
  // freed blocks come back at the same addresses, so later messages hit the cache.
  const Json nodes{{"node_list", {0, 2}}};
  auto registration_us = [&](int rounds) {
    return core_us(run(hopper("charm_mpi", nodes,
                              {{"name", "pingpong"}, {"sizes", {65536}}, {"iterations", rounds}, {"warmup", 0}})),
                   "registration");
  };
  const double once = 3.0 + 17 * 0.1;  // 3 us per call, 100 ns per 4 KiB page (65,536 + 72 B)
  const double first = registration_us(1);
  CHECK(first >= 2 * once - 1e-6);                          // at least the first message's two buffers
  CHECK(registration_us(8) == Approx(first).margin(1e-6));  // and nothing after the first round
}

TEST_CASE("Charm++ over uGNI sends big messages in registered segments, four at a time", "[gemini][charm][mechanism]") {
  const Json nodes{{"node_list", {0, 2}}};
  const Json once{{"name", "pingpong"}, {"sizes", {8 << 20}}, {"iterations", 1}, {"warmup", 0}};
  const auto big = run(hopper("charm_ugni", nodes, once));
  // 4 segments of 2 MiB + 72 B of envelope in a fifth, registered on both sides, each way.
  const double segment = 3.0 + 512 * 0.1, tail = 3.0 + 0.1;
  CHECK(core_us(big, "registration") == Approx(2 * 2 * (4 * segment + tail)).epsilon(0.01));
  Json whole = hopper("charm_ugni", nodes, once);
  whole["runtime"]["big_message"] = "1GiB";
  CHECK(core_us(run(whole), "registration") == 0);  // one GET into the memory pool
}
