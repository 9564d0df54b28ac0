#include <algorithm>

#include "models/apps/micro.hpp"
#include "sim/config/registry.hpp"

namespace torsim::apps {

void Workload::check(const rt::Job& job, const Where& where) const {
  if (job.size() < minimum_ranks())
    where.fail("the workload needs at least " + std::to_string(minimum_ranks()) + " ranks; the job has " +
               std::to_string(job.size()) + " (see 'placement')");
}

const std::vector<WorkloadEntry>& workloads() {
  static const std::vector<WorkloadEntry> entries{
      kPingPongWorkload, kBandwidthWorkload,    kMessageRateWorkload, kFloodWorkload,     kTrafficWorkload,
      kNQueensWorkload,  kNamdWorkload,         kCollectiveWorkload,  kBisectionWorkload, kFft3dWorkload,
      kDdtbenchWorkload, kHaloExchangeWorkload, kTraceWorkload};
  return entries;
}

std::unique_ptr<Workload> make_workload(const Json& spec, const Where& where) {
  if (!spec.is_object()) where.fail("expected an object such as {\"name\": \"pingpong\"}, got " + preview(spec));
  if (!spec.contains("name") || !spec["name"].is_string()) where.fail("expected a workload \"name\" string");
  const auto name = spec["name"].get<std::string>();
  const auto& entry = find_entry(workloads(), name, "workload", where / "name");
  return entry.make(ParamReader(spec, where, *entry.params));
}

}  // namespace torsim::apps
