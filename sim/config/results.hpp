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

  void add(std::vector<double> row) { rows.push_back(std::move(row)); }
  Json to_json() const;
};

struct RunOutput {
  Json metrics = Json::object();  // name (with unit suffix) -> number
  std::vector<Series> series;
  Series& add_series(std::string name, std::vector<std::string> columns);
};

}  // namespace torsim
