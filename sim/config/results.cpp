#include "sim/config/results.hpp"

namespace torsim {

Json Series::to_json() const {
  Json out = Json::object();
  out["columns"] = columns;
  out["rows"] = rows;
  return out;
}

Series& RunOutput::add_series(std::string name, std::vector<std::string> columns) {
  series.push_back({std::move(name), std::move(columns), {}});
  return series.back();
}

}  // namespace torsim
