#include "run/output.hpp"

#include <cstdio>
#include <iomanip>
#include <map>
#include <sstream>

namespace torsim {

std::string format_number(double value) { return Json(value).dump(); }

Json point_json(const CompletedPoint& p) {
  Json point = Json::object();
  point["sweep"] = p.point.values;
  point["job"] = p.result.job;
  point["metrics"] = p.result.output.metrics;
  point["series"] = Json::object();
  for (const auto& s : p.result.output.series) point["series"][s.name] = s.to_json();
  point["counters"] = p.result.counters;
  point["simulated_time_us"] = to_microseconds(p.result.simulated_time);
  point["blocked_processes"] = p.result.blocked_processes;
  return point;
}

Json scenario_json(const Scenario& scenario) {
  return {{"name", scenario.name()}, {"file", scenario.file()}, {"seed", scenario.seed()}, {"spec", scenario.doc()}};
}

Json wall_json(double wall_seconds, std::uint64_t events) {
  return {{"wall_time_s", wall_seconds},
          {"events_per_second", wall_seconds > 0 ? static_cast<double>(events) / wall_seconds : 0.0}};
}

namespace {

// value.dump(2), every line after the first indented by `level` more spaces (JSON strings hold
// no raw line breaks, so every '\n' is a line of the layout).
std::string indented(const Json& value, std::size_t level) {
  const std::string text = value.dump(2);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    out += c;
    if (c == '\n') out.append(level, ' ');
  }
  return out;
}

}  // namespace

ResultsJsonWriter::ResultsJsonWriter(FileWriter& out, const Json& machine) : out_(out) {
  out_.write("{\n  \"machine\": " + indented(machine, 2) + ",\n  \"points\": [");
}

void ResultsJsonWriter::add_point(const Json& point) {
  out_.write(std::string(points_ ? ",\n    " : "\n    ") + indented(point, 4));
  ++points_;
}

void ResultsJsonWriter::finish(const Json& rest) {
  out_.write(points_ ? "\n  ]" : "]");
  for (const auto& [key, value] : rest.items()) out_.write(",\n  " + Json(key).dump() + ": " + indented(value, 2));
  out_.write("\n}\n");
}

namespace {
// A value as text: a string as it is, anything else (a number, a list, an object) as compact JSON.
std::string csv_cell(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }
}  // namespace

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

void SeriesCsv::add(const Json& point, const std::function<void(const std::string&, std::string_view)>& out) {
  for (const auto& [name, series] : point.at("series").items()) {
    std::string text;
    if (started_.insert(name).second) {
      for (const auto& [key, _] : point.at("sweep").items()) text += csv_field(key) + ",";
      const auto& columns = series.at("columns");
      for (std::size_t c = 0; c < columns.size(); ++c)
        text += (c ? "," : "") + csv_field(columns[c].get<std::string>());
      text += "\n";
    }
    std::string sweep;
    for (const auto& [_, value] : point.at("sweep").items()) sweep += csv_field(csv_cell(value)) + ",";
    for (const auto& row : series.at("rows")) {
      text += sweep;
      for (std::size_t c = 0; c < row.size(); ++c) text += (c ? "," : "") + row[c].dump();
      text += "\n";
    }
    out(name + ".csv", text);
  }
}

std::map<std::string, std::string> series_csvs(const Json& results) {
  std::map<std::string, std::string> files;
  SeriesCsv csv;
  for (const auto& point : results.at("points"))
    csv.add(point, [&](const std::string& file, std::string_view text) { files[file] += text; });
  return files;
}

std::string links_rows(const CompletedPoint& p, const Machine& machine) {
  const auto& t = *machine.topology;
  const auto& busy = p.result.link_busy;
  std::string text;
  for (topo::LinkId l = 0; l < t.link_count() && static_cast<std::size_t>(l) < busy.size(); ++l) {
    const auto& link = t.link(l);
    const char* kind = link.kind == topo::LinkKind::network     ? "network"
                       : link.kind == topo::LinkKind::injection ? "injection"
                                                                : "ejection";
    text += std::to_string(p.index) + "," + std::to_string(l) + "," + kind + "," + std::to_string(link.from) + "," +
            std::to_string(link.to) + "," + std::to_string(link.dim) + "," + std::to_string(link.direction) + "," +
            format_number(to_microseconds(busy[static_cast<std::size_t>(l)])) + "\n";
  }
  return text;
}

namespace {

std::string short_number(const Json& v) {
  if (!v.is_number()) return csv_cell(v);
  std::ostringstream s;
  s << std::setprecision(6) << v.get<double>();
  return s.str();
}

void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c)
      out << (c ? "  " : "  ") << std::setw(static_cast<int>(width[c])) << cells[c];
    out << "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
}

}  // namespace

void print_summary(std::ostream& out, const Json& results) {
  const auto& m = results["machine"];
  out << "scenario " << results["scenario"]["name"].get<std::string>() << " on " << m["name"].get<std::string>() << ": "
      << m["nodes"] << " nodes, " << m["cores"] << " cores\n";
  for (const auto& point : results["points"]) {
    std::string sweep;
    for (const auto& [k, v] : point["sweep"].items()) sweep += " " + k + "=" + csv_cell(v);
    out << "\n"
        << (sweep.empty() ? "result" : "point" + sweep) << "  (" << point["job"]["ranks"] << " ranks, "
        << point["job"]["messaging_layer"].get<std::string>() << " over "
        << point["job"]["network_model"].get<std::string>() << ", simulated "
        << short_number(point["simulated_time_us"]) << " us)\n";
    std::vector<std::vector<std::string>> rows;
    for (const auto& [k, v] : point["metrics"].items()) rows.push_back({k, short_number(v)});
    print_table(out, {"metric", "value"}, rows);
    for (const auto& [name, series] : point["series"].items()) {
      out << " series " << name << ":\n";
      std::vector<std::vector<std::string>> cells;
      for (const auto& row : series["rows"]) {
        std::vector<std::string> r;
        for (const auto& v : row) r.push_back(short_number(v));
        cells.push_back(r);
        if (cells.size() == 40) break;
      }
      print_table(out, series["columns"].get<std::vector<std::string>>(), cells);
      if (series["rows"].size() > 40)
        out << "  ... " << series["rows"].size() - 40 << " more rows in " << name << ".csv\n";
    }
  }
  const std::size_t count = results.value("point_count", results["points"].size());
  if (count > results["points"].size())
    out << "\n... and " << count - results["points"].size() << " more points in results.json\n";
}

}  // namespace torsim
