#include "validation/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>


namespace torsim::validation {

namespace fs = std::filesystem;

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

// ---- Deciding claims

ClaimResult evaluate(const ClaimSpec& claim, std::map<std::string, Curve> curves, bool quick) {
  ClaimResult r;
  r.claim = &claim;
  r.status = Status::reproduced;
  r.curves = std::move(curves);
  r.quick = quick;
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

std::vector<double> breakdown_xs(const ClaimResult& r) {
  if (!r.claim->breakdown.at.empty()) return r.claim->breakdown.at;
  std::vector<double> xs;
  auto add = [&](double x) {
    if (std::find(xs.begin(), xs.end(), x) == xs.end()) xs.push_back(x);
  };
  for (const auto& c : r.checks) {
    if (c.spec->rule != Rule::trend) {
      if (c.verdict.simulated) add(c.verdict.at_x);
      continue;
    }
    const Curve& better = r.curves.at(c.spec->improved);
    if (better.x.empty()) continue;
    add(better.x.front());
    add(better.x.back());
  }
  return xs;
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

std::string simulated_text(const CheckSpec& spec, const Verdict& verdict) {
  if (!verdict.simulated) return "-";
  const double v = *verdict.simulated;
  switch (spec.rule) {
    case Rule::gain_up_to: return number(v) + " % (at " + number(verdict.at_x) + ")";
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
            {"detail", c.verdict.detail}, {"simulated_text", simulated_text(s, c.verdict)}};
  if (s.at) j["at"] = *s.at;
  if (s.crossover) j["crossover"] = *s.crossover;
  if (c.verdict.simulated) j["simulated"] = *c.verdict.simulated;
  if (!c.gains.x.empty()) j["gains"] = curve_json(c.gains);
  return j;
}

Json breakdowns_json(const ClaimResult& r) {
  Json out = Json::object();
  for (const auto& [curve, by_x] : r.breakdowns) {
    Json& list = out[curve] = Json::array();
    for (const auto& [x, b] : by_x) {
      Json parts = Json::object();
      for (const auto& [name, value] : b.parts) parts[name] = value;
      list.push_back({{"x", x}, {"unit", b.unit}, {"parts", parts}});
    }
  }
  return out;
}

Json verdicts_json(const ClaimSpec& claim, const std::vector<Verdict>& verdicts) {
  Json out = Json::array();
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    Json v = {{"status", status_name(verdicts[i].status)}, {"text", simulated_text(claim.checks[i], verdicts[i])}};
    if (verdicts[i].simulated) v["simulated"] = *verdicts[i].simulated;
    out.push_back(v);
  }
  return out;
}

Json sensitivity_json(const ClaimResult& r) {
  const ClaimSpec& c = *r.claim;
  Json rows = Json::array();
  for (const auto& row : r.sensitivity) {
    Json j = {{"parameter", row.parameter}, {"value", row.value}, {"effect", row.effect}};
    for (std::size_t f = 0; f < kSensitivityFactors.size(); ++f)
      j["x" + number(kSensitivityFactors[f])] = verdicts_json(c, row.verdicts[f]);
    rows.push_back(j);
  }
  return {{"note", c.sensitivity.note}, {"base", verdicts_json(c, r.sensitivity_base)}, {"rows", rows}};
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
  if (!r.breakdowns.empty()) j["breakdowns"] = breakdowns_json(r);
  if (!r.sensitivity.empty()) j["sensitivity"] = sensitivity_json(r);
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

std::string check_simulated(const CheckResult& c) { return simulated_text(*c.spec, c.verdict); }
std::string check_tolerance(const CheckResult& c) { return tolerance_text(*c.spec); }

std::string curve_label(const ClaimSpec& c, const std::string& curve) {
  return c.plot.contains("labels") ? c.plot["labels"].value(curve, curve) : curve;
}

// The parts of one x's breakdowns, in first-seen order, without the ones zero everywhere.
std::vector<std::string> breakdown_parts(const ClaimResult& r, double x) {
  std::vector<std::string> names;
  for (const auto& [curve, by_x] : r.breakdowns) {
    const auto it = by_x.find(x);
    if (it == by_x.end()) continue;
    for (const auto& [name, value] : it->second.parts)
      if (value != 0 && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string breakdown_cell(const Breakdown& b, const std::string& part) {
  double total = 0, value = 0;
  for (const auto& [name, v] : b.parts) {
    total += v;
    if (name == part) value = v;
  }
  const bool shares = b.unit.rfind("ms per core", 0) == 0 && total > 0;
  return number(value) + (shares ? " (" + number(100 * value / total) + " %)" : "");
}

std::string breakdown_tables(const ClaimResult& r) {
  std::ostringstream s;
  for (const double x : breakdown_xs(r)) {
    std::vector<std::pair<std::string, const Breakdown*>> columns;
    for (const auto& [curve, by_x] : r.breakdowns)
      if (const auto it = by_x.find(x); it != by_x.end()) columns.emplace_back(curve, &it->second);
    if (columns.empty()) continue;
    auto rank = [](const std::string& curve) { return curve == "baseline" ? 0 : curve == "improved" ? 1 : 2; };
    std::stable_sort(columns.begin(), columns.end(), [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
    s << "\nWhere the time goes at x = " << number(x) << " (" << columns.front().second->unit << "):\n\n| part |";
    for (const auto& col : columns) s << " " << curve_label(*r.claim, col.first) << " |";
    s << "\n|---|";
    for (std::size_t i = 0; i < columns.size(); ++i) s << "---|";
    s << "\n";
    for (const auto& part : breakdown_parts(r, x)) {
      s << "| " << part << " |";
      for (const auto& col : columns) s << " " << breakdown_cell(*col.second, part) << " |";
      s << "\n";
    }
  }
  return s.str();
}

std::string verdicts_text(const ClaimSpec& c, const std::vector<Verdict>& verdicts) {
  std::string out;
  for (std::size_t i = 0; i < verdicts.size(); ++i)
    out += (out.empty() ? "" : "; ") + (c.checks[i].label.empty() ? "" : c.checks[i].label + ": ") +
           simulated_text(c.checks[i], verdicts[i]) +
           (verdicts[i].status == Status::reproduced ? " (reproduced)" : "");
  return out;
}

// A claim whose sensitivity this run did not compute says how to compute it.
std::string sensitivity_missing(const ClaimResult& r) {
  const ClaimSpec& c = *r.claim;
  if (c.sensitivity.parameters.empty() || r.status == Status::not_yet_modelled) return "";
  return "\nSensitivity: not computed in this report; `torsim validate --only " + c.id +
         " --sensitivity` re-evaluates the claim with each of its " + std::to_string(c.sensitivity.parameters.size()) +
         " parameters (`validation/claims.json`) at 0.5x and 2x.\n";
}

std::string sensitivity_table(const ClaimResult& r) {
  if (r.sensitivity.empty()) return sensitivity_missing(r);
  const ClaimSpec& c = *r.claim;
  std::ostringstream s;
  s << "\nSensitivity: the claim with each parameter at 0.5x and 2x of its preset value, most sensitive first"
    << (c.sensitivity.note.empty() ? "" : " (" + c.sensitivity.note + ")") << ". At the preset's values: "
    << verdicts_text(c, r.sensitivity_base) << ".\n\n| parameter | preset value | 0.5x | 2x |\n|---|---|---|---|\n";
  for (const auto& row : r.sensitivity)
    s << "| `" << row.parameter << "` | " << row.value << " | " << verdicts_text(c, row.verdicts[0]) << " | "
      << verdicts_text(c, row.verdicts[1]) << " |\n";
  return s.str();
}

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
  s << breakdown_tables(r) << sensitivity_table(r);
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
  bool quick = false, plots = true, sensitivity = false;
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
    else if (args[i] == "--sensitivity") o.sensitivity = true;
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

// A claim's curves run with `sets`; `only_x` restricts metric curves (see extract).
std::map<std::string, ExtractedCurve> claim_curves(const ClaimSpec& claim, const Where& where, PointCache& cache,
                                                   const std::vector<std::string>& sets,
                                                   const std::vector<double>& only_x) {
  std::map<std::string, ExtractedCurve> out;
  for (const auto& [name, spec] : claim.curves)
    out[name] = extract(spec, cache, sets, only_x, claim.breakdown.series, where / "curves" / name);
  return out;
}

ClaimResult decide(const ClaimSpec& claim, const std::map<std::string, ExtractedCurve>& extracted, bool quick) {
  std::map<std::string, Curve> curves;
  for (const auto& [name, e] : extracted) curves[name] = e.curve;
  return evaluate(claim, std::move(curves), quick);
}

ClaimResult run_claim(const ClaimSpec& claim, const Where& where, PointCache& cache, bool quick) {
  if (!claim.not_modelled.empty()) return evaluate(claim, {}, quick);
  const auto extracted = claim_curves(claim, where, cache, quick ? claim.quick : std::vector<std::string>{}, {});
  ClaimResult r = decide(claim, extracted, quick);
  for (const double x : breakdown_xs(r))
    for (const auto& [name, e] : extracted)
      if (const auto it = e.breakdowns.find(x); it != e.breakdowns.end()) r.breakdowns[name][x] = it->second;
  return r;
}

// The x values the checks read when every check reads one (gain_at, absolute); else none,
// meaning every point.
std::vector<double> checked_xs(const ClaimSpec& claim) {
  std::vector<double> xs;
  for (const auto& check : claim.checks) {
    if (!check.at) return {};
    xs.push_back(*check.at);
  }
  return xs;
}

std::vector<Verdict> verdicts_with(const ClaimSpec& claim, const Where& where, PointCache& cache, bool quick,
                                   const std::vector<std::string>& sets) {
  std::vector<Verdict> out;
  for (const auto& check : decide(claim, claim_curves(claim, where, cache, sets, checked_xs(claim)), quick).checks)
    out.push_back(check.verdict);
  return out;
}

const Json& machine_value(const Json& machine, const std::string& path, const Where& where) {
  const Json* at = &machine;
  std::stringstream parts(path);
  for (std::string key; std::getline(parts, key, '.');) {
    if (!at->is_object() || !at->contains(key))
      where.fail("the machine '" + machine.value("name", std::string("?")) + "' has no '" + path +
                 "' (a sensitivity parameter needs its value in the machine preset)");
    at = &(*at)[key];
  }
  return *at;
}

double effect(const std::vector<Verdict>& base, const std::vector<Verdict>& varied) {
  for (std::size_t i = 0; i < base.size() && i < varied.size(); ++i)
    if (base[i].simulated) return varied[i].simulated ? std::fabs(*varied[i].simulated - *base[i].simulated) : 1e300;
  return 0;
}

// Each listed machine parameter at 0.5x and 2x; everything else as in the preset.
void add_sensitivity(ClaimResult& r, const Where& where, PointCache& cache, bool quick) {
  const ClaimSpec& c = *r.claim;
  if (c.sensitivity.parameters.empty() || !c.not_modelled.empty() || c.curves.empty()) return;
  std::vector<std::string> base_sets = quick ? c.quick : std::vector<std::string>{};
  base_sets.insert(base_sets.end(), c.sensitivity.set.begin(), c.sensitivity.set.end());
  r.sensitivity_base = verdicts_with(c, where, cache, quick, base_sets);
  const Scenario first(scenario_path(c.curves.begin()->second.scenario), base_sets);
  for (std::size_t i = 0; i < c.sensitivity.parameters.size(); ++i) {
    const std::string& parameter = c.sensitivity.parameters[i];
    const Where at = where / "sensitivity" / "parameters" / i;
    const Json& value = machine_value(first.doc().at("machine"), parameter, at);
    SensitivityRow row{parameter, value.is_string() ? value.get<std::string>() : value.dump(), {}, {}, 0};
    for (std::size_t f = 0; f < kSensitivityFactors.size(); ++f) {
      const Json scaled = scaled_parameter(value, kSensitivityFactors[f], at);
      auto sets = base_sets;
      sets.push_back("machine." + parameter + "=" + (scaled.is_string() ? scaled.get<std::string>() : scaled.dump()));
      row.verdicts[f] = verdicts_with(c, where, cache, quick, sets);
      row.effect = std::max(row.effect, effect(r.sensitivity_base, row.verdicts[f]));
    }
    r.sensitivity.push_back(std::move(row));
  }
  sort_by_effect(r.sensitivity);
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

void print_sensitivity(const std::vector<ClaimResult>& results) {
  for (const auto& r : results) {
    if (r.sensitivity.empty()) continue;
    std::printf("\n%s sensitivity (0.5x | 2x), most sensitive first; preset: %s\n", r.claim->id.c_str(),
                verdicts_text(*r.claim, r.sensitivity_base).c_str());
    for (const auto& row : r.sensitivity)
      std::printf("  %-40s %-12s %s | %s\n", row.parameter.c_str(), row.value.c_str(),
                  verdicts_text(*r.claim, row.verdicts[0]).c_str(), verdicts_text(*r.claim, row.verdicts[1]).c_str());
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
  PointCache cache;
  std::vector<ClaimResult> results;
  for (const auto* claim : select(claims, o.only)) {
    const Where where = Where(o.registry) / "claims" / static_cast<std::size_t>(claim - claims.data());
    results.push_back(run_claim(*claim, where, cache, o.quick));
    if (o.sensitivity || (claim->sensitivity.always && !o.quick)) add_sensitivity(results.back(), where, cache, o.quick);
  }
  print_table(results);
  print_sensitivity(results);
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
