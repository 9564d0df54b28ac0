#include "sim/config/results.hpp"

namespace torsim {

Json Series::to_json() const {
  Json out = Json::object();
  if (label_column.empty()) {
    out["columns"] = columns;
    out["rows"] = rows;
    return out;
  }
  out["columns"] = Json::array({label_column});
  for (const auto& c : columns) out["columns"].push_back(c);
  out["rows"] = Json::array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Json row = Json::array({labels[i]});
    for (const double v : rows[i]) row.push_back(v);
    out["rows"].push_back(std::move(row));
  }
  return out;
}

Series Series::from_json(std::string name, const Json& json) {
  Series s{std::move(name), json.at("columns").get<std::vector<std::string>>(), {}, {}, {}};
  const Json& rows = json.at("rows");
  const bool named = !rows.empty() && rows[0].is_array() && !rows[0].empty() && rows[0][0].is_string();
  if (!named) {
    s.rows = rows.get<std::vector<std::vector<double>>>();
    return s;
  }
  s.label_column = s.columns.front();
  s.columns.erase(s.columns.begin());
  for (const auto& row : rows) {
    s.labels.push_back(row.at(0).get<std::string>());
    s.rows.emplace_back();
    for (std::size_t c = 1; c < row.size(); ++c) s.rows.back().push_back(row[c].get<double>());
  }
  return s;
}

Series& RunOutput::add_series(std::string name, std::vector<std::string> columns) {
  series.push_back({std::move(name), std::move(columns), {}, {}, {}});
  return series.back();
}

}  // namespace torsim
