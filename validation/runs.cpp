#include "validation/runs.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace torsim::validation {

std::string data_root() {
  if (const char* data = std::getenv("TORSIM_DATA"); data && *data) return data;
  return TORSIM_SOURCE_DIR;
}

std::string scenario_path(const std::string& path) { return path.rfind('/', 0) == 0 ? path : data_root() + "/" + path; }

namespace {

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

std::vector<const CompletedPoint*> PointCache::points(const std::string& path, const std::vector<std::string>& sets,
                                                      const std::function<bool(const SweepPoint&)>& keep) {
  const std::string key = cache_key(path, sets);
  const Scenario& s = scenario(key, path, sets);
  const auto all = s.points();
  std::vector<const CompletedPoint*> out;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!keep(all[i])) continue;
    auto it = runs_.find({key, i});
    if (it == runs_.end()) {
      std::cerr << "  running " << path << " point " << i + 1 << "/" << all.size() << " " << all[i].values.dump()
                << (sets.empty() ? "" : " with " + std::to_string(sets.size()) + " --set") << "\n";
      try {
        Simulation sim(all[i].doc, Where(s.file()), all[i].seed);
        it = runs_.emplace(std::pair{key, i}, CompletedPoint{i, all[i], sim.run()}).first;
      } catch (const InputError& e) {
        s.reraise(e);
      }
    }
    out.push_back(&it->second);
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

ExtractedCurve extract(const CurveSpec& spec, PointCache& cache, const std::vector<std::string>& sets,
                       const std::vector<double>& only_x, const std::string& breakdown_series, const Where& where) {
  const bool metric = spec.series.empty();
  auto keep = [&](const SweepPoint& p) {
    if (!selected(p, spec.where)) return false;
    if (!metric || only_x.empty()) return true;
    return std::find(only_x.begin(), only_x.end(), metric_x(spec, p, where)) != only_x.end();
  };
  ExtractedCurve out;
  for (const CompletedPoint* p : cache.points(spec.scenario, sets, keep)) {
    if (metric) add_metric_point(spec, *p, out, where);
    else add_series_points(spec, *p, breakdown_series, out, where);
  }
  if (out.curve.x.empty()) (where / "where").fail("no sweep point of " + spec.scenario + " matches");
  out.curve = sorted_by_x(out.curve);
  return out;
}

}  // namespace torsim::validation
