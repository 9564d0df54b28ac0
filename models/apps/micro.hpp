// The workloads' registry entries, one defined in each file, and the figures the micro-benchmarks
// derive from timed loops.
#pragma once

#include "models/apps/workload.hpp"

namespace torsim::apps {

extern const WorkloadEntry kPingPongWorkload;
extern const WorkloadEntry kBandwidthWorkload;
extern const WorkloadEntry kMessageRateWorkload;
extern const WorkloadEntry kFloodWorkload;
extern const WorkloadEntry kTrafficWorkload;
extern const WorkloadEntry kNQueensWorkload;
extern const WorkloadEntry kNamdWorkload;
extern const WorkloadEntry kCollectiveWorkload;
extern const WorkloadEntry kDdtbenchWorkload;
extern const WorkloadEntry kBisectionWorkload;
extern const WorkloadEntry kFft3dWorkload;
extern const WorkloadEntry kHaloExchangeWorkload;
extern const WorkloadEntry kTraceWorkload;

/// "pairs": "one" (rank 0 and "peer") or "all" (rank i and rank i + n/2), whether all; a peer
/// given with all pairs would be ignored, so it is an error.
inline bool all_pairs(const ParamReader& r) {
  const bool all = r.choice<bool>("pairs", {{"one", false}, {"all", true}});
  if (all && r.has("peer"))
    r.where("peer").fail("peer is read only with pairs one; with pairs all rank i's is i + n/2");
  return all;
}

/// With "pairs": "all", rank i pairs with rank i + n/2: the job needs an even number of ranks.
inline void check_pairs(const rt::Job& job, const Where& where) {
  if (job.size() % 2 != 0)
    (where / "pairs")
        .fail("'all' pairs the two halves of the job; it has an odd number of ranks (" + std::to_string(job.size()) +
              ")");
}

/// One-way figures derived from a timed loop: microseconds and MB/s (1 MB = 10^6 B).
inline double microseconds(Time t) { return to_microseconds(t); }
inline double megabytes_per_second(Bytes bytes, Time t) {
  return t > 0 ? static_cast<double>(bytes) / to_seconds(t) / 1e6 : 0.0;
}

}  // namespace torsim::apps
