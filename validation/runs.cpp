#include "validation/runs.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "models/runtime/registry.hpp"
#include "run/child_process.hpp"
#include "run/simulation.hpp"

namespace torsim::validation {

std::string data_root() {
  if (const char* data = std::getenv("TORSIM_DATA"); data && *data) return data;
  return TORSIM_SOURCE_DIR;
}

std::string scenario_path(const std::string& path) { return path.rfind('/', 0) == 0 ? path : data_root() + "/" + path; }

namespace {

// A report quotes why a variant cannot run; its files are named relative to the data root, so
// the text is the same wherever the project is checked out.
std::string without_data_root(std::string text) {
  const std::string root = data_root() + "/";
  for (auto at = text.find(root); at != std::string::npos; at = text.find(root, at)) text.erase(at, root.size());
  return text;
}

std::string cache_key(const std::string& path, const std::vector<std::string>& sets) {
  std::string key = path;
  for (const auto& s : sets) key += "\n" + s;
  return key;
}

}  // namespace

const Scenario& PointCache::scenario(const std::string& key, const std::string& path,
                                     const std::vector<std::string>& sets) {
  auto& slot = scenarios_[key];
  if (!slot) slot = std::make_unique<Scenario>(scenario_path(path), sets);
  return *slot;
}

std::string PointCache::varied_pointer(const std::vector<std::string>& sets) {
  if (sets.empty() || !sets.back().starts_with("machine.")) return "";
  const auto equals = sets.back().find('=');
  if (equals == std::string::npos) return "";
  std::string pointer = "/" + sets.back().substr(0, equals);
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  return pointer;
}

const RunPoint* PointCache::reused(const std::string& path, const std::vector<std::string>& sets,
                                   std::size_t index) const {
  const std::string pointer = varied_pointer(sets);
  if (pointer.empty() || !reuse_unaffected_) return nullptr;
  const std::vector<std::string> base(sets.begin(), sets.end() - 1);
  const auto key = std::pair{cache_key(path, base), index};
  const auto run = runs_.find(key);
  const RunPoint* found = run != runs_.end() ? &run->second : nullptr;
  if (!found)
    if (const auto alias = aliases_.find(key); alias != aliases_.end()) found = alias->second;
  return found && !found->reads.count(pointer) ? found : nullptr;
}

std::vector<PointCache::Missing> PointCache::missing(const PointRequest& request) {
  const std::string key = cache_key(request.path, request.sets);
  const Scenario& s = scenario(key, request.path, request.sets);
  const auto all = s.points();
  std::vector<Missing> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!request.keep(all[i]) || runs_.count({key, i}) || aliases_.count({key, i})) continue;
    if (const RunPoint* same = reused(request.path, request.sets, i)) {
      aliases_[{key, i}] = same;
      continue;
    }
    out.push_back({key, i, &s, all[i], &request, request.tolerate_input_errors});
  }
  return out;
}

namespace {

// Builds and runs one point, noting the parameters it reads.
// A messaging layer reads its parameters from the scenario's "runtime" merged over the preset's
// machine.runtimes.<layer>: a key the scenario does not give is the preset's (or the table's
// default), so it is noted as the machine parameter it is.
std::map<std::string, ParamRead> as_machine_parameters(const std::map<std::string, ParamRead>& reads, const Json& doc) {
  const Json runtime = doc.value("runtime", Json::object());
  const std::string layer = rt::layer_name(runtime);
  const Json calibrated = doc.at("machine").value("runtimes", Json::object()).value(layer, Json::object());
  std::map<std::string, ParamRead> out;
  for (const auto& [noted, noted_read] : reads) {
    std::string pointer = noted;
    ParamRead read = noted_read;
    const std::string key = pointer.starts_with("/runtime/") ? pointer.substr(9) : "";
    if (!key.empty() && key.find('/') == std::string::npos && !runtime.contains(key)) {
      read.given = calibrated.contains(key);
      pointer = "/machine/runtimes/" + layer + "/" + key;
    }
    out.emplace(pointer, read);
  }
  return out;
}

RunPoint run_point(const Scenario& s, std::size_t index, const SweepPoint& point, bool tolerate) {
  ReadLog log;
  try {
    try {
      Simulation sim(point.doc, Where(s.file()), point.seed);
      PointResult result = sim.run();
      return {CompletedPoint{index, point, std::move(result)}, as_machine_parameters(log.reads(), point.doc), ""};
    } catch (const InputError& e) {
      s.reraise(e);
    }
  } catch (const InputError& attributed) {
    if (!tolerate) throw;
    RunPoint impossible;
    impossible.completed.index = index;
    impossible.completed.point = point;
    impossible.error = without_data_root(attributed.what());
    return impossible;
  }
}

Json reads_json(const std::map<std::string, ParamRead>& reads) {
  Json out = Json::object();
  for (const auto& [pointer, r] : reads) out[pointer] = {r.given, r.table_source, r.default_value};
  return out;
}

std::map<std::string, ParamRead> reads_from_json(const Json& json) {
  std::map<std::string, ParamRead> out;
  for (const auto& [pointer, r] : json.items()) out[pointer] = {r[0].get<bool>(), r[1].get<std::string>(), r[2]};
  return out;
}

std::string point_name(const PointRequest& request, std::size_t index, std::size_t count, const Json& values) {
  std::string name =
      request.path + " point " + std::to_string(index + 1) + "/" + std::to_string(count) + " " + values.dump();
  for (const auto& set : request.sets) name += " --set " + set;
  return name;
}

void say_running(const PointRequest& request, std::size_t index, std::size_t count, const Json& values) {
  std::cerr << "  running " << point_name(request, index, count, values) << "\n";
}

}  // namespace

void PointCache::run_here(const Missing& m) {
  runs_.emplace(std::pair{m.key, m.index}, run_point(*m.scenario, m.index, m.point, m.tolerate));
}

void PointCache::prefetch(const std::vector<PointRequest>& requests) {
  std::vector<Missing> all;
  for (const auto& request : requests)
    for (auto& m : missing(request)) {
      if (std::none_of(all.begin(), all.end(), [&](const Missing& o) { return o.key == m.key && o.index == m.index; }))
        all.push_back(std::move(m));
    }
  if (jobs_ <= 1 || all.size() <= 1) {
    for (const auto& m : all) {
      say_running(*m.request, m.index, m.scenario->point_count(), m.point.values);
      run_here(m);
    }
    return;
  }
  // Runs finish in any order: a line per finished run says how far the batch is.
  std::cerr << "  running " << all.size() << " points, " << jobs_ << " at a time\n";
  std::size_t finished = 0;
  run_in_children(
      all.size(), jobs_,
      [&](std::size_t k) {
        const RunPoint run = run_point(*all[k].scenario, all[k].index, all[k].point, all[k].tolerate);
        if (!run.error.empty()) return Json{{"error", run.error}};
        return Json{{"result", point_result_json(run.completed.result)}, {"reads", reads_json(run.reads)}};
      },
      [&](std::size_t k, Json json) {
        RunPoint run;
        run.completed.index = all[k].index;
        run.completed.point = all[k].point;
        run.error = json.value("error", std::string());
        if (run.error.empty()) {
          run.completed.result = point_result_from_json(json["result"]);
          run.reads = reads_from_json(json["reads"]);
        }
        runs_.emplace(std::pair{all[k].key, all[k].index}, std::move(run));
        std::cerr << "  finished " << ++finished << "/" << all.size() << ": "
                  << point_name(*all[k].request, all[k].index, all[k].scenario->point_count(), all[k].point.values)
                  << "\n";
      },
      "a validation run");
}

std::vector<const RunPoint*> PointCache::points(const PointRequest& request) {
  for (const auto& m : missing(request)) {
    say_running(request, m.index, m.scenario->point_count(), m.point.values);
    run_here(m);
  }
  const std::string key = cache_key(request.path, request.sets);
  const auto all = scenario(key, request.path, request.sets).points();
  std::vector<const RunPoint*> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!request.keep(all[i])) continue;
    const auto run = runs_.find({key, i});
    out.push_back(run != runs_.end() ? &run->second : aliases_.at({key, i}));
  }
  return out;
}

namespace {

bool selected(const SweepPoint& point, const Json& where) {
  for (const auto& [key, value] : where.items())
    if (!point.values.contains(key) || point.values[key] != value) return false;
  return true;
}

std::size_t column(const Series& s, const std::string& name, const Where& where) {
  const auto it = std::find(s.columns.begin(), s.columns.end(), name);
  if (it == s.columns.end()) where.fail("series '" + s.name + "' has no column '" + name + "'");
  return static_cast<std::size_t>(it - s.columns.begin());
}

const Series& series_named(const PointResult& r, const std::string& name, const Where& where) {
  for (const auto& s : r.output.series)
    if (s.name == name) return s;
  where.fail("the scenario produced no series '" + name + "'");
}

// The breakdown series' row at each x: every column but x, in the series' unit.
void add_series_breakdowns(const Series& s, const std::string& x_column, ExtractedCurve& out, const Where& where) {
  const auto x = column(s, x_column, where);
  for (const auto& row : s.rows) {
    Breakdown b{"per the '" + s.name + "' series", {}};
    for (std::size_t i = 0; i < s.columns.size(); ++i)
      if (i != x) b.parts.emplace_back(s.columns[i], row[i]);
    out.breakdowns[row[x]] = std::move(b);
  }
}

void add_series_points(const CurveSpec& spec, const CompletedPoint& p, const std::string& breakdown,
                       ExtractedCurve& out, const Where& where) {
  const Series& s = series_named(p.result, spec.series, where / "series");
  const auto x = column(s, spec.x, where / "x"), y = column(s, spec.y, where / "y");
  for (const auto& row : s.rows) {
    out.curve.x.push_back(row[x]);
    out.curve.y.push_back(row[y]);
  }
  if (!breakdown.empty()) add_series_breakdowns(series_named(p.result, breakdown, where), spec.x, out, where);
}

// A whole run's core time by use (in the order of rt::CpuUse) and idle, as the mean per core
// in milliseconds.
Breakdown core_time_per_core(const PointResult& r) {
  Breakdown b{"ms per core, whole run", {}};
  const double ranks = r.job.value("ranks", 1.0);
  if (!r.counters.contains("core_time_us")) return b;
  const Json& core = r.counters["core_time_us"];
  auto add = [&](const std::string& part) { b.parts.emplace_back(part, core.value(part, 0.0) / ranks / 1e3); };
  for (std::size_t i = 0; i < rt::kCpuUses; ++i) add(std::string(rt::cpu_use_name(static_cast<rt::CpuUse>(i))));
  add("idle");
  return b;
}

double metric_x(const CurveSpec& spec, const SweepPoint& point, const Where& where) {
  if (!point.values.contains(spec.x) || !point.values[spec.x].is_number())
    (where / "x").fail("'" + spec.x + "' is not a numeric sweep key of the scenario");
  return point.values[spec.x].get<double>();
}

void add_metric_point(const CurveSpec& spec, const CompletedPoint& p, ExtractedCurve& out, const Where& where) {
  const Json& metrics = p.result.output.metrics;
  if (!metrics.contains(spec.metric)) (where / "metric").fail("the scenario produced no metric '" + spec.metric + "'");
  const double x = metric_x(spec, p.point, where);
  out.curve.x.push_back(x);
  out.curve.y.push_back(metrics[spec.metric].get<double>());
  out.breakdowns[x] = core_time_per_core(p.result);
}

Curve sorted_by_x(const Curve& c) {
  std::vector<std::size_t> order(c.x.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return c.x[a] < c.x[b]; });
  Curve sorted;
  for (auto i : order) {
    sorted.x.push_back(c.x[i]);
    sorted.y.push_back(c.y[i]);
  }
  return sorted;
}

}  // namespace

PointRequest curve_request(const CurveSpec& spec, const std::vector<std::string>& sets,
                           const std::vector<double>& only_x, const Where& where, bool tolerate_input_errors,
                           const std::set<std::string>* only_points) {
  const bool metric = spec.series.empty();
  std::optional<std::set<std::string>> points;
  if (only_points) points = *only_points;
  auto keep = [spec, only_x, where, metric, points](const SweepPoint& p) {
    if (!selected(p, spec.where)) return false;
    if (points && !points->count(p.values.dump())) return false;
    if (!metric || only_x.empty()) return true;
    return std::find(only_x.begin(), only_x.end(), metric_x(spec, p, where)) != only_x.end();
  };
  return {spec.scenario, sets, keep, tolerate_input_errors};
}

bool series_gives_x(const CurveSpec& spec, const RunPoint& point, const std::vector<double>& xs, const Where& where) {
  if (!point.error.empty()) return true;  // a point that could not run: whether it would is unknown
  auto wanted = [&](double x) { return std::find(xs.begin(), xs.end(), x) != xs.end(); };
  const Series& s = series_named(point.completed.result, spec.series, where / "series");
  const auto x = column(s, spec.x, where / "x");
  return std::any_of(s.rows.begin(), s.rows.end(), [&](const auto& row) { return wanted(row[x]); });
}

ExtractedCurve extract(const CurveSpec& spec, PointCache& cache, const std::vector<std::string>& sets,
                       const std::vector<double>& only_x, const std::string& breakdown_series, const Where& where,
                       const std::set<std::string>* only_points) {
  ExtractedCurve out;
  for (const RunPoint* p : cache.points(curve_request(spec, sets, only_x, where, false, only_points))) {
    if (!p->error.empty()) throw ImpossibleRun(p->error);
    if (spec.series.empty())
      add_metric_point(spec, p->completed, out, where);
    else
      add_series_points(spec, p->completed, breakdown_series, out, where);
  }
  if (out.curve.x.empty()) (where / "where").fail("no sweep point of " + spec.scenario + " matches");
  out.curve = sorted_by_x(out.curve);
  return out;
}

}  // namespace torsim::validation
