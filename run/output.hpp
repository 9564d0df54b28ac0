// results.json, the CSVs and the summary table of a run.
#pragma once

#include <functional>
#include <map>
#include <ostream>
#include <set>
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

/// A point as results.json holds it: everything deterministic (wall-clock figures go only in
/// the document's "wall").
Json point_json(const CompletedPoint& point);
/// results.json's "scenario" and "wall" members.
Json scenario_json(const Scenario& scenario);
Json wall_json(double wall_seconds, std::uint64_t events);

/// results.json written point by point as a run's points finish, so that a sweep's results are
/// never all held in memory; byte for byte what Json::dump(2) gives for the whole document.
class ResultsJsonWriter {
 public:
  /// Writes the document up to its first point ("machine" comes first, then "points").
  ResultsJsonWriter(FileWriter& out, const Json& machine);
  void add_point(const Json& point);
  /// Closes "points" and writes the members of `rest` (each sorting after "points").
  void finish(const Json& rest);

 private:
  FileWriter& out_;
  std::size_t points_ = 0;
};

/// The series CSVs, built point by point: one file per series name, the sweep values first (a
/// list or object value as compact JSON), then the series' own columns, a row per series row.
/// Fields are quoted as RFC 4180 says.
class SeriesCsv {
 public:
  /// Hands the text one point (in results.json's form) adds to each file to `out(file, text)`:
  /// the header first, for a file the point starts.
  void add(const Json& point, const std::function<void(const std::string&, std::string_view)>& out);

 private:
  std::set<std::string> started_;
};
/// Every series CSV (file name -> text) of a results document.
std::map<std::string, std::string> series_csvs(const Json& results);

/// A CSV field: as it is, or in double quotes (inner quotes doubled) when it holds a comma, a
/// quote or a line break.
std::string csv_field(std::string_view text);

/// links.csv: every link's busy time in each point, one row per link.
inline constexpr std::string_view kLinksCsvHeader = "point,link,kind,from,to,dim,direction,busy_us\n";
std::string links_rows(const CompletedPoint& point, const Machine& machine);

/// A readable table of the metrics and series on `out`, from a results document or a run's
/// summary (whose "point_count" may say that more points than it holds were run).
void print_summary(std::ostream& out, const Json& results);

/// Formats a number as results.json does (shortest round-trip form).
std::string format_number(double value);

}  // namespace torsim
