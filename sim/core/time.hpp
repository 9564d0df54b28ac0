// Simulated time and the integer arithmetic that converts sizes and rates into it.
#pragma once

#include <cstdint>

namespace torsim {

// 128-bit integers for exact intermediate products (GCC/Clang extension).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

/// Simulated time in picoseconds. Integer, so runs are bit-for-bit reproducible.
using Time = std::int64_t;
/// A size in bytes.
using Bytes = std::int64_t;
/// A rate in bytes per second (integer: rates in presets are exact decimals).
using Rate = std::int64_t;

inline constexpr Time kPicosecond = 1;
inline constexpr Time kNanosecond = 1000;
inline constexpr Time kMicrosecond = 1000 * kNanosecond;
inline constexpr Time kMillisecond = 1000 * kMicrosecond;
inline constexpr Time kSecond = 1000 * kMillisecond;
inline constexpr Time kNever = INT64_MAX;

/// Time to move `bytes` at `rate`, rounded up to the next picosecond (exact integer math).
constexpr Time transfer_time(Bytes bytes, Rate rate) {
  // Up to 9.2 MB the numerator, plus rate - 1, fits 64 unsigned bits: one hardware division
  // instead of a call to the 128-bit one, same result.
  if (bytes >= 0 && bytes <= INT64_MAX / kSecond && rate > 0) {
    const auto numerator = static_cast<std::uint64_t>(bytes) * kSecond;
    return static_cast<Time>((numerator + static_cast<std::uint64_t>(rate) - 1) / static_cast<std::uint64_t>(rate));
  }
  const auto numerator = static_cast<Int128>(bytes) * kSecond;
  return static_cast<Time>((numerator + rate - 1) / rate);
}

/// Time at which byte offset `offset` of a stream at `rate` has been sent, counted from the
/// stream's start. Differences of this function split a transfer into pieces whose durations
/// add up exactly to transfer_time() of the whole.
constexpr Time stream_time(Bytes offset, Rate rate) { return transfer_time(offset, rate); }

constexpr double to_seconds(Time t) { return static_cast<double>(t) / kSecond; }
constexpr double to_microseconds(Time t) { return static_cast<double>(t) / kMicrosecond; }

}  // namespace torsim
