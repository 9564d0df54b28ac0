#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/slot_pool.hpp"

using namespace torsim;

TEST_CASE("a slot pool hands out new indices, then the last released first", "[slot_pool]") {
  SlotPool<int> pool;
  CHECK(pool.add(10) == 0);
  CHECK(pool.add(11) == 1);
  CHECK(pool.add(12) == 2);
  CHECK(pool.in_use() == 3);
  pool.release(0);
  pool.release(2);
  CHECK(pool.in_use() == 1);
  CHECK(pool[2] == 12);  // readable after release, until reused
  CHECK(pool.add(20) == 2);
  CHECK(pool[2] == 20);
  CHECK(pool.add(21) == 0);
  CHECK(pool.add(22) == 3);  // the free list is empty: a new record
  CHECK(pool[1] == 11);
  CHECK(pool.in_use() == 4);
}

TEST_CASE("take() leaves a reused record as its last user left it", "[slot_pool]") {
  SlotPool<std::vector<int>> pool;
  const auto first = pool.take();
  CHECK(pool[first].empty());  // new: default-constructed
  pool[first].assign(100, 7);
  pool[first].clear();
  pool.release(first);
  const auto again = pool.take();
  CHECK(again == first);
  CHECK(pool[again].capacity() >= 100);  // the packet model keeps its routes' buffers this way
  const auto replaced = pool.add(std::vector<int>{1, 2});
  CHECK(pool[replaced] == std::vector<int>{1, 2});
  CHECK(pool.in_use() == 2);
}
