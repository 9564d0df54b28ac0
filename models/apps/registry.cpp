#include <algorithm>

#include "models/apps/micro.hpp"

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
  std::string valid;
  for (const auto& e : workloads()) {
    if (e.name == name) return e.make(ParamReader(spec, where, *e.params));
    valid += (valid.empty() ? "" : ", ") + std::string(e.name);
  }
  (where / "name").fail("unknown workload '" + name + "'; valid values are: " + valid);
}

}  // namespace torsim::apps
