// results.json, the CSVs and the summary table of a run.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "run/output_files.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"

namespace torsim {

struct CompletedPoint {
  std::size_t index = 0;  // in the whole sweep
  SweepPoint point;
  PointResult result;
};

/// Everything deterministic goes in the document; wall-clock figures only under "wall".
Json results_document(const Scenario& scenario, const Json& machine, const std::vector<CompletedPoint>& points,
                      double wall_seconds);

/// One CSV per series name (file name -> text) from a results document's points: the sweep
/// values first (a list or object value as compact JSON), then the series' own columns, a row
/// per series row, points in order. Fields are quoted as RFC 4180 says.
std::map<std::string, std::string> series_csvs(const Json& results);

/// A CSV field: as it is, or in double quotes (inner quotes doubled) when it holds a comma, a
/// quote or a line break.
std::string csv_field(std::string_view text);

/// links.csv: every link's busy time in each point (rows by point index, in the order given).
std::string links_csv(const std::vector<CompletedPoint>& points, const Machine& machine);
inline constexpr std::string_view kLinksCsvHeader = "point,link,kind,from,to,dim,direction,busy_us\n";

/// Stages results.json, one CSV per series (when `csv`) and links.csv (when `link_stats`).
void write_outputs(OutputDir& out, const Json& results, const std::vector<CompletedPoint>& points,
                   const Machine& machine, bool csv, bool link_stats);

/// A readable table of the metrics and series on `out`.
void print_summary(std::ostream& out, const Json& results);

/// Formats a number as results.json does (shortest round-trip form).
std::string format_number(double value);

}  // namespace torsim
