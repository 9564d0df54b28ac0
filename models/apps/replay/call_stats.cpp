#include "models/apps/replay/call_stats.hpp"

#include <algorithm>
#include <bit>

namespace torsim::replay {

namespace {
constexpr int kMantissaBits = 10;
constexpr std::size_t kSubBuckets = std::size_t{1} << kMantissaBits;
}  // namespace

// Values below 2^10 have a bucket each; above, bucket = 2^10 + (exponent - 10) * 2^10 + the
// ten bits after the leading one.
std::size_t DurationHistogram::bucket(Time duration) {
  const auto value = static_cast<std::uint64_t>(std::max<Time>(duration, 0));
  if (value < kSubBuckets) return static_cast<std::size_t>(value);
  const int exponent = std::bit_width(value) - 1;
  const auto mantissa = static_cast<std::size_t>(value >> (exponent - kMantissaBits)) & (kSubBuckets - 1);
  return kSubBuckets + static_cast<std::size_t>(exponent - kMantissaBits) * kSubBuckets + mantissa;
}

Time DurationHistogram::lowest(std::size_t bucket) {
  if (bucket < kSubBuckets) return static_cast<Time>(bucket);
  const std::size_t exponent = (bucket - kSubBuckets) / kSubBuckets + kMantissaBits;
  const std::size_t mantissa = (bucket - kSubBuckets) % kSubBuckets;
  return static_cast<Time>((kSubBuckets + mantissa) << (exponent - kMantissaBits));
}

void DurationHistogram::add(Time duration) {
  const std::size_t b = bucket(duration);
  if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
  ++buckets_[b];
  ++count_;
}

Time DurationHistogram::median() const {
  std::int64_t remaining = (count_ - 1) / 2;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    if (remaining < buckets_[b]) return lowest(b);
    remaining -= buckets_[b];
  }
  return 0;
}

void CallStats::add(CallType type, Time recorded, Time simulated) {
  CallTypeStats& s = by_type_[static_cast<std::size_t>(type)];
  ++s.count;
  s.simulated_total += simulated;
  s.simulated.add(simulated);
  if (recorded == kNoTime) return;
  s.recorded_total += recorded;
  s.recorded.add(recorded);
}

}  // namespace torsim::replay
