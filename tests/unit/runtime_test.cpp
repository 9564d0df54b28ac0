#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "models/messaging/messaging.hpp"
#include "run/simulation.hpp"
#include "tests/support/layer_job.hpp"

using namespace torsim;
using namespace torsim::test;
using rt::Comm;
using rt::Envelope;

namespace {

// A job on a 4x4 torus, one rank per node unless told otherwise, over the raw layer.
struct RawJob : LayerJob {
  explicit RawJob(int ranks_per_node = 1, const char* model = "packet")
      : LayerJob(machine_json(torus_json({4, 4}, {"5GB/s", "5GB/s"})), Json{{"layer", "raw"}},
                 Json{{"ranks_per_node", ranks_per_node}}, model) {}
  /// One-way time of `bytes` between two ranks' nodes on an idle network.
  Time one_way(rt::Rank a, rt::Rank b, Bytes bytes) const {
    return closed_form(machine, job->node_of(a), job->node_of(b), bytes);
  }
};

Task<> send_to(Comm c, rt::Rank dst, Bytes size, rt::Tag tag, std::uint64_t word) {
  co_await c.send(dst, size, tag, word);
}

Task<> receive_into(Comm c, rt::Rank src, rt::Tag tag, std::vector<Envelope>& got, std::vector<Time>& when) {
  got.push_back(co_await c.recv(src, tag));
  when.push_back(c.now());
}

Task<> timed_put(Comm c, rt::Rank target, Bytes size, Time& done) {
  co_await c.put(target, size);
  done = c.now();
}

Task<> timed_get(Comm c, rt::Rank target, Bytes size, Time& done) {
  co_await c.get(target, size);
  done = c.now();
}

Task<> collective(Comm c, const std::string& which, std::vector<Time>& done) {
  if (which == "barrier") co_await c.barrier();
  if (which == "bcast") co_await c.bcast(3, 1024);
  if (which == "reduce") co_await c.reduce(2, 1024);
  if (which == "allreduce") co_await c.allreduce(8);
  if (which == "gather") co_await c.gather(0, 64);
  if (which == "alltoall") co_await c.alltoall(256);
  done[static_cast<std::size_t>(c.rank())] = c.now();
}

}  // namespace

TEST_CASE("a raw send arrives after exactly the network's one-way time", "[runtime]") {
  RawJob j;
  std::vector<Envelope> got;
  std::vector<Time> when;
  j.kernel.spawn(send_to(j.comm(0), 5, 4096, 7, 99));
  j.kernel.spawn(receive_into(j.comm(5), 0, 7, got, when));
  j.kernel.run();
  REQUIRE(got.size() == 1);
  CHECK(got[0].src == 0);
  CHECK(got[0].tag == 7);
  CHECK(got[0].size == 4096);
  CHECK(got[0].word == 99);
  CHECK(when[0] == j.one_way(0, 5, 4096));
}

TEST_CASE("receives match by source and tag, in posting order, early or late", "[runtime]") {
  RawJob j;
  std::vector<Envelope> got;
  std::vector<Time> when;
  // Posted before arrival: a specific tag, then any tag.
  j.kernel.spawn(receive_into(j.comm(1), 0, 2, got, when));
  j.kernel.spawn(receive_into(j.comm(1), rt::kAnySource, rt::kAnyTag, got, when));
  j.kernel.spawn(send_to(j.comm(0), 1, 8, 1, 10));
  j.kernel.spawn(send_to(j.comm(0), 1, 8, 2, 20));
  j.kernel.run();
  REQUIRE(got.size() == 2);
  // The tag-1 message arrives first and matches only the wildcard receive.
  CHECK(got[0].word == 10);
  CHECK(got[1].word == 20);
  // Unexpected messages wait for a later receive.
  got.clear();
  j.kernel.spawn(send_to(j.comm(2), 3, 8, 5, 30));
  j.kernel.run();
  j.kernel.spawn(receive_into(j.comm(3), 2, 5, got, when));
  j.kernel.run();
  REQUIRE(got.size() == 1);
  CHECK(got[0].word == 30);
}

TEST_CASE("put and get complete after a round trip", "[runtime]") {
  RawJob j;
  Time put_done = -1, get_done = -1;
  j.kernel.spawn(timed_put(j.comm(0), 10, 65536, put_done));
  j.kernel.run();
  CHECK(put_done == j.one_way(0, 10, 65536) + j.one_way(10, 0, 0));
  const Time start = j.kernel.now();
  j.kernel.spawn(timed_get(j.comm(0), 10, 65536, get_done));
  j.kernel.run();
  CHECK(get_done - start == j.one_way(0, 10, 0) + j.one_way(10, 0, 65536));
}

TEST_CASE("ranks on one node talk through the memory-copy path", "[runtime]") {
  RawJob j(2);
  std::vector<Envelope> got;
  std::vector<Time> when;
  j.kernel.spawn(send_to(j.comm(0), 1, 8000, 0, 0));
  j.kernel.spawn(receive_into(j.comm(1), 0, 0, got, when));
  j.kernel.run();
  REQUIRE(when.size() == 1);
  CHECK(when[0] == 100 * kNanosecond + transfer_time(8000, 8000000000));
}

namespace {
Task<> counting_handler(Comm c, Envelope e, std::vector<std::pair<Time, std::uint64_t>>* log) {
  co_await c.compute(kMicrosecond);
  log->push_back({c.now(), e.word});
}
}  // namespace

TEST_CASE("core time is booked by use, one span after another, and reported to an observer", "[runtime]") {
  RawJob j;
  struct Span {
    rt::Rank rank;
    Time start, end;
    Time copy;
  };
  std::vector<Span> spans;
  j.layer->cores().set_observer([&](rt::Rank r, Time start, Time end, const rt::CpuCharge& charge) {
    spans.push_back({r, start, end, charge[rt::CpuUse::copy]});
  });
  j.layer->cores().occupy(0, rt::CpuCharge(rt::CpuUse::send, 5).add(rt::CpuUse::copy, 7));
  j.layer->cores().occupy(0, 3, rt::CpuUse::poll);
  j.layer->cores().occupy(0, 0, rt::CpuUse::match);  // books nothing, reports nothing
  j.kernel.spawn(j.comm(1).compute(11));
  j.kernel.run();
  const rt::CpuCharge& total = j.layer->cores().time_by_use();
  CHECK(total[rt::CpuUse::send] == 5);
  CHECK(total[rt::CpuUse::copy] == 7);
  CHECK(total[rt::CpuUse::poll] == 3);
  CHECK(total[rt::CpuUse::compute] == 11);
  CHECK(total.total() == 26);
  REQUIRE(spans.size() == 3);
  // Rank 0's second charge queues behind its first on the one core.
  CHECK((spans[0].rank == 0 && spans[0].start == 0 && spans[0].end == 12 && spans[0].copy == 7));
  CHECK((spans[1].rank == 0 && spans[1].start == 12 && spans[1].end == 15));
  CHECK((spans[2].rank == 1 && spans[2].start == 0 && spans[2].end == 11));
  CHECK(rt::cpu_use_name(rt::CpuUse::registration) == "registration");
}

TEST_CASE("active-message handlers run one at a time on the destination", "[runtime]") {
  RawJob j;
  std::vector<std::pair<Time, std::uint64_t>> log;
  const auto handler =
      j.layer->register_handler(rt::AmHandler([&log](Comm c, Envelope e) { return counting_handler(c, e, &log); }));
  j.kernel.spawn(j.comm(0).am_send(1, handler, 8, 1));
  j.kernel.spawn(j.comm(2).am_send(1, handler, 8, 2));
  j.kernel.run();
  REQUIRE(log.size() == 2);
  // Both arrive at the same time (one hop each); the second handler waits for the first.
  CHECK(log[1].first - log[0].first == kMicrosecond);
}

namespace {
// Three active messages from ranks 0, 2 and 3 (different distances); the log gets "run s" as
// each handler runs and "sent s" as each sender resumes after its local completion and,
// with `hinted`, "hint run s" and "hint sent s" when the layer names the source of the next
// arrival or local completion.
std::vector<std::string> arrivals_with_hints(bool hinted, std::vector<Time>& times) {
  RawJob j;
  std::vector<std::string> log;
  const auto handler = j.layer->register_handler(rt::InstantHandler([&](Comm c, const Envelope& e) {
    log.push_back("run " + std::to_string(e.src));
    times.push_back(c.now());
  }));
  if (hinted) {
    rt::MessagingLayer::Hints hints;
    hints.ctx = &log;
    hints.arrival = [](const void* ctx, rt::Rank src) {
      static_cast<std::vector<std::string>*>(const_cast<void*>(ctx))->push_back("hint run " + std::to_string(src));
    };
    hints.send_completion = [](const void* ctx, rt::Rank src) {
      static_cast<std::vector<std::string>*>(const_cast<void*>(ctx))->push_back("hint sent " + std::to_string(src));
    };
    j.layer->set_hints(hints);
  }
  auto send = [&](rt::Rank src, Bytes size) -> Task<> {
    co_await j.comm(src).am_send(1, handler, size, 0);
    log.push_back("sent " + std::to_string(src));
    times.push_back(j.kernel.now());
  };
  j.kernel.spawn(send(0, 8));
  j.kernel.spawn(send(2, 4096));
  j.kernel.spawn(send(3, 64));
  j.kernel.run();
  return log;
}
}  // namespace

TEST_CASE("the raw layer names the next arrival's and local completion's source before them, and changes nothing",
          "[runtime]") {
  std::vector<Time> plain_times, hinted_times;
  const auto plain = arrivals_with_hints(false, plain_times);
  const auto log = arrivals_with_hints(true, hinted_times);
  CHECK(hinted_times == plain_times);
  REQUIRE(plain.size() == 6);
  // A hint names the event after the one about to run, if the kernel knows it without a
  // refill (so a hint may come more than once, and before another event runs). Each arrival
  // is hinted, with its source, before its handler runs; a local completion may not be (the
  // first, right after the senders started at time 0, is not); and nothing is hinted after it ran.
  int hinted_completions = 0;
  for (const auto& done : plain) {
    const auto ran = std::find(log.begin(), log.end(), done);
    const std::string hint = "hint " + done;
    const bool hinted = std::find(log.begin(), ran, hint) != ran;
    if (done.rfind("run", 0) == 0)
      CHECK(hinted);
    else
      hinted_completions += hinted;
    CHECK(std::find(ran, log.end(), hint) == log.end());
  }
  CHECK(hinted_completions >= 2);
  CHECK(std::count_if(log.begin(), log.end(), [](const std::string& line) { return line.rfind("hint", 0) != 0; }) == 6);
}

TEST_CASE("collectives complete on every rank, in sensible times", "[runtime]") {
  for (const std::string which : {"barrier", "bcast", "reduce", "allreduce", "gather", "alltoall"}) {
    INFO(which);
    RawJob j;
    std::vector<Time> done(16, -1);
    for (rt::Rank r = 0; r < 16; ++r) j.kernel.spawn(collective(j.comm(r), which, done));
    j.kernel.run();
    CHECK(j.kernel.live_processes() == 0);
    for (Time t : done) CHECK(t > 0);
    // A binomial tree over 16 ranks takes log2(16) = 4 rounds of at least one message each.
    const Time longest = *std::max_element(done.begin(), done.end());
    CHECK(longest >= 4 * j.one_way(0, 1, 0));
  }
}
