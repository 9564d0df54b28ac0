#include "run/run_outputs.hpp"

namespace torsim {

RunOutputs::RunOutputs(OutputDir& out, const Scenario& scenario, bool csv, bool link_stats)
    : out_(out), scenario_(scenario), csv_(csv), link_stats_(link_stats) {}

FileWriter& RunOutputs::file(const std::string& name) {
  auto& writer = files_[name];
  if (!writer) writer = out_.open(name);
  return *writer;
}

void RunOutputs::start(const ScenarioRun& run) {
  machine_ = run.first.get();
  results_.emplace(file("results.json"), run.machine);
  if (link_stats_) file("links.csv").write(kLinksCsvHeader);
  summary_ = {{"machine", run.machine},
              {"scenario", {{"name", scenario_.name()}}},
              {"points", Json::array()},
              {"point_count", run.indices.size()}};
}

void RunOutputs::point(CompletedPoint&& p) {
  const Json json = point_json(p);
  results_->add_point(json);
  if (csv_) series_.add(json, [&](const std::string& name, std::string_view text) { file(name).write(text); });
  if (link_stats_) file("links.csv").write(links_rows(p, *machine_));
  events_ += p.result.events;
  if (summary_["points"].size() < kSummaryPoints) summary_["points"].push_back(json);
}

void RunOutputs::finish(const ScenarioRun& run, const Json& shard) {
  Json rest = {{"scenario", scenario_json(scenario_)},
               {"torsim_version", TORSIM_VERSION},
               {"wall", wall_json(run.wall_seconds, events_)}};
  if (!shard.is_null()) rest["shard"] = shard;
  results_->finish(rest);
  for (auto& [_, writer] : files_) writer->close();
}

}  // namespace torsim
