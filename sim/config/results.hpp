// What a run produces: named metrics and tabular series, written to results.json and CSVs.
#pragma once

#include <string>
#include <vector>

#include "sim/config/params.hpp"

namespace torsim {

/// A table: one row per point of a sweep (e.g. message size -> latency).
struct Series {
  std::string name;
  std::vector<std::string> columns;  // names carry their unit: "size_bytes", "latency_us"
  std::vector<std::vector<double>> rows;
  /// A series whose rows are named (a trace replay's call types): the name column's title and
  /// each row's name, written as the first column before the numbers. Empty otherwise.
  std::string label_column;
  std::vector<std::string> labels;

  void add(std::vector<double> row) { rows.push_back(std::move(row)); }
  void add(std::string label, std::vector<double> row) {
    labels.push_back(std::move(label));
    rows.push_back(std::move(row));
  }
  /// {"columns": [...], "rows": [...]}, a named row's name as its first cell.
  Json to_json() const;
  /// The inverse of to_json (rows named when the first cell is text).
  static Series from_json(std::string name, const Json& json);
};

struct RunOutput {
  Json metrics = Json::object();  // name (with unit suffix) -> number
  std::vector<Series> series;
  Series& add_series(std::string name, std::vector<std::string> columns);
};

}  // namespace torsim
