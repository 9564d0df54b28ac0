#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/core/fifo.hpp"
#include "sim/core/huge_pages.hpp"

using namespace torsim;

namespace {
using RecycledFifo = Fifo<int, RecycledAllocator<int>>;  // a rank's receive queues
template <class Queue>
std::vector<int> drain(Queue& fifo) {
  std::vector<int> out;
  while (!fifo.empty()) out.push_back(fifo.pop_front());
  return out;
}
}  // namespace

TEST_CASE("a fifo pops in push order", "[fifo]") {
  Fifo<int> fifo;
  CHECK(fifo.empty());
  for (int i = 0; i < 5; ++i) fifo.push_back(i);
  CHECK(fifo.size() == 5);
  CHECK(fifo.front() == 0);
  CHECK(drain(fifo) == std::vector<int>{0, 1, 2, 3, 4});
}

TEST_CASE("take_first removes the first match and keeps the others' order, on either side", "[fifo]") {
  Fifo<int> fifo;
  for (int i = 0; i < 10; ++i) fifo.push_back(i);
  int taken = -1;
  // Near the front: the items before it move over it.
  REQUIRE(fifo.take_first([](int v) { return v >= 2; }, taken));
  CHECK(taken == 2);
  // Near the back: the items after it move.
  REQUIRE(fifo.take_first([](int v) { return v == 8; }, taken));
  CHECK(taken == 8);
  // The front itself.
  REQUIRE(fifo.take_first([](int v) { return v == 0; }, taken));
  CHECK(taken == 0);
  CHECK_FALSE(fifo.take_first([](int v) { return v == 42; }, taken));
  CHECK(taken == 0);  // untouched when nothing matches
  CHECK(fifo.size() == 7);
  CHECK(drain(fifo) == std::vector<int>{1, 3, 4, 5, 6, 7, 9});
}

TEST_CASE("taking the last item empties the fifo, which then starts again", "[fifo]") {
  Fifo<int> fifo;
  fifo.push_back(7);
  int taken = 0;
  REQUIRE(fifo.take_first([](int) { return true; }, taken));
  CHECK(fifo.empty());
  CHECK(fifo.size() == 0);
  fifo.push_back(8);
  CHECK(fifo.front() == 8);
  CHECK(fifo.size() == 1);
}

// The queue a matching engine keeps: pushes, pops and takes from anywhere, against a
// std::deque doing the same. Long queues cross the point where room at the front is dropped.
TEMPLATE_TEST_CASE("a fifo behaves as a deque under random pushes, pops and takes", "[fifo]", Fifo<int>, RecycledFifo) {
  TestType fifo;
  std::deque<int> reference;
  std::uint64_t state = 12345;
  const auto next = [&state](std::uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  int pushed = 0;
  for (int step = 0; step < 200000; ++step) {
    const bool growing = (step / 1000) % 2 == 0;  // phases: the queue grows to hundreds, then drains
    const auto op = next(10);
    if (op < (growing ? 6u : 2u) || reference.empty()) {
      fifo.push_back(pushed);
      reference.push_back(pushed++);
    } else if (op < (growing ? 8u : 6u)) {
      REQUIRE(fifo.pop_front() == reference.front());
      reference.pop_front();
    } else {
      const int wanted = reference[next(reference.size())] + static_cast<int>(next(3));  // may be absent
      int taken = -1;
      const bool found = fifo.take_first([wanted](int v) { return v == wanted; }, taken);
      const auto at = std::find(reference.begin(), reference.end(), wanted);
      REQUIRE(found == (at != reference.end()));
      if (found) {
        CHECK(taken == wanted);
        reference.erase(at);
      }
    }
    REQUIRE(fifo.size() == reference.size());
    if (!reference.empty()) REQUIRE(fifo.front() == reference.front());
  }
  std::vector<int> rest(reference.begin(), reference.end());
  CHECK(drain(fifo) == rest);
}
