#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "sim/core/kernel.hpp"
#include "sim/core/wait.hpp"

using namespace torsim;

namespace {

void record(void* ctx, std::uint64_t arg) { static_cast<std::vector<std::uint64_t>*>(ctx)->push_back(arg); }

Task<int> add_later(Kernel& k, int a, int b) {
  co_await k.sleep(5);
  co_return a + b;
}

Task<> sleeper(Kernel& k, Time delay, std::vector<Time>& woke) {
  co_await k.sleep(delay);
  woke.push_back(k.now());
}

Task<> nested(Kernel& k, std::vector<int>& out) {
  const int sum = co_await add_later(k, 2, 3);
  out.push_back(sum);
  out.push_back(static_cast<int>(k.now()));
}

Task<> thrower(Kernel& k) {
  co_await k.sleep(10);
  throw std::runtime_error("boom");
}

Task<> wait_on(Signal& t, Kernel& k, Time& when) {
  co_await t;
  when = k.now();
}

Task<> never_finishes(Signal& t) { co_await t; }

}  // namespace

TEST_CASE("events run in (time, insertion) order", "[kernel]") {
  Kernel k;
  std::vector<std::uint64_t> order;
  k.at(30, {record, &order, 3});
  k.at(10, {record, &order, 1});
  k.at(30, {record, &order, 4});
  k.at(20, {record, &order, 2});
  k.at(0, {record, &order, 0});
  k.run();
  CHECK(order == std::vector<std::uint64_t>{0, 1, 2, 3, 4});
  CHECK(k.now() == 30);
  CHECK(k.events_processed() == 5);
}

TEST_CASE("same-time events scheduled while running keep insertion order", "[kernel]") {
  Kernel k;
  std::vector<std::uint64_t> order;
  struct Ctx {
    Kernel* k;
    std::vector<std::uint64_t>* order;
  } ctx{&k, &order};
  // At t=10 event A schedules C at t=10; B was scheduled earlier for t=10 and must run first.
  k.at(10, {[](void* c, std::uint64_t) {
              auto* x = static_cast<Ctx*>(c);
              x->order->push_back(1);
              x->k->at(10, {record, x->order, 3});
            },
            &ctx, 0});
  k.at(10, {record, &order, 2});
  k.run();
  CHECK(order == std::vector<std::uint64_t>{1, 2, 3});
}

namespace {
// Each hint: the event's argument, and whether that event had already run.
std::vector<std::pair<std::uint64_t, bool>> hints;
void hint_record(const void* ctx, std::uint64_t arg) {
  const auto& ran = *static_cast<const std::vector<std::uint64_t>*>(ctx);
  hints.emplace_back(arg, std::find(ran.begin(), ran.end(), arg) != ran.end());
}
void unhinted(void*, std::uint64_t) {}
}  // namespace

TEST_CASE("a prefetcher is asked about the next event before it runs, and changes nothing", "[kernel]") {
  hints.clear();
  Kernel k;
  k.add_prefetcher(record, hint_record);
  std::vector<std::uint64_t> order;
  // Times 100-104 fall in one small bucket: once the first is taken out the others are known.
  for (std::uint64_t i = 0; i < 5; ++i) k.at(100 + static_cast<Time>(i), {record, &order, i});
  k.at(102, {unhinted, nullptr, 99});  // after the event with argument 2; not a `record` event
  k.run();
  CHECK(order == std::vector<std::uint64_t>{0, 1, 2, 3, 4});
  // Argument 3 follows the unhinted event, so it is hinted while that one runs; nothing is
  // hinted after it ran, and none twice.
  CHECK(hints == std::vector<std::pair<std::uint64_t, bool>>{{1, false}, {2, false}, {3, false}, {4, false}});
}

TEST_CASE("scheduling in the past is a logic error", "[kernel]") {
  Kernel k;
  std::vector<std::uint64_t> order;
  k.at(10, {record, &order, 1});
  k.run();
  CHECK_THROWS_AS(k.at(5, {record, &order, 2}), std::logic_error);
}

TEST_CASE("coroutines sleep, nest and return values", "[kernel]") {
  Kernel k;
  std::vector<Time> woke;
  std::vector<int> out;
  k.spawn(sleeper(k, 100, woke));
  k.spawn(sleeper(k, 50, woke));
  k.spawn(nested(k, out));
  CHECK(k.live_processes() == 3);
  k.run();
  CHECK(woke == std::vector<Time>{50, 100});
  CHECK(out == std::vector<int>{5, 5});
  CHECK(k.live_processes() == 0);
}

namespace {
Task<> maybe_sleep(Kernel& k, bool sleep, std::vector<Time>& woke) {
  if (!sleep) return Task<>::done();
  return sleeper(k, 7, woke);
}
Task<> await_twice(Kernel& k, std::vector<Time>& when) {
  co_await maybe_sleep(k, false, when);
  when.push_back(k.now());
  co_await maybe_sleep(k, true, when);
  when.push_back(k.now());
}
}  // namespace

TEST_CASE("a finished task resumes its awaiter at once, with no event", "[kernel]") {
  Kernel k;
  std::vector<Time> when;
  k.spawn(await_twice(k, when));
  k.run();
  CHECK(when == std::vector<Time>{0, 7, 7});  // the sleeper's wake, then the awaiter's
  CHECK(k.events_processed() == 2);           // the start and the one sleep
}

TEST_CASE("an exception in a process surfaces from run()", "[kernel]") {
  Kernel k;
  k.spawn(thrower(k));
  CHECK_THROWS_WITH(k.run(), "boom");
}

TEST_CASE("a signal resumes its waiter through the kernel at the firing time", "[kernel]") {
  Kernel k;
  Signal t(k);
  Time when = -1;
  k.spawn(wait_on(t, k, when));
  k.at(42, t.firing());
  k.run();
  CHECK(when == 42);
  CHECK(t.fired());
}

TEST_CASE("blocked processes are counted and destroyed with the kernel", "[kernel]") {
  auto k = std::make_unique<Kernel>();
  Signal t(*k);
  k->spawn(never_finishes(t));
  k->spawn(never_finishes(t));
  k->run();
  CHECK(k->live_processes() == 2);
  k->shutdown();
  CHECK(k->live_processes() == 0);
}

TEST_CASE("run_until stops at the limit and advances the clock", "[kernel]") {
  Kernel k;
  std::vector<std::uint64_t> order;
  k.at(10, {record, &order, 1});
  k.at(30, {record, &order, 2});
  k.run_until(20);
  CHECK(order == std::vector<std::uint64_t>{1});
  CHECK(k.now() == 20);
  CHECK(k.next_event_time() == 30);
  k.run();
  CHECK(order == std::vector<std::uint64_t>{1, 2});
}

TEST_CASE("looking at the next event time does not stop earlier events being scheduled", "[kernel]") {
  Kernel k;
  std::vector<std::uint64_t> order;
  k.at(100, {record, &order, 1});
  CHECK(k.next_event_time() == 100);
  k.at(50, {record, &order, 2});
  CHECK(k.next_event_time() == 50);
  k.run_until(40);
  CHECK(k.now() == 40);
  k.at(45, {record, &order, 3});
  k.at(100, {record, &order, 4});
  k.run_until(100);
  CHECK(order == std::vector<std::uint64_t>{3, 2, 1, 4});
  CHECK(k.next_event_time() == kNever);
}

TEST_CASE("time conversions are exact integer arithmetic", "[kernel]") {
  CHECK(transfer_time(4096, 1000000000) == 4096 * kNanosecond);
  CHECK(transfer_time(1, 3) == 333333333334);  // rounded up
  // Pieces of a stream add up to the whole, whatever the split.
  const Rate r = 4680000000;
  CHECK(stream_time(1000, r) - stream_time(0, r) + stream_time(4097, r) - stream_time(1000, r) ==
        transfer_time(4097, r));
}
