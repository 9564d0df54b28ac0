// The waiting primitives every model uses (sim/core/wait.hpp): who is woken, in which order,
// and that waking goes through the kernel.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/core/kernel.hpp"
#include "sim/core/wait.hpp"

using namespace torsim;

namespace {

Task<> wait_in(WaitQueue& q, int id, std::vector<int>& woke) {
  co_await q.wait();
  woke.push_back(id);
}

Task<> take(Semaphore& s, Kernel& k, int id, std::vector<std::string>& log) {
  co_await s.acquire();
  log.push_back(std::to_string(id) + "@" + std::to_string(k.now()));
}

Task<> wait_for(Signal& s, Kernel& k, int id, std::vector<std::string>& log) {
  co_await s;
  log.push_back(std::to_string(id) + "@" + std::to_string(k.now()));
}

Task<> release_at(Kernel& k, Semaphore& s, Time t) {
  co_await k.until(t);
  s.release(k);
}

Task<> until(Kernel& k, Time t, std::vector<Time>& woke) {
  co_await k.until(t);
  woke.push_back(k.now());
}

}  // namespace

TEST_CASE("a wait queue wakes its waiters first in, first out, one or all", "[wait]") {
  Kernel k;
  WaitQueue q;
  std::vector<int> woke;
  CHECK(q.empty());
  CHECK_FALSE(q.wake_one(k));
  for (int id = 1; id <= 4; ++id) k.spawn(wait_in(q, id, woke));
  k.run();
  CHECK(woke.empty());
  CHECK(q.wake_one(k));
  CHECK(woke.empty());  // woken through the kernel, not from inside wake_one
  k.run();
  CHECK(woke == std::vector<int>{1});
  q.wake_all(k);
  k.run();
  CHECK(woke == std::vector<int>{1, 2, 3, 4});
  CHECK(q.empty());
}

TEST_CASE("a moved wait queue keeps its waiters", "[wait]") {
  Kernel k;
  WaitQueue q;
  std::vector<int> woke;
  k.spawn(wait_in(q, 1, woke));
  k.spawn(wait_in(q, 2, woke));
  k.run();
  WaitQueue moved = std::move(q);
  CHECK(q.empty());
  moved.wake_all(k);
  k.run();
  CHECK(woke == std::vector<int>{1, 2});
}

TEST_CASE("a semaphore hands released units to its waiters in order", "[wait]") {
  Kernel k;
  Semaphore s(1);
  std::vector<std::string> log;
  for (int id = 1; id <= 3; ++id) k.spawn(take(s, k, id, log));
  k.run();
  CHECK(log == std::vector<std::string>{"1@0"});  // one unit: the others wait
  CHECK(s.available() == 0);
  CHECK(s.has_waiters());
  k.spawn(release_at(k, s, 10));
  k.spawn(take(s, k, 4, log));  // comes after 2 and 3: takes no unit ahead of them
  k.run();
  CHECK(log == std::vector<std::string>{"1@0", "2@10"});
  k.spawn(release_at(k, s, 20));
  k.spawn(release_at(k, s, 30));
  k.spawn(release_at(k, s, 40));
  k.run();
  CHECK(log == std::vector<std::string>{"1@0", "2@10", "3@20", "4@30"});
  CHECK(s.available() == 1);  // the last release found nobody waiting
  CHECK_FALSE(s.has_waiters());
}

TEST_CASE("a signal wakes every waiter in order, and later waits pass at once", "[wait]") {
  Kernel k;
  Signal done(k);
  std::vector<std::string> log;
  k.spawn(wait_for(done, k, 1, log));
  k.spawn(wait_for(done, k, 2, log));
  k.at(5, done.firing());
  k.run();
  CHECK(done.fired());
  CHECK(log == std::vector<std::string>{"1@5", "2@5"});
  const auto events = k.events_processed();
  k.spawn(wait_for(done, k, 3, log));
  k.run();
  CHECK(log.back() == "3@5");
  CHECK(k.events_processed() == events + 1);  // the spawn only: no wake-up event
}

TEST_CASE("until resumes at the time given, or at once when that has passed", "[wait]") {
  Kernel k;
  std::vector<Time> woke;
  k.spawn(until(k, 7, woke));
  k.run();
  CHECK(woke == std::vector<Time>{7});
  const auto events = k.events_processed();
  k.spawn(until(k, 3, woke));
  k.run();
  CHECK(woke == std::vector<Time>{7, 7});
  CHECK(k.events_processed() == events + 1);
}
