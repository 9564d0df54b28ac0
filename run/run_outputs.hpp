// A run's output files, written as its points finish: results.json, one CSV per series and
// links.csv, all staged in the output directory (published by the caller), and what the console
// summary needs. Memory does not grow with the sweep beyond the summary's few fields per point.
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "run/runner.hpp"

namespace torsim {

class RunOutputs : public PointSink {
 public:
  RunOutputs(OutputDir& out, const Scenario& scenario, bool csv, bool link_stats);

  void start(const ScenarioRun& run) override;
  void point(CompletedPoint&& point) override;
  /// Completes results.json (with `shard` when it is not null) and closes every file.
  void finish(const ScenarioRun& run, const Json& shard);

  /// What the console summary prints: results.json's machine, scenario name and the first
  /// kSummaryPoints points, and "point_count", every point's count.
  const Json& summary() const { return summary_; }
  static constexpr std::size_t kSummaryPoints = 50;

 private:
  FileWriter& file(const std::string& name);

  OutputDir& out_;
  const Scenario& scenario_;
  bool csv_, link_stats_;
  const Machine* machine_ = nullptr;  // the first point's, for links.csv
  std::map<std::string, std::unique_ptr<FileWriter>> files_;
  std::optional<ResultsJsonWriter> results_;
  SeriesCsv series_;
  std::uint64_t events_ = 0;
  Json summary_;
};

}  // namespace torsim
