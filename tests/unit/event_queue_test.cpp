#include <catch2/catch.hpp>

#include <queue>
#include <tuple>
#include <vector>

#include "sim/core/event_queue.hpp"
#include "sim/core/random.hpp"

using namespace torsim;

namespace {

struct TestEvent {
  std::int64_t time;
  std::uint64_t seq;
  bool operator>(const TestEvent& o) const { return std::tie(time, seq) > std::tie(o.time, o.seq); }
};

using ReferenceQueue = std::priority_queue<TestEvent, std::vector<TestEvent>, std::greater<>>;

// Pushes and pops as a kernel does (never before the last time taken out), on the radix heap
// and on a binary heap; every pop must agree. `spread` bounds how far ahead an event goes.
void run_against_reference(std::uint64_t seed, std::int64_t spread, int operations, std::int64_t start = 0) {
  Rng rng(seed);
  MonotoneEventQueue<TestEvent> queue;
  ReferenceQueue reference;
  std::uint64_t seq = 0;
  std::int64_t now = start;
  for (int i = 0; i < operations; ++i) {
    const bool push = reference.empty() || rng.below(100) < 52;
    if (push) {
      // A third of the pushes land exactly on `now`: ties must leave in sequence order.
      const std::int64_t ahead =
          rng.below(3) == 0 ? 0 : static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(spread)));
      const TestEvent ev{now + ahead, seq++};
      queue.push(ev);
      reference.push(ev);
    } else {
      const TestEvent expected = reference.top();
      reference.pop();
      REQUIRE(queue.min_time() == expected.time);
      const TestEvent got = queue.pop();
      REQUIRE(got.time == expected.time);
      REQUIRE(got.seq == expected.seq);
      now = got.time;
    }
    REQUIRE(queue.size() == reference.size());
  }
  while (!reference.empty()) {
    const TestEvent got = queue.pop();
    REQUIRE(got.seq == reference.top().seq);
    reference.pop();
  }
  CHECK(queue.empty());
}

}  // namespace

TEST_CASE("the radix event queue pops in (time, seq) order like a binary heap", "[kernel]") {
  run_against_reference(1, 4, 200000);                                                       // mostly ties
  run_against_reference(2, 1000, 200000);                                                    // dense
  run_against_reference(3, 1'000'000'000, 200000);                                           // sparse, many buckets
  run_against_reference(4, std::int64_t{1} << 40, 200000, (std::int64_t{1} << 62) + 12345);  // high bits set
}

TEST_CASE("the radix event queue keeps its order through bursts larger than its block pool keeps", "[kernel]") {
  // 300,000 events pushed at once (a burst of wake-ups) take more blocks than the queue keeps
  // once drained; they are given back as they drain, the order must not change.
  MonotoneEventQueue<TestEvent> queue;
  ReferenceQueue reference;
  Rng rng(9);
  std::uint64_t seq = 0;
  for (int round = 0; round < 3; ++round) {
    const std::int64_t now = reference.empty() ? 0 : reference.top().time;
    for (int i = 0; i < 100000; ++i) {
      const TestEvent ev{now + static_cast<std::int64_t>(rng.below(1 << 20)), seq++};
      queue.push(ev);
      reference.push(ev);
    }
    for (int i = 0; i < 60000; ++i) {
      REQUIRE(queue.pop().seq == reference.top().seq);
      reference.pop();
    }
  }
  while (!reference.empty()) {
    REQUIRE(queue.pop().seq == reference.top().seq);
    reference.pop();
  }
  CHECK(queue.empty());
}

TEST_CASE("the radix event queue is reusable after clear", "[kernel]") {
  MonotoneEventQueue<TestEvent> queue;
  queue.push({10, 0});
  queue.push({5, 1});
  CHECK(queue.pop().time == 5);
  queue.clear();
  CHECK(queue.empty());
  queue.push({7, 2});
  queue.push({7, 3});
  queue.push({6, 4});
  CHECK(queue.pop().seq == 4);
  CHECK(queue.pop().seq == 2);
  CHECK(queue.pop().seq == 3);
  CHECK(queue.empty());
}

TEST_CASE("the radix event queue inserts early pushes into a sorted run after its equal times", "[kernel]") {
  MonotoneEventQueue<TestEvent> queue;
  // Five events in one small bucket (1088-1151 differ from 0 first in the second 6-bit
  // digit, which is 17 for all of them): they become the run, sorted by time.
  for (const TestEvent ev :
       {TestEvent{1150, 0}, TestEvent{1100, 1}, TestEvent{1120, 2}, TestEvent{1150, 3}, TestEvent{1110, 4}})
    queue.push(ev);
  CHECK(queue.pop().seq == 1);  // 1100; the run is now 1110, 1120, 1150, 1150
  queue.push({1120, 5});        // after the 1120 already there
  queue.push({1105, 6});        // before everything left
  queue.push({1150, 7});        // the run's last time: at its end
  queue.push({1151, 8});        // after the run: in a bucket
  CHECK(queue.min_time() == 1105);
  for (const std::uint64_t expected : {6, 4, 2, 5, 0, 3, 7, 8}) CHECK(queue.pop().seq == expected);
  CHECK(queue.empty());
}
