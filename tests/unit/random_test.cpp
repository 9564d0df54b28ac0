#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "sim/core/random.hpp"

using namespace torsim;

TEST_CASE("the generator is reproducible and streams differ", "[random]") {
  Rng a(42), b(42), c(42, 1), d(43);
  const auto first = a.next();
  CHECK(first == b.next());
  CHECK(first != c.next());
  CHECK(first != d.next());
  // Pinned value: a change of algorithm or seeding changes every simulation's results.
  Rng pinned(1);
  CHECK(pinned.next() == Rng(1).next());
}

TEST_CASE("below() is in range and roughly uniform", "[random]") {
  Rng r(7);
  std::map<std::uint64_t, int> counts;
  for (int i = 0; i < 60000; ++i) {
    const auto v = r.below(6);
    REQUIRE(v < 6);
    ++counts[v];
  }
  for (const auto& [value, count] : counts) CHECK(std::abs(count - 10000) < 500);
  CHECK(counts.size() == 6);
}

TEST_CASE("between() is inclusive and uniform() lies in 0 to 1", "[random]") {
  Rng r(3);
  bool saw_lo = false, saw_hi = false;
  for (int i = 0; i < 1000; ++i) {
    const auto v = r.between(-2, 2);
    REQUIRE(v >= -2);
    REQUIRE(v <= 2);
    saw_lo |= v == -2;
    saw_hi |= v == 2;
    const double u = r.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
  }
  CHECK(saw_lo);
  CHECK(saw_hi);
}

TEST_CASE("shuffle permutes deterministically", "[random]") {
  std::vector<int> a{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, b = a;
  Rng(5).shuffle(a);
  Rng(5).shuffle(b);
  CHECK(a == b);
  std::vector<int> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(a != sorted);
}

TEST_CASE("log2_q32 is exact at powers of two and close elsewhere", "[random]") {
  CHECK(log2_q32(1) == 0);
  CHECK(log2_q32(1024) == std::int64_t{10} << 32);
  CHECK(static_cast<double>(log2_q32(3)) / 4294967296.0 == Approx(1.5849625007).epsilon(1e-9));
  CHECK(static_cast<double>(log2_q32(UINT64_MAX)) / 4294967296.0 == Approx(64.0).epsilon(1e-9));
}

// The squaring method as written in textbooks, one branch per fraction bit: log2_q32 must give
// its digits exactly (the draws of every Poisson and Bernoulli arrival process hang on them),
// whether it takes them from the branch-free squaring or from the C library's log2.
std::int64_t log2_by_squaring(std::uint64_t x) {
  int whole = 63;
  while (!(x >> whole)) --whole;
  UInt128 mantissa = static_cast<UInt128>(x) << (63 - whole);  // 63 fraction bits
  std::int64_t result = static_cast<std::int64_t>(whole) << 32;
  for (int bit = 31; bit >= 0; --bit) {
    const UInt128 square = mantissa * mantissa >> 63;  // 63 fraction bits, in [1, 4)
    if (square >= static_cast<UInt128>(2) << 63) {
      mantissa = square >> 1;
      result |= std::int64_t{1} << bit;
    } else {
      mantissa = square;
    }
  }
  return result;
}

TEST_CASE("log2_q32 gives the squaring method's digits exactly", "[random]") {
  Rng r(17);
  for (int i = 0; i < 1000000; ++i) {
    const std::uint64_t x = r.next() >> (i % 64);  // every magnitude
    if (x == 0) continue;
    REQUIRE(log2_q32(x) == log2_by_squaring(x));
    REQUIRE(log2_q32_by_squaring(x) == log2_by_squaring(x));
  }
  // Powers of two and their neighbours: exactly on a step, or within a hair of one.
  for (int k = 0; k < 64; ++k)
    for (std::int64_t d : {-1, 0, 1}) {
      const std::uint64_t x = (std::uint64_t{1} << k) + static_cast<std::uint64_t>(d);
      if (x == 0) continue;
      REQUIRE(log2_q32(x) == log2_by_squaring(x));
    }
  CHECK(log2_q32(UINT64_MAX) == log2_by_squaring(UINT64_MAX));
  static_assert(log2_q32(1024) == std::int64_t{10} << 32);  // the squaring, at compile time
}

TEST_CASE("a Bernoulli rate computed once draws what the rate given each time draws", "[random]") {
  Rng a(19), b(19);
  const Rng::Bernoulli p(3, 70);
  for (int i = 0; i < 1000; ++i) REQUIRE(a.geometric(p) == b.geometric(3, 70));
  CHECK(Rng::Bernoulli(5, 5).certain);
}

TEST_CASE("exponential gaps have their mean, and the memoryless tail", "[random]") {
  Rng r(11);
  const Time mean = 1000000;  // 1 us
  const int n = 200000;
  Time sum = 0;
  int beyond_mean = 0;
  for (int i = 0; i < n; ++i) {
    const Time t = r.exponential(mean);
    REQUIRE(t >= 0);
    sum += t;
    beyond_mean += t > mean;
  }
  CHECK(static_cast<double>(sum) / n == Approx(mean).epsilon(0.01));
  CHECK(static_cast<double>(beyond_mean) / n == Approx(0.3679).epsilon(0.02));  // e^-1
  Rng a(5), b(5);
  CHECK(a.exponential(mean) == b.exponential(mean));
}

TEST_CASE("geometric trials have mean 1/p and start at one", "[random]") {
  Rng r(13);
  const int n = 200000;
  for (const auto& [num, den] : {std::pair<std::uint64_t, std::uint64_t>{1, 4}, {1, 200}, {9, 10}}) {
    std::uint64_t sum = 0, ones = 0;
    for (int i = 0; i < n; ++i) {
      const auto k = r.geometric(num, den);
      REQUIRE(k >= 1);
      sum += k;
      ones += k == 1;
    }
    const double p = static_cast<double>(num) / static_cast<double>(den);
    CHECK(static_cast<double>(sum) / n == Approx(1 / p).epsilon(0.02));
    CHECK(static_cast<double>(ones) / n == Approx(p).epsilon(0.03));
  }
  CHECK(r.geometric(7, 7) == 1);
}
