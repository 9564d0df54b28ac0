// The project's own seeded random numbers. The standard library's distributions differ between
// implementations, so everything here is defined in this file by integer arithmetic (the
// logarithm's fast path reads the C library's log2 only where no rounding can change a digit):
// the same seed gives the same numbers on any machine and compiler.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/core/time.hpp"

namespace torsim {

/// splitmix64 (Steele, Lea, Flood, OOPSLA 2014): used to expand seeds.
constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// log2(x) in fixed point with 32 fraction bits, for x >= 1, by integer arithmetic only (the
/// integer part from the leading bit, each fraction bit from squaring the mantissa), so that
/// the distributions below give the same draws on every machine.
constexpr std::int64_t log2_q32_by_squaring(std::uint64_t x) {
  int whole = 63;
  while (!(x >> whole)) --whole;
  std::uint64_t mantissa = x << (63 - whole);  // in [1, 2) with 63 fraction bits
  std::int64_t result = static_cast<std::int64_t>(whole) << 32;
  // Without branches: each bit is a coin toss to a branch predictor (a logarithm took 160 ns
  // with them, most of it mispredictions).
  for (int bit = 31; bit >= 0; --bit) {
    const UInt128 square = static_cast<UInt128>(mantissa) * mantissa;  // [1, 4) with 126 fraction bits
    const auto high = static_cast<std::uint64_t>(square >> 64), low = static_cast<std::uint64_t>(square);
    const std::uint64_t at_least_two = high >> 63;  // the square is in [2, 4): this bit is 1, halve it
    mantissa = high << (1 - at_least_two) | (low >> 63 & (at_least_two - 1));  // masks: GCC branches on a ?:
    result |= static_cast<std::int64_t>(at_least_two) << bit;
  }
  return result;
}

/// log2_q32_by_squaring's value, taken from the C library's log2 where that cannot differ: the
/// squaring's digits are those of floor(log2(x) x 2^32) but within 2^-29 of a step (its
/// truncations lose at most 2^-61 of log2(x)), and a library's log2 a few units off in the
/// last place of a double is off by under 2^-12 of a step (a unit is 2^-15 of a step for x
/// near 2^64), so away from a step by more than 2^-10 both give the same value; nearer (about
/// 0.2 % of uniform draws), the squaring decides. 3.5 ns against 59 ns a logarithm.
constexpr std::int64_t log2_q32(std::uint64_t x) {
  if (std::is_constant_evaluated()) return log2_q32_by_squaring(x);
  const double steps = std::log2(static_cast<double>(x)) * 0x1p32;  // exact scaling
  const double whole = std::floor(steps);
  const double off_step = steps - whole;
  if (off_step > 0x1p-10 && off_step < 1 - 0x1p-10) return static_cast<std::int64_t>(whole);
  return log2_q32_by_squaring(x);
}

/// xoshiro256** (Blackman and Vigna, 2018).
class Rng {
 public:
  /// `stream` separates independent uses of one scenario seed (placement, traffic, ...).
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0) {
    std::uint64_t s = seed ^ (0xd1b54a32d192ed03ULL * (stream + 1));
    for (auto& word : state_) word = splitmix64(s);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform integer in [0, bound), unbiased (Lemire, ACM TOMACS 2019). bound > 0.
  std::uint64_t below(std::uint64_t bound) {
    auto product = static_cast<UInt128>(next()) * bound;
    auto low = static_cast<std::uint64_t>(product);
    if (low < bound) {
      const std::uint64_t threshold = -bound % bound;
      while (low < threshold) {
        product = static_cast<UInt128>(next()) * bound;
        low = static_cast<std::uint64_t>(product);
      }
    }
    return static_cast<std::uint64_t>(product >> 64);
  }

  /// Uniform integer in [lo, hi] inclusive.
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// An exponentially distributed time of the given mean (the gaps of a Poisson process):
  /// mean x ln(1/U) for U uniform in (0, 1], the logarithm in fixed point.
  Time exponential(Time mean) {
    const std::uint64_t u = (next() >> 11) + 1;                                            // U x 2^53, in [1, 2^53]
    const auto minus_log2 = static_cast<UInt128>((std::int64_t{53} << 32) - log2_q32(u));  // log2(1/U), Q32
    constexpr UInt128 kLn2 = 2977044472;                                                   // ln 2 x 2^32
    return static_cast<Time>(static_cast<UInt128>(mean) * minus_log2 * kLn2 >> 64);
  }

  /// A Bernoulli trial's success probability `num` / `den` (0 < num), with the logarithm that
  /// geometric() divides by computed once (two of a draw's three logarithms otherwise).
  struct Bernoulli {
    Bernoulli(std::uint64_t num, std::uint64_t den)
        : certain(num >= den), minus_log_fail(certain ? 0 : log2_q32(den) - log2_q32(den - num)) {}
    bool certain;                 // p >= 1: every trial succeeds
    std::int64_t minus_log_fail;  // log2(1 / (1 - p)), Q32
  };

  /// Trials up to and including the first success, each a success with probability `p`: the
  /// slots between arrivals of a Bernoulli process, 1 + floor(ln U / ln(1 - p)) with both
  /// logarithms in fixed point.
  std::uint64_t geometric(const Bernoulli& p) {
    if (p.certain) return 1;
    const std::uint64_t u = (next() >> 11) + 1;
    const std::int64_t minus_log_u = (std::int64_t{53} << 32) - log2_q32(u);
    return 1 + static_cast<std::uint64_t>(minus_log_u / std::max<std::int64_t>(1, p.minus_log_fail));
  }
  std::uint64_t geometric(std::uint64_t num, std::uint64_t den) { return geometric(Bernoulli(num, den)); }

  /// Fisher-Yates shuffle driven by below().
  template <class T>
  void shuffle(std::vector<T>& items) {
    for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[below(i)]);
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

}  // namespace torsim
