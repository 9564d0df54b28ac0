// Time per MPI call type, recorded and simulated: counts, totals and medians. Medians come
// from log-linear histograms (1,024 sub-buckets per power of two: durations below 1,024 ps
// exactly, longer ones to within 1/1,024), so a replay of millions of calls keeps no list of
// them.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/apps/replay/trace.hpp"

namespace torsim::replay {

class DurationHistogram {
 public:
  void add(Time duration);
  std::int64_t count() const { return count_; }
  /// The lower median: the smallest value of the bucket holding sample (count - 1) / 2 in
  /// ascending order; 0 when empty.
  Time median() const;

  static std::size_t bucket(Time duration);
  static Time lowest(std::size_t bucket);

 private:
  std::vector<std::int64_t> buckets_;
  std::int64_t count_ = 0;
};

struct CallTypeStats {
  std::int64_t count = 0;
  Time recorded_total = 0;
  Time simulated_total = 0;
  DurationHistogram recorded, simulated;
};

class CallStats {
 public:
  /// `recorded` is kNoTime when the trace records no times.
  void add(CallType type, Time recorded, Time simulated);
  const CallTypeStats& of(CallType type) const { return by_type_[static_cast<std::size_t>(type)]; }

 private:
  std::array<CallTypeStats, kCallTypes> by_type_;
};

}  // namespace torsim::replay
