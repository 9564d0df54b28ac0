// results.json, the CSVs and the summary table of a run.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/run/scenario.hpp"
#include "sim/run/simulation.hpp"

namespace torsim {

struct CompletedPoint {
  SweepPoint point;
  PointResult result;
};

/// Everything deterministic goes in the document; wall-clock figures only under "wall".
Json results_document(const Scenario& scenario, const Json& machine, const std::vector<CompletedPoint>& points,
                      double wall_seconds);

/// Writes results.json and one CSV per series (and links.csv) into `dir`, each file written
/// to a temporary name and renamed, so a reader never sees a half-written file.
void write_outputs(const std::string& dir, const Json& results, const std::vector<CompletedPoint>& points,
                   const Machine& machine, bool csv, bool link_stats);

/// A readable table of the metrics and series on `out`.
void print_summary(std::ostream& out, const Json& results);

/// Formats a number as results.json does (shortest round-trip form).
std::string format_number(double value);

}  // namespace torsim
