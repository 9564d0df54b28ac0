#include <catch2/catch.hpp>

#include "models/nic/registration_cache.hpp"

using namespace torsim;
using nic::RegistrationCache;

TEST_CASE("a registration costs a call and each page, at least one", "[nic][registration]") {
  CHECK(nic::registration_cost(1000, 10, 4096, 0) == 1010);
  CHECK(nic::registration_cost(1000, 10, 4096, 4096) == 1010);
  CHECK(nic::registration_cost(1000, 10, 4096, 4097) == 1020);
  CHECK(nic::registration_cost(1000, 10, 4096, 1 << 20) == 1000 + 256 * 10);
}

TEST_CASE("an unbounded registration cache keeps every buffer, per rank", "[nic][registration]") {
  RegistrationCache cache(2, 0);
  for (std::uint64_t b = 0; b < 100; ++b) CHECK_FALSE(cache.holds(0, b));
  for (std::uint64_t b = 0; b < 100; ++b) CHECK(cache.holds(0, b));
  CHECK_FALSE(cache.holds(1, 7));  // rank 1 registered nothing yet
  CHECK(cache.holds(1, 7));
}

TEST_CASE("a bounded registration cache evicts the least recently used buffer", "[nic][registration]") {
  RegistrationCache cache(1, 2);
  CHECK_FALSE(cache.holds(0, 1));
  CHECK_FALSE(cache.holds(0, 2));
  CHECK(cache.holds(0, 1));        // 1 is now the most recently used
  CHECK_FALSE(cache.holds(0, 3));  // full: 2 leaves
  CHECK(cache.holds(0, 1));
  CHECK(cache.holds(0, 3));
  CHECK_FALSE(cache.holds(0, 2));  // registered again: 1 leaves
  CHECK_FALSE(cache.holds(0, 1));
}
