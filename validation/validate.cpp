#include "validation/validate.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "sim/run/runner.hpp"

namespace torsim::validation {

namespace fs = std::filesystem;

namespace {

std::string data_root() {
  if (const char* data = std::getenv("TORSIM_DATA"); data && *data) return data;
  return TORSIM_SOURCE_DIR;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// ---- Running scenarios and extracting curves

class ScenarioCache {
 public:
  explicit ScenarioCache(bool quick) : quick_(quick) {}
  const ScenarioRun& get(const std::string& path, const std::vector<std::string>& quick_sets) {
    const std::vector<std::string> sets = quick_ ? quick_sets : std::vector<std::string>{};
    std::string key = path;
    for (const auto& s : sets) key += "\n" + s;
    auto it = runs_.find(key);
    if (it != runs_.end()) return it->second;
    std::cerr << "  running " << path << (sets.empty() ? "" : " (reduced scale)") << "\n";
    const Scenario scenario(data_root() + "/" + path, sets);
    return runs_.emplace(key, run_scenario(scenario)).first->second;
  }

 private:
  bool quick_;
  std::map<std::string, ScenarioRun> runs_;
};

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

void add_series_points(const CurveSpec& spec, const CompletedPoint& p, Curve& out, const Where& where) {
  for (const auto& s : p.result.output.series) {
    if (s.name != spec.series) continue;
    const auto x = column(s, spec.x, where / "x"), y = column(s, spec.y, where / "y");
    for (const auto& row : s.rows) {
      out.x.push_back(row[x]);
      out.y.push_back(row[y]);
    }
    return;
  }
  (where / "series").fail("the scenario produced no series '" + spec.series + "'");
}

void add_metric_point(const CurveSpec& spec, const CompletedPoint& p, Curve& out, const Where& where) {
  const Json& metrics = p.result.output.metrics;
  if (!metrics.contains(spec.metric)) (where / "metric").fail("the scenario produced no metric '" + spec.metric + "'");
  if (!p.point.values.contains(spec.x) || !p.point.values[spec.x].is_number())
    (where / "x").fail("'" + spec.x + "' is not a numeric sweep key of the scenario");
  out.x.push_back(p.point.values[spec.x].get<double>());
  out.y.push_back(metrics[spec.metric].get<double>());
}

Curve extract(const CurveSpec& spec, const ScenarioRun& run, const Where& where) {
  Curve c;
  for (const auto& p : run.points) {
    if (!selected(p.point, spec.where)) continue;
    if (!spec.series.empty()) add_series_points(spec, p, c, where);
    else add_metric_point(spec, p, c, where);
  }
  if (c.x.empty()) (where / "where").fail("no sweep point of " + spec.scenario + " matches");
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

// ---- Deciding claims

ClaimResult evaluate(const ClaimSpec& claim, std::map<std::string, Curve> curves, bool quick) {
  ClaimResult r{&claim, Status::reproduced, {}, std::move(curves), quick};
  if (!claim.not_modelled.empty()) {
    r.status = Status::not_yet_modelled;
    return r;
  }
  for (const auto& check : claim.checks) {
    const Curve& improved = r.curves.at(check.improved);
    CheckResult c{&check, {}, {}};
    switch (check.rule) {
      case Rule::gain_up_to:
        c.verdict = check_gain_up_to(r.curves.at(check.baseline), improved, check.gain, check.expected);
        break;
      case Rule::gain_at:
        c.verdict = check_gain_at(r.curves.at(check.baseline), improved, check.gain, *check.at, check.expected);
        break;
      case Rule::absolute:
        c.verdict = check_absolute(improved, *check.at, check.expected, check.floor);
        break;
      case Rule::trend:
        c.verdict = check_trend(improved, r.curves.at(check.baseline), check.crossover, check.below,
                                check.lower_is_better);
        break;
    }
    if (check.rule == Rule::gain_up_to || check.rule == Rule::gain_at)
      c.gains = gains(r.curves.at(check.baseline), improved, check.gain);
    if (c.verdict.status != Status::reproduced) r.status = Status::not_reproduced;
    r.checks.push_back(std::move(c));
  }
  return r;
}

namespace {

std::string tolerance_text(const CheckSpec& c) {
  switch (c.rule) {
    case Rule::gain_up_to:
    case Rule::gain_at: return "+/-" + number(kGainTolerancePoints) + " points";
    case Rule::absolute: return number(kAbsoluteTolerance * 100) + " %";
    case Rule::trend: return "every point (" + number(kTrendExclusion * 100) + " % around the crossover excluded)";
  }
  return "";
}

std::string simulated_text(const CheckResult& c) {
  if (!c.verdict.simulated) return "-";
  const double v = *c.verdict.simulated;
  switch (c.spec->rule) {
    case Rule::gain_up_to: return number(v) + " % (at " + number(c.verdict.at_x) + ")";
    case Rule::gain_at: return number(v) + " %";
    case Rule::absolute: return number(v);
    case Rule::trend: return "holds at " + number(v) + " % of points";
  }
  return "";
}

Json curve_json(const Curve& c) { return {{"x", c.x}, {"y", c.y}}; }

Json check_json(const CheckResult& c) {
  const CheckSpec& s = *c.spec;
  static const char* rules[] = {"gain_up_to", "gain_at", "absolute", "trend"};
  static const char* kinds[] = {"reduction", "speedup", "increase"};
  Json j = {{"label", s.label}, {"rule", rules[static_cast<int>(s.rule)]}, {"gain", kinds[static_cast<int>(s.gain)]},
            {"expected", s.expected}, {"baseline", s.baseline}, {"improved", s.improved}, {"why", s.why},
            {"tolerance", tolerance_text(s)}, {"status", status_name(c.verdict.status)},
            {"detail", c.verdict.detail}, {"simulated_text", simulated_text(c)}};
  if (s.at) j["at"] = *s.at;
  if (s.crossover) j["crossover"] = *s.crossover;
  if (c.verdict.simulated) j["simulated"] = *c.verdict.simulated;
  if (!c.gains.x.empty()) j["gains"] = curve_json(c.gains);
  return j;
}

Json claim_json(const ClaimResult& r) {
  const ClaimSpec& c = *r.claim;
  const Paper& p = c.paper;
  Json j = {{"id", c.id}, {"kind", c.calibration ? "calibration" : "claim"},
            {"paper", {{"title", p.title}, {"authors", p.authors}, {"venue", p.venue}, {"year", p.year},
                       {"doi", p.doi}, {"seed", p.seed}}},
            {"source", c.source}, {"machine", c.machine}, {"quantity", c.quantity}, {"paper_value", c.paper_value},
            {"status", status_name(r.status)}, {"scale", r.quick && !c.quick.empty() ? "reduced" : "full"},
            {"quick_note", c.quick_note}, {"plot", c.plot}, {"checks", Json::array()}, {"curves", Json::object()}};
  if (!c.not_modelled.empty()) j["reason"] = c.not_modelled;
  for (const auto& check : r.checks) j["checks"].push_back(check_json(check));
  for (const auto& [name, curve] : r.curves) j["curves"][name] = curve_json(curve);
  return j;
}

}  // namespace

Json results_json(const std::vector<ClaimResult>& results, bool quick) {
  Json doc = {{"torsim_version", TORSIM_VERSION}, {"quick", quick}, {"claims", Json::array()}};
  for (const auto& r : results) doc["claims"].push_back(claim_json(r));
  return doc;
}

namespace {

std::string joined(const ClaimResult& r, std::string (*field)(const CheckResult&)) {
  if (r.status == Status::not_yet_modelled) return "-";
  std::string out;
  for (const auto& c : r.checks) out += (out.empty() ? "" : "; ") + (c.spec->label.empty() ? "" : c.spec->label + ": ") + field(c);
  return out;
}

std::string check_simulated(const CheckResult& c) { return simulated_text(c); }
std::string check_tolerance(const CheckResult& c) { return tolerance_text(*c.spec); }

std::string claim_section(const ClaimResult& r, bool has_plot) {
  const ClaimSpec& c = *r.claim;
  std::ostringstream s;
  s << "## " << c.id << ": " << c.quantity << "\n\n"
    << "- Paper: " << c.paper.authors << ", \"" << c.paper.title << "\", " << c.paper.venue << ", " << c.paper.year
    << " (DOI " << c.paper.doi << "; seed " << c.paper.seed << ")\n"
    << "- Source: " << c.source << "\n- Machine and scale: " << c.machine << "\n- Paper's value: " << c.paper_value
    << "\n- Status: **" << status_name(r.status) << "**";
  if (!c.not_modelled.empty()) s << " — " << c.not_modelled;
  s << "\n";
  for (const auto& check : r.checks)
    s << "- Check" << (check.spec->label.empty() ? "" : " (" + check.spec->label + ")") << ": "
      << check.verdict.detail << ". " << check.spec->why << "\n";
  if (r.status != Status::not_yet_modelled)
    s << "- Scale: " << (r.quick && !c.quick.empty() ? "reduced (" + c.quick_note + ")" : "full") << "\n";
  if (has_plot) s << "\n![" << c.id << "](" << c.id << ".png)\n";
  return s.str() + "\n";
}

}  // namespace

std::string report_markdown(const std::vector<ClaimResult>& results, bool quick, const std::vector<std::string>& plots) {
  std::ostringstream s;
  s << "# Validation report\n\n"
    << "Generated by `torsim validate" << (quick ? " --quick" : "") << "` (torsim " << TORSIM_VERSION
    << ") from `validation/claims.json`; do not edit by hand. Tolerance policy (in `validation/compare.hpp`): a "
    << "percentage gain is reproduced within +/-10 points of the paper's (for \"up to X %\", the largest gain over "
    << "the paper's sweep); an absolute latency or bandwidth within 15 % (symmetric relative error); a trend when it "
    << "holds at every point except within 5 % of the crossover. Calibration points (K*) check that the calibration "
    << "took; they are not validation.\n\n"
    << "| claim | paper | simulated | tolerance | status |\n|---|---|---|---|---|\n";
  for (const auto& r : results)
    s << "| " << r.claim->id << " | " << r.claim->paper_value << " | " << joined(r, check_simulated) << " | "
      << joined(r, check_tolerance) << " | " << status_name(r.status) << " |\n";
  s << "\n";
  for (const auto& r : results)
    s << claim_section(r, std::find(plots.begin(), plots.end(), r.claim->id) != plots.end());
  return s.str();
}

// ---- The command

namespace {

struct Options {
  std::set<std::string> only;
  std::string report, registry, check_status, record_status;
  bool quick = false, plots = true;
};

Options parse(const std::vector<std::string>& args) {
  Options o;
  o.report = data_root() + "/docs/validation";
  o.registry = data_root() + "/validation/claims.json";
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&] {
      if (i + 1 >= args.size()) throw UsageError(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--quick") o.quick = true;
    else if (args[i] == "--no-plots") o.plots = false;
    else if (args[i] == "--only") {
      std::stringstream ids(value());
      for (std::string id; std::getline(ids, id, ',');) o.only.insert(id);
    } else if (args[i] == "--report") o.report = value();
    else if (args[i] == "--registry") o.registry = value();
    else if (args[i] == "--check-status") o.check_status = value();
    else if (args[i] == "--record-status") o.record_status = value();
    else throw UsageError("validate: unknown argument '" + args[i] + "'");
  }
  return o;
}

std::vector<const ClaimSpec*> select(const std::vector<ClaimSpec>& claims, const std::set<std::string>& only) {
  std::vector<const ClaimSpec*> out;
  for (const auto& c : claims)
    if (only.empty() || only.count(c.id)) out.push_back(&c);
  for (const auto& id : only)
    if (std::none_of(claims.begin(), claims.end(), [&](const ClaimSpec& c) { return c.id == id; }))
      throw UsageError("validate: no claim '" + id + "' in the registry");
  return out;
}

ClaimResult run_claim(const ClaimSpec& claim, std::size_t index, ScenarioCache& cache, bool quick, const std::string& registry) {
  std::map<std::string, Curve> curves;
  if (claim.not_modelled.empty()) {
    const Where where = Where(registry) / "claims" / index / "curves";
    for (const auto& [name, spec] : claim.curves) curves[name] = extract(spec, cache.get(spec.scenario, claim.quick), where / name);
  }
  return evaluate(claim, std::move(curves), quick);
}

void print_table(const std::vector<ClaimResult>& results) {
  std::printf("%-5s %-28s %-34s %-22s %s\n", "claim", "paper", "simulated", "tolerance", "status");
  for (const auto& r : results) {
    auto cut = [](std::string s, std::size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; };
    std::printf("%-5s %-28s %-34s %-22s %s\n", r.claim->id.c_str(), cut(r.claim->paper_value, 28).c_str(),
                cut(joined(r, check_simulated), 34).c_str(), cut(joined(r, check_tolerance), 22).c_str(),
                std::string(status_name(r.status)).c_str());
  }
}

// Plots need python3 with matplotlib; without them the report has no images, and says so.
std::vector<std::string> draw_plots(const std::string& json_path, const std::string& dir) {
  const std::string script = data_root() + "/validation/plot_report.py";
  const std::string command = "python3 '" + script + "' '" + json_path + "' '" + dir + "'";
  FILE* pipe = popen(command.c_str(), "r");
  std::vector<std::string> drawn;
  if (!pipe) return drawn;
  char line[256];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string id = line;
    while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
    if (!id.empty()) drawn.push_back(id);
  }
  if (pclose(pipe) != 0) std::cerr << "warning: plotting failed (python3 with matplotlib needed); report without plots\n";
  return drawn;
}

void write_file(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + ".tmp";
  std::ofstream(temporary, std::ios::binary) << text;
  fs::rename(temporary, path);
}

Json load_status(const std::string& path) {
  if (!fs::exists(path)) return Json::object();
  return read_json_file(path);
}

// A claim recorded as reproduced (at this scale) that no longer is fails the suite.
int check_against(const std::string& path, const std::vector<ClaimResult>& results, bool quick) {
  const Json recorded = load_status(path).value(quick ? "quick" : "full", Json::object());
  int regressions = 0;
  for (const auto& r : results) {
    const std::string was = recorded.value(r.claim->id, std::string());
    if (was == "reproduced" && r.status != Status::reproduced) {
      std::cerr << "REGRESSION: " << r.claim->id << " was reproduced and is now " << status_name(r.status) << "\n";
      ++regressions;
    }
  }
  return regressions ? 3 : 0;
}

void record(const std::string& path, const std::vector<ClaimResult>& results, bool quick) {
  Json doc = load_status(path);
  Json& scale = doc[quick ? "quick" : "full"];
  for (const auto& r : results) scale[r.claim->id] = status_name(r.status);
  write_file(path, doc.dump(2) + "\n");
}

}  // namespace

int command_validate(const std::vector<std::string>& args) {
  const Options o = parse(args);
  const auto claims = load_claims(o.registry);
  ScenarioCache cache(o.quick);
  std::vector<ClaimResult> results;
  for (const auto* claim : select(claims, o.only))
    results.push_back(run_claim(*claim, static_cast<std::size_t>(claim - claims.data()), cache, o.quick, o.registry));
  print_table(results);
  fs::create_directories(o.report);
  const std::string json_path = (fs::path(o.report) / "validation.json").string();
  write_file(json_path, results_json(results, o.quick).dump(2) + "\n");
  const auto plots = o.plots ? draw_plots(json_path, o.report) : std::vector<std::string>{};
  write_file(fs::path(o.report) / "README.md", report_markdown(results, o.quick, plots));
  std::cout << "wrote " << o.report << "/README.md and validation.json\n";
  if (!o.record_status.empty()) record(o.record_status, results, o.quick);
  return o.check_status.empty() ? 0 : check_against(o.check_status, results, o.quick);
}

}  // namespace torsim::validation
