// The replay engine (models/apps/replay/engine.*) on call streams written by hand: MPI's
// matching, completion, communicators and computation, each against what the same program
// written against Comm does, or against a timing that only the right semantics give.
#include <catch2/catch.hpp>

#include "models/apps/replay/clocks.hpp"
#include "models/apps/replay/coverage.hpp"
#include "models/apps/replay/engine.hpp"
#include "sim/config/error.hpp"
#include "tests/support/layer_job.hpp"
#include "tests/support/script_trace.hpp"

using namespace torsim;
using namespace torsim::test;
using replay::kAnySource;
using replay::kAnyTag;
using rt::Rank;

namespace {

Json crossbar(int nodes) { return machine_json({{"type", "crossbar"}, {"nodes", nodes}, {"link_latency", "100ns"}}); }

// A job of one rank per node over the raw layer (or `layer`), replaying `trace`.
struct Replay {
  LayerJob job;
  replay::Replayer replayer;
  Replay(const ScriptTrace& trace, replay::ReplaySettings settings = {}, const Json& runtime = {{"layer", "raw"}})
      : job(crossbar(trace.ranks()), runtime), replayer(trace, settings, *job.layer) {
    replayer.start();
    job.kernel.run();
  }
  const replay::RankSummary& rank(Rank r) const { return replayer.ranks()[static_cast<std::size_t>(r)]; }
  Time end(Rank r) const { return rank(r).simulated_last; }
  bool clean() const {
    for (Rank r = 0; r < job.job->size(); ++r)
      if (job.layer->posted_receives(r) != 0 || job.layer->unexpected_messages(r) != 0) return false;
    return job.kernel.live_processes() == 0;
  }
};

replay::ReplaySettings no_compute() {
  replay::ReplaySettings s;
  s.compute = replay::ReplaySettings::Compute::none;
  return s;
}

Call& point_to_point(ScriptTrace& t, int r, CallType type, std::int32_t peer, std::int32_t tag, Bytes bytes = 0,
                     std::int64_t request = replay::kNone) {
  Call& c = t.add(r, type).call;
  c.peer = peer;
  c.tag = tag;
  c.bytes = bytes;
  c.request = request;
  return c;
}

Call& timed(Call& c, Time start, Time end) {
  c.start = start;
  c.end = end;
  return c;
}

ScriptCall& wait_on(ScriptTrace& t, int r, CallType type, std::vector<std::int64_t> requests,
                    std::vector<std::int32_t> completed = {}) {
  ScriptCall& s = t.add(r, type);
  if (type == CallType::wait || type == CallType::test) s.call.request = requests.front();
  s.requests = std::move(requests);
  s.completed = std::move(completed);
  return s;
}

Call& on_comm(Call& c, std::int32_t comm) {
  c.comm = comm;
  return c;
}

// The same ping-pong written against Comm: the replay must take exactly as long.
Task<> ping(rt::Comm c, Time& done) {
  co_await c.send(1, 1000, 0);
  co_await c.recv(1, 0);
  done = c.now();
}
Task<> pong(rt::Comm c) {
  co_await c.recv(0, 0);
  co_await c.send(0, 1000, 0);
}

}  // namespace

TEST_CASE("a replayed ping-pong takes exactly what the same program written against Comm takes", "[replay]") {
  ScriptTrace t(2);
  point_to_point(t, 0, CallType::send, 1, 0, 1000);
  point_to_point(t, 0, CallType::recv, 1, 0);
  point_to_point(t, 1, CallType::recv, 0, 0);
  point_to_point(t, 1, CallType::send, 0, 0, 1000);
  Replay replay(t, no_compute());
  CHECK(replay.clean());
  LayerJob direct(crossbar(2), {{"layer", "raw"}});
  Time done = -1;
  direct.kernel.spawn(ping(direct.comm(0), done));
  direct.kernel.spawn(pong(direct.comm(1)));
  direct.kernel.run();
  CHECK(done > 0);
  CHECK(replay.end(0) == done);
  CHECK(replay.replayer.calls().of(CallType::send).count == 2);
}

TEST_CASE("receives match by source and tag in posting order; a wildcard takes what is left", "[replay]") {
  // Rank 0 sends tag 5 at once and tag 7 after 1 ms of computation; rank 1 waits for tag 7
  // first: only right matching makes that wait last the millisecond.
  ScriptTrace t(2);
  timed(point_to_point(t, 0, CallType::send, 1, 5, 64), 0, 1);
  timed(point_to_point(t, 0, CallType::send, 1, 7, 64), kMillisecond, kMillisecond + 1);
  point_to_point(t, 1, CallType::irecv, 0, 7, 0, 1);
  point_to_point(t, 1, CallType::irecv, kAnySource, kAnyTag, 0, 2);
  wait_on(t, 1, CallType::wait, {1});
  wait_on(t, 1, CallType::wait, {2});
  Replay replay(t);
  CHECK(replay.clean());
  CHECK(replay.end(1) > kMillisecond);
  CHECK(replay.end(1) < kMillisecond + 10 * kMicrosecond);
  // The wildcard's wait found its message already in.
  const auto& waits = replay.replayer.calls().of(CallType::wait);
  CHECK(waits.count == 2);
  CHECK(waits.simulated.median() == 0);
}

TEST_CASE("a wildcard receive posted across a collective takes no collective message", "[replay]") {
  ScriptTrace t(4);
  point_to_point(t, 1, CallType::irecv, kAnySource, kAnyTag, 0, 1);
  for (int r = 0; r < 4; ++r) t.add(r, CallType::allreduce).call.bytes = 8;
  for (int r = 0; r < 4; ++r) t.add(r, CallType::barrier);
  point_to_point(t, 0, CallType::send, 1, 3, 16);
  wait_on(t, 1, CallType::wait, {1});
  Replay replay(t, no_compute());
  CHECK(replay.clean());
  CHECK(replay.replayer.calls().of(CallType::allreduce).count == 4);
  CHECK(replay.replayer.calls().of(CallType::wait).count == 1);
}

TEST_CASE("a job with more ranks than the trace runs the world's collectives over the trace's ranks only", "[replay]") {
  ScriptTrace t(3);
  for (int r = 0; r < 3; ++r) {
    t.add(r, CallType::allreduce).call.bytes = 8;
    Call& gather = t.add(r, CallType::gather).call;
    gather.root = 2;
    gather.bytes = 16;
    t.add(r, CallType::barrier);
  }
  LayerJob job(crossbar(4), {{"layer", "raw"}});  // four ranks, one idle
  replay::Replayer replayer(t, no_compute(), *job.layer);
  replayer.start();
  job.kernel.run();
  CHECK(job.kernel.live_processes() == 0);
  CHECK(replayer.calls().of(CallType::barrier).count == 3);
}

TEST_CASE("comm_split groups by colour in key order; collectives and messages stay in their communicator", "[replay]") {
  ScriptTrace t(6);
  for (int r = 0; r < 6; ++r) {
    Call& split = t.add(r, CallType::comm_split).call;
    split.color = r % 2;
    split.key = -r;  // reversed: the highest world rank is rank 0 of its colour
    split.new_comm = 5;
    on_comm(t.add(r, CallType::allreduce).call, 5).bytes = 64;
    Call& bcast = on_comm(t.add(r, CallType::bcast).call, 5);
    bcast.root = 0;
    bcast.bytes = 128;
  }
  // Rank 0 of each colour (world 4 and 5) sends to rank 2 of it (world 0 and 1), with one tag.
  on_comm(point_to_point(t, 4, CallType::send, 2, 9, 32), 5);
  on_comm(point_to_point(t, 0, CallType::recv, 0, 9), 5);
  on_comm(point_to_point(t, 5, CallType::send, 2, 9, 32), 5);
  on_comm(point_to_point(t, 1, CallType::recv, 0, 9), 5);
  Replay replay(t, no_compute());
  CHECK(replay.clean());
  auto& comms = const_cast<replay::Communicators&>(replay.replayer.communicators());
  const auto* even = comms.find(2, 5);
  const auto* odd = comms.find(3, 5);
  REQUIRE(even);
  REQUIRE(odd);
  CHECK(comms.group(even->comm).members == std::vector<Rank>{4, 2, 0});
  CHECK(comms.group(odd->comm).members == std::vector<Rank>{5, 3, 1});
  CHECK(comms.group(even->comm).context != comms.group(odd->comm).context);
  CHECK(even->index == 1);
  CHECK(replay.replayer.calls().of(CallType::recv).count == 2);
}

TEST_CASE("comm_dup, comm_create from a group, and freeing: contexts agree and are reused", "[replay]") {
  ScriptTrace t(4);
  for (int r = 0; r < 4; ++r) {
    on_comm(t.add(r, CallType::comm_dup).call, 0).new_comm = 7;
    Call& group = t.add(r, CallType::comm_group).call;
    group.comm = 7;
    group.new_group = 3;
    ScriptCall& incl = t.add(r, CallType::group_incl);
    incl.call.group = 3;
    incl.call.new_group = 4;
    incl.ranks = {3, 1};
    Call& create = t.add(r, CallType::comm_create).call;
    create.comm = 7;
    create.group = 4;
    create.new_comm = r == 1 || r == 3 ? 8 : replay::kCommNull;
    on_comm(t.add(r, CallType::barrier).call, 7);
  }
  for (int r : {1, 3}) on_comm(t.add(r, CallType::allreduce).call, 8).bytes = 8;
  for (int r = 0; r < 4; ++r) t.add(r, CallType::comm_free).call.comm = 7;
  for (int r = 0; r < 4; ++r) on_comm(t.add(r, CallType::comm_dup).call, 0).new_comm = 9;
  Replay replay(t, no_compute());
  CHECK(replay.clean());
  auto& comms = const_cast<replay::Communicators&>(replay.replayer.communicators());
  const auto* created = comms.find(3, 8);
  REQUIRE(created);
  CHECK(comms.group(created->comm).members == std::vector<Rank>{3, 1});
  CHECK(created->index == 0);
  CHECK(comms.find(0, 8) == nullptr);
  CHECK(comms.find(0, 7) == nullptr);  // freed
  // The dup made after the free takes the freed context again.
  const auto* again = comms.find(0, 9);
  REQUIRE(again);
  CHECK(comms.group(again->comm).context == 2);
  CHECK(replay.replayer.counts().unresolved == 0);
}

TEST_CASE("waitany waits for the request the recording says completed", "[replay]") {
  for (std::int32_t completed : {0, 1}) {
    INFO("completed " << completed);
    ScriptTrace t(3);
    point_to_point(t, 0, CallType::irecv, 1, 0, 0, 11);
    point_to_point(t, 0, CallType::irecv, 2, 0, 0, 12);
    wait_on(t, 0, CallType::waitany, {11, 12}, {completed});
    timed(point_to_point(t, 1, CallType::send, 0, 0, 8), kMillisecond, kMillisecond + 1);  // late
    point_to_point(t, 2, CallType::send, 0, 0, 8);
    wait_on(t, 0, CallType::wait, {completed == 0 ? 12 : 11});
    Replay replay(t);
    CHECK(replay.clean());
    const auto& waitany = replay.replayer.calls().of(CallType::waitany);
    if (completed == 0)
      CHECK(waitany.simulated_total > kMillisecond);
    else
      CHECK(waitany.simulated_total < 10 * kMicrosecond);
  }
}

TEST_CASE("a test the recording saw succeed completes the request; one that failed leaves it", "[replay]") {
  for (bool flag : {false, true}) {
    INFO("flag " << flag);
    ScriptTrace t(2);
    point_to_point(t, 0, CallType::irecv, 1, 0, 0, 4);
    wait_on(t, 0, CallType::test, {4}).call.flag = flag;
    if (!flag) wait_on(t, 0, CallType::wait, {4});
    timed(point_to_point(t, 1, CallType::send, 0, 0, 8), kMillisecond, kMillisecond + 1);
    Replay replay(t);
    CHECK(replay.clean());
    const auto& test = replay.replayer.calls().of(CallType::test);
    if (flag)
      CHECK(test.simulated_total > kMillisecond);
    else
      CHECK(test.simulated_total == 0);
    CHECK(replay.replayer.counts().unknown_requests == 0);
  }
}

TEST_CASE("a probe receives the message and hands it to the receive that follows", "[replay]") {
  ScriptTrace t(2);
  point_to_point(t, 0, CallType::probe, kAnySource, 4);
  point_to_point(t, 0, CallType::recv, 1, 4);
  point_to_point(t, 0, CallType::iprobe, 1, 4).flag = false;  // found nothing: nothing happens
  point_to_point(t, 1, CallType::send, 0, 4, 65536);
  Replay replay(t, no_compute());
  CHECK(replay.clean());
  CHECK(replay.replayer.calls().of(CallType::probe).simulated_total > 0);
  CHECK(replay.replayer.calls().of(CallType::recv).simulated_total == 0);
  CHECK(replay.job.network->counters().messages == 1);
}

TEST_CASE("persistent requests post their operation at every start", "[replay]") {
  ScriptTrace t(2);
  point_to_point(t, 0, CallType::send_init, 1, 2, 256, 9);
  point_to_point(t, 1, CallType::recv_init, 0, 2, 0, 3);
  for (int i = 0; i < 3; ++i) {
    wait_on(t, 0, CallType::start, {9}).call.request = 9;
    wait_on(t, 0, CallType::wait, {9});
    wait_on(t, 1, CallType::startall, {3});
    wait_on(t, 1, CallType::waitall, {3});
  }
  t.add(0, CallType::request_free).call.request = 9;
  Replay replay(t, no_compute());
  CHECK(replay.clean());
  CHECK(replay.job.network->counters().messages == 3);
  CHECK(replay.replayer.counts().unknown_requests == 0);
}

TEST_CASE("computation: recorded gaps, none, or scaled; local calls take their recorded time", "[replay]") {
  const auto trace = [] {
    ScriptTrace t(1);
    timed(t.add(0, CallType::comm_rank).call, 10 * kMicrosecond, 11 * kMicrosecond);
    timed(t.add(0, CallType::comm_size).call, 20 * kMicrosecond, 22 * kMicrosecond);
    return t;
  };
  const ScriptTrace t = trace();
  replay::ReplaySettings s;
  {
    Replay replay(t, s);
    CHECK(replay.end(0) == 22 * kMicrosecond);
    CHECK(replay.rank(0).compute == 9 * kMicrosecond);  // the 10 us before the first call is its lead-in
  }
  s.compute = replay::ReplaySettings::Compute::none;
  CHECK(Replay(t, s).end(0) == 3 * kMicrosecond);
  s.compute = replay::ReplaySettings::Compute::scaled;
  s.scale = 0.5;
  CHECK(Replay(t, s).end(0) == 12'500'000);
}

TEST_CASE("the span compared runs from the end of MPI_Init to the start of MPI_Finalize", "[replay]") {
  ScriptTrace t(1);
  timed(t.add(0, CallType::init).call, 0, 100 * kMicrosecond);  // start-up: outside the span
  timed(t.add(0, CallType::comm_rank).call, 110 * kMicrosecond, 111 * kMicrosecond);
  timed(t.add(0, CallType::finalize).call, 120 * kMicrosecond, 500 * kMicrosecond);
  Replay replay(t);
  const auto& r = replay.rank(0);
  CHECK(r.recorded_first == 100 * kMicrosecond);
  CHECK(r.recorded_last == 120 * kMicrosecond);
  CHECK(r.simulated_first == 100 * kMicrosecond);
  CHECK(r.simulated_last == 120 * kMicrosecond);
  CHECK(r.recorded_in_calls == kMicrosecond);  // comm_rank only
  CHECK(replay.end(0) == 120 * kMicrosecond);
}

TEST_CASE("compute actions run their flops at the flop rate", "[replay]") {
  ScriptTrace t(1, replay::Format::time_independent);
  t.add(0, CallType::compute).call.flops = 2e9;
  replay::ReplaySettings s;
  s.flop_time = 500;  // 2 Gflop/s
  Replay replay(t, s);
  CHECK(replay.end(0) == kSecond);
  CHECK(replay.replayer.calls().of(CallType::compute).simulated_total == kSecond);
}

TEST_CASE("a computation or sleep beyond the clock's range is an input error naming the record", "[replay]") {
  ScriptTrace t(1, replay::Format::time_independent);
  t.add(0, CallType::compute).call.flops = 1e9;
  replay::ReplaySettings s;
  s.flop_time = 500;
  SECTION("flops") { t.add(0, CallType::compute).call.flops = 1e300; }
  SECTION("seconds") { t.add(0, CallType::sleep).call.seconds = 1e10; }
  SECTION("a computation within the range, scaled beyond it (compute_scale)") {
    t.add(0, CallType::compute).call.flops = 1e16;  // 5e18 ps, then 1,000 times that
    s.compute = replay::ReplaySettings::Compute::scaled;
    s.scale = 1000;
  }
  for (auto& c : t.calls[0]) c.call.function = "action";
  LayerJob job(crossbar(1), {{"layer", "raw"}});
  replay::Replayer replayer(t, s, *job.layer);
  replayer.start();
  CHECK_THROWS_WITH(job.kernel.run(), Catch::Contains("rank0") && Catch::Contains("record 1") &&
                                          Catch::Contains("beyond the longest time the simulation's clock holds"));
}

TEST_CASE("an unsupported call takes its recorded duration and is counted", "[replay]") {
  ScriptTrace t(1);
  timed(t.add(0, CallType::other).call, 0, 5 * kMicrosecond);
  timed(t.add(0, CallType::alltoallw).call, 5 * kMicrosecond, 7 * kMicrosecond);
  Replay replay(t);
  CHECK(replay.end(0) == 7 * kMicrosecond);
  CHECK(replay.replayer.counts().unsupported == 2);
  CHECK(replay::coverage(CallType::other).support == replay::Support::unsupported);
  CHECK(replay::coverage(CallType::isend).support == replay::Support::modelled);
  for (int type = 0; type < replay::kCallTypes; ++type)
    CHECK(!replay::coverage(static_cast<CallType>(type)).how.empty());
}

TEST_CASE("a peer outside the communicator is an input error naming the record", "[replay]") {
  ScriptTrace t(2);
  point_to_point(t, 0, CallType::comm_rank, 0, 0);
  point_to_point(t, 0, CallType::send, 7, 0, 8);
  LayerJob job(crossbar(2), {{"layer", "raw"}});
  replay::Replayer replayer(t, {}, *job.layer);
  replayer.start();
  CHECK_THROWS_WITH(job.kernel.run(), Catch::Contains("rank0") && Catch::Contains("record 1") &&
                                          Catch::Contains("destination 7 is out of range"));
}

// ---- SimGrid's action files (tests/data/traces/ti-simgrid-actions, from SimGrid's replay examples)

namespace {

std::string actions(const std::string& file) {
  return std::string(TORSIM_SOURCE_DIR) + "/tests/data/traces/ti-simgrid-actions/" + file;
}

struct Done {
  Rank rank;
  CallType type;
  Time start, end;
};

// Replays a SimGrid action file at 1 Gflop/s, one rank per node, keeping every call's span.
struct ActionReplay {
  std::unique_ptr<replay::Trace> trace;
  std::unique_ptr<LayerJob> job;
  std::unique_ptr<replay::Replayer> replayer;
  std::vector<Done> done;
  explicit ActionReplay(const std::string& file) {
    trace = replay::open_trace(actions(file), replay::Format::automatic, Where("test"));
    job = std::make_unique<LayerJob>(crossbar(trace->ranks()), Json{{"layer", "raw"}});
    replay::ReplaySettings s;
    s.flop_time = 1000;
    replayer = std::make_unique<replay::Replayer>(*trace, s, *job->layer);
    replayer->set_call_observer([this](Rank r, CallType t, Time start, Time end) {
      done.push_back({r, t, start, end});
    });
    replayer->start();
    job->kernel.run();
  }
  std::int64_t messages() const { return job->network->counters().messages; }
  bool finished() const { return job->kernel.live_processes() == 0; }
  // The n-th call of `type` on rank r (from 0).
  const Done& call(Rank r, CallType type, int n = 0) const {
    for (const Done& d : done)
      if (d.rank == r && d.type == type && n-- == 0) return d;
    FAIL("no such call");
    return done.front();
  }
};

}  // namespace

TEST_CASE("SimGrid's isend/irecv/test/wait actions: every message matched once, in causal order", "[replay]") {
  const ActionReplay a("actions_with_isend.txt");
  CHECK(a.finished());
  CHECK(a.messages() == 3);
  // Rank 1's wait for rank 0's message ends after rank 0 sent it; rank 2's wait for rank 1's
  // ends after rank 1's send began; rank 0's receive from rank 2 ends after rank 2's isend.
  CHECK(a.call(1, CallType::wait).end > a.call(0, CallType::send).start);
  CHECK(a.call(2, CallType::wait).end > a.call(1, CallType::send).start);
  CHECK(a.call(0, CallType::recv).end > a.call(2, CallType::isend).start);
  // A time-independent test completes nothing: it takes no time, and the wait still finds the
  // request (no unknown request).
  CHECK(a.call(1, CallType::test).end == a.call(1, CallType::test).start);
  CHECK(a.replayer->counts().unknown_requests == 0);
  // Rank 2 computes 2e9 flops (2 s at 1 Gflop/s) before posting its receive, so rank 1's
  // message waits unexpected: rank 2's wait takes no time, as in SimGrid's replay.
  CHECK(a.call(2, CallType::wait).end == a.call(2, CallType::wait).start);
}

TEST_CASE("SimGrid's waitall actions: receives posted before their sends, all completed by waitall", "[replay]") {
  const ActionReplay a("actions_waitall.txt");
  CHECK(a.finished());
  CHECK(a.messages() == 3);
  CHECK(a.replayer->calls().of(CallType::waitall).count == 3);
  // Rank 0 waits for messages from ranks 1 and 2; rank 2 sends only after its own irecv.
  CHECK(a.call(0, CallType::waitall).end > a.call(2, CallType::isend).start);
  CHECK(a.call(2, CallType::waitall).end > a.call(1, CallType::isend, 1).start);
}

TEST_CASE("SimGrid's per-rank action files (an index): sends, an isend never waited, a wait by source and tag",
          "[replay]") {
  const ActionReplay a("split_traces");
  CHECK(a.finished());
  CHECK(a.trace->ranks() == 2);
  CHECK(a.messages() == 3);
  // Rank 0's receive of tag 1 ends after rank 1's isend of it, which follows 1e9 flops (1 s).
  CHECK(a.call(0, CallType::recv).end > kSecond);
  CHECK(a.call(1, CallType::wait).end > a.call(0, CallType::send, 1).start);
}

TEST_CASE("SimGrid's collective actions: each replays with the message count of its algorithm", "[replay]") {
  const std::vector<std::pair<std::string, std::int64_t>> cases{
      {"actions_bcast.txt", 2 + 2 + 2},                   // two binomial broadcasts and a reduce, 3 ranks
      {"actions_bcast_reduce_datatypes.txt", 2 + 2 + 2},  // the same with datatypes
      {"actions_allreduce.txt", 4},                       // 3 ranks: reduce then broadcast
      {"actions_alltoall.txt", 6},                        // pairwise: n (n - 1)
      {"actions_alltoallv.txt", 6},
      {"actions_allgatherv.txt", 12},     // 4 ranks, ~1 MB in all: the ring, n (n - 1)
      {"actions_gather.txt", 3},          // binomial, 4 ranks
      {"actions_reducescatter.txt", 12},  // pairwise, 4 ranks
      {"actions_barrier.txt", 1 + 6},     // a send, then the dissemination barrier: 2 rounds of 3
  };
  for (const auto& [file, messages] : cases) {
    INFO(file);
    const ActionReplay a(file);
    CHECK(a.finished());
    CHECK(a.messages() == messages);
    CHECK(a.replayer->counts().unsupported == 0);
  }
}

// ---- Clocks

namespace {

// Rank 0 (host a) sends at 10 ms by its clock; rank 1 (host b), whose clock is behind, finishes
// receiving at 5.001 ms by its own, then answers at `answer` (b's clock), which rank 0
// receives at 11.002 ms.
ScriptTrace skewed(Time answer) {
  ScriptTrace t(2);
  t.set_hosts({"a", "b"});
  timed(point_to_point(t, 0, CallType::send, 1, 0, 8), 10 * kMillisecond, 10 * kMillisecond + 1);
  timed(point_to_point(t, 0, CallType::recv, 1, 1), 10 * kMillisecond + 2, 11'002'000'000);
  timed(point_to_point(t, 1, CallType::irecv, 0, 0, 0, 5), 1 * kMillisecond, 1 * kMillisecond + 1);
  timed(wait_on(t, 1, CallType::wait, {5}).call, 2 * kMillisecond, 5'001'000'000);
  timed(point_to_point(t, 1, CallType::send, 0, 1, 8), answer, answer + 1);
  return t;
}

}  // namespace

TEST_CASE(
    "clocks: each host moves by the smallest offset under which every message was sent before it was "
    "received",
    "[replay]") {
  const ScriptTrace t = skewed(6 * kMillisecond);
  const replay::ClockAlignment a = replay::align_clocks(t);
  CHECK(a.consistent);
  CHECK(a.messages == 2);
  CHECK(a.offset == std::vector<Time>{0, 4'999'000'000});
  CHECK(a.origin == 4'999'000'000 + kMillisecond);  // rank 1's first call, moved
  // Replayed with the offsets, rank 1 starts 4.999 ms later than recorded; without, it would
  // wait for rank 0 from 1 ms on.
  replay::ReplaySettings s;
  s.clock_offset = a.offset;
  s.clock_origin = a.origin;
  Replay aligned(t, s);
  CHECK(aligned.rank(1).recorded_first == 0);
  CHECK(aligned.rank(0).recorded_first == 10 * kMillisecond - a.origin);
  CHECK(aligned.rank(0).simulated_first == aligned.rank(0).recorded_first);
}

TEST_CASE("clocks: messages that no offsets satisfy leave the clocks as recorded", "[replay]") {
  // The answer leaves b at 12 ms by b's clock, but a has it at 11.002 ms: b must be at least
  // 4.999 ms behind and at most -0.998 ms.
  const replay::ClockAlignment a = replay::align_clocks(skewed(12 * kMillisecond));
  CHECK_FALSE(a.consistent);
  CHECK(a.offset == std::vector<Time>{0, 0});
  // One host: nothing to align.
  ScriptTrace one = skewed(6 * kMillisecond);
  one.set_hosts({"a", "a"});
  CHECK(replay::align_clocks(one).messages == 0);
}
