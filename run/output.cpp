#include "run/output.hpp"

#include <algorithm>
#include <cmath>
#include <compare>
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

// A cell of the console's tables: a whole number of bytes (a column or metric named *_bytes)
// with its unit, 1MiB rather than 1.04858e+06; anything else as short_number.
std::string console_cell(const std::string& name, const Json& v) {
  const bool bytes = name == "bytes" || name.ends_with("_bytes");
  if (bytes && v.is_number() && v.get<double>() >= 0 && v.get<double>() < 9e18 &&
      v.get<double>() == std::floor(v.get<double>()))
    return format_size(static_cast<Bytes>(v.get<double>()));
  return short_number(v);
}

// How sweep values order: numbers and quantities by value (so "4KiB" < "16KiB" < "1MiB"), other
// text after them, as text.
struct SweepOrder {
  bool text = false;
  double value = 0;
  std::string words;
  auto operator<=>(const SweepOrder&) const = default;
};

SweepOrder sweep_order(const Json& v) {
  if (v.is_number()) return {false, v.get<double>(), ""};
  if (v.is_string())
    for (const Quantity q : {Quantity::size, Quantity::time, Quantity::rate})
      if (const auto base = parse_quantity(v.get<std::string>(), q, "")) return {false, static_cast<double>(*base), ""};
  return {true, 0, csv_cell(v)};
}

std::vector<SweepOrder> sweep_key(const Json& point) {
  std::vector<SweepOrder> key;
  for (const auto& [_, v] : point["sweep"].items()) key.push_back(sweep_order(v));
  return key;
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

namespace {

// One row per point, sorted by the sweep's values: the sweep values, then every metric.
void print_sweep_table(std::ostream& out, const Json& points, std::size_t count) {
  if (points.size() < 2 || points[0]["sweep"].empty()) return;
  std::vector<const Json*> sorted;
  for (const auto& p : points) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Json* a, const Json* b) { return sweep_key(*a) < sweep_key(*b); });
  std::vector<std::string> header, metrics;
  for (const auto& [k, _] : points[0]["sweep"].items()) header.push_back(k);
  for (const auto& p : points)
    for (const auto& [k, _] : p["metrics"].items())
      if (std::find(metrics.begin(), metrics.end(), k) == metrics.end()) metrics.push_back(k);
  header.insert(header.end(), metrics.begin(), metrics.end());
  std::vector<std::vector<std::string>> rows;
  for (const Json* p : sorted) {
    std::vector<std::string> row;
    for (const auto& [_, v] : (*p)["sweep"].items()) row.push_back(csv_cell(v));
    for (const auto& m : metrics)
      row.push_back((*p)["metrics"].contains(m) ? console_cell(m, (*p)["metrics"][m]) : "-");
    rows.push_back(std::move(row));
  }
  out << "\nsweep summary: " << points.size() << " points"
      << (count > points.size() ? " (the first " + std::to_string(points.size()) + " of " + std::to_string(count) + ")"
                                : std::string())
      << ", by sweep value\n";
  print_table(out, header, rows);
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
    for (const auto& [k, v] : point["metrics"].items()) rows.push_back({k, console_cell(k, v)});
    print_table(out, {"metric", "value"}, rows);
    for (const auto& [name, series] : point["series"].items()) {
      out << " series " << name << ":\n";
      std::vector<std::vector<std::string>> cells;
      const auto columns = series["columns"].get<std::vector<std::string>>();
      for (const auto& row : series["rows"]) {
        std::vector<std::string> r;
        for (std::size_t c = 0; c < row.size(); ++c)
          r.push_back(console_cell(c < columns.size() ? columns[c] : "", row[c]));
        cells.push_back(r);
        if (cells.size() == 40) break;
      }
      print_table(out, columns, cells);
      if (series["rows"].size() > 40)
        out << "  ... " << series["rows"].size() - 40 << " more rows in " << name << ".csv\n";
    }
  }
  const std::size_t count = results.value("point_count", results["points"].size());
  if (count > results["points"].size())
    out << "\n... and " << count - results["points"].size() << " more points in results.json\n";
  print_sweep_table(out, results["points"], count);
}

}  // namespace torsim
