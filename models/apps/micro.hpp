// The workloads' registry entries, one defined in each file, and the figures the micro-benchmarks
// derive from timed loops.
#pragma once

#include "models/apps/workload.hpp"
#include "sim/config/fields.hpp"
#include "sim/config/unused.hpp"

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

/// The "name" key that selects a workload: the first row of its table.
inline constexpr ParamSpec kWorkloadName{"name", ParamKind::text, kRequired, "", "", "", "workload name", "-"};
template <class S>
constexpr Field<S> workload_name() {
  return unbound<S>(kWorkloadName);
}

/// "pairs": "one" (rank 0 and "peer") or "all" (rank i and rank i + n/2).
inline constexpr ChoiceName<bool> kPairsNames[] = {{"one", false}, {"all", true}};

/// A peer given with all pairs is read by nobody (a sweep over pairs reads it where it is one).
inline void check_peer(const ParamReader& r, bool all_pairs) {
  if (all_pairs && r.has("peer"))
    not_used(r.where("peer"), "peer is read only with pairs one; with pairs all rank i's is i + n/2");
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
