#include "validation/report.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "run/output_files.hpp"
#include "validation/robustness.hpp"

namespace torsim::validation {

namespace fs = std::filesystem;

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string tolerance_text(const CheckSpec& c) {
  switch (c.rule) {
    case Rule::gain_up_to:
    case Rule::gain_at:
      return "+/-" + number(kGainTolerancePoints) + " points";
    case Rule::absolute:
      return number(kAbsoluteTolerance * 100) + " %";
    case Rule::trend:
      return "ahead by > " + number(kTieResolution * 100) + " % at every point" +
             (c.crossover ? " on the claimed side, not ahead beyond it (" + number(kTrendExclusion * 100) +
                                " % around the bound excluded)"
                          : "");
  }
  return "";
}

std::string simulated_text(const CheckSpec& spec, const Verdict& verdict) {
  if (!verdict.simulated) return "-";
  const double v = *verdict.simulated;
  switch (spec.rule) {
    case Rule::gain_up_to:
      return number(v) + " % (at " + number(verdict.at_x) + ")";
    case Rule::gain_at:
      return number(v) + " %";
    case Rule::absolute:
      return number(v);
    case Rule::trend:
      return "holds at " + number(v) + " % of points" +
             (verdict.ties ? " (" + std::to_string(verdict.ties) + (verdict.ties == 1 ? " tie)" : " ties)") : "");
  }
  return "";
}

std::string what_if_options(const RunSettings& run) {
  std::string out;
  for (const auto& set : run.what_if) out += " --set " + set;
  return out;
}

std::string what_if_note(const RunSettings& run) {
  if (run.what_if.empty()) return "";
  return "**What-if**: every claim's runs with" + what_if_options(run) +
         "; these statuses answer the question, they are not the claims' (those come from runs of the presets as "
         "they are, `validation/status.json`).\n\n";
}

Json curve_json(const Curve& c) { return {{"x", c.x}, {"y", c.y}}; }

Json check_json(const CheckResult& c) {
  const CheckSpec& s = *c.spec;
  static const char* rules[] = {"gain_up_to", "gain_at", "absolute", "trend"};
  static const char* kinds[] = {"reduction", "speedup", "increase"};
  Json j = {{"label", s.label},
            {"rule", rules[static_cast<int>(s.rule)]},
            {"gain", kinds[static_cast<int>(s.gain)]},
            {"expected", s.expected},
            {"baseline", s.baseline},
            {"improved", s.improved},
            {"why", s.why},
            {"tolerance", tolerance_text(s)},
            {"status", status_name(c.verdict.status)},
            {"detail", c.verdict.detail},
            {"simulated_text", simulated_text(s, c.verdict)}};
  if (s.at) j["at"] = *s.at;
  if (s.crossover) j["crossover"] = *s.crossover;
  if (c.verdict.simulated) j["simulated"] = *c.verdict.simulated;
  if (!c.gains.x.empty()) j["gains"] = curve_json(c.gains);
  if (c.alternative)
    j["alternative"] = {{"name", s.alternative_name},
                        {"status", status_name(c.alternative->status)},
                        {"detail", c.alternative->detail}};
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

Json verdicts_status_json(const ClaimSpec& c, const std::vector<Verdict>& verdicts) {
  return {{"status", status_name(status_of(verdicts))}, {"checks", verdicts_json(c, verdicts)}};
}

Json parameter_json(const VariedParameter& p) {
  return {{"parameter", p.path},    {"value", p.value},   {"class", p.provenance.label()},
          {"citation", p.citation}, {"listed", p.listed}, {"in_machine", p.in_machine}};
}

Json robustness_json(const ClaimResult& r) {
  const ClaimSpec& c = *r.claim;
  const Robustness& robust = r.robustness;
  Json rows = Json::array(), unvaried = Json::array(), models = Json::array();
  for (const auto& row : robust.rows) {
    Json j = parameter_json(row.parameter);
    j["effect"] = row.effect;
    j["moves"] = row.moves();
    for (std::size_t f = 0; f < kSensitivityFactors.size(); ++f)
      j["x" + number(kSensitivityFactors[f])] = row.impossible[f].empty() ? verdicts_status_json(c, row.verdicts[f])
                                                                          : Json{{"impossible", row.impossible[f]}};
    rows.push_back(j);
  }
  for (const auto& u : robust.unvaried)
    unvaried.push_back({{"parameter", u.path}, {"value", u.value}, {"why", u.why}, {"class", u.provenance.label()}});
  for (const auto& m : robust.models)
    models.push_back({{"model", m.model},
                      {"primary", m.primary},
                      {"status", status_name(m.status)},
                      {"checks", verdicts_json(c, m.verdicts)}});
  return {{"label", robust_label(r)},
          {"robust", robust_column(r)},
          {"kept", robust.kept_variants(r.status)},
          {"moving", robust.moving_variants()},
          {"idle", robust.idle_variants()},
          {"impossible", robust.impossible_variants()},
          {"flipping", robust.flipping(r.status)},
          {"note", c.sensitivity.note},
          {"base", verdicts_json(c, robust.base)},
          {"rows", rows},
          {"unvaried", unvaried},
          {"network_models", models}};
}

Json claim_json(const ClaimResult& r) {
  const ClaimSpec& c = *r.claim;
  const Paper& p = c.paper;
  Json j = {{"id", c.id},
            {"kind", c.calibration ? "calibration" : "claim"},
            {"paper",
             {{"title", p.title},
              {"authors", p.authors},
              {"venue", p.venue},
              {"year", p.year},
              {"doi", p.doi},
              {"seed", p.seed}}},
            {"source", c.source},
            {"machine", c.machine},
            {"quantity", c.quantity},
            {"paper_value", c.paper_value},
            {"status", status_name(r.status)},
            {"scale", r.quick && !c.quick.empty() ? "reduced" : "full"},
            {"quick_note", c.quick_note},
            {"plot", c.plot},
            {"checks", Json::array()},
            {"curves", Json::object()}};
  if (!c.not_modelled.empty()) j["reason"] = c.not_modelled;
  for (const auto& check : r.checks) j["checks"].push_back(check_json(check));
  for (const auto& [name, curve] : r.curves) j["curves"][name] = curve_json(curve);
  if (!r.breakdowns.empty()) j["breakdowns"] = breakdowns_json(r);
  j["label"] = robust_label(r);
  if (r.robustness.computed) j["robustness"] = robustness_json(r);
  if (r.recorded)
    j["recorded_robustness"] = {{"report", r.recorded->report},
                                {"label", r.recorded->label},
                                {"robust", r.recorded->column},
                                {"stale", r.recorded->stale}};
  if (!c.by_construction.empty()) j["by_construction"] = c.by_construction;
  return j;
}

}  // namespace

void adopt_recorded_robustness(std::vector<ClaimResult>& results, const Json& report, const std::string& path) {
  for (auto& r : results) {
    if (!robustness_on_request(r)) continue;
    for (const Json& recorded : report.value("claims", Json::array())) {
      if (recorded.value("id", std::string()) != r.claim->id || !recorded.contains("robustness")) continue;
      Json curves = Json::object();
      for (const auto& [name, curve] : r.curves) curves[name] = curve_json(curve);
      const Json& robust = recorded["robustness"];
      r.recorded = RecordedRobustness{path, robust.value("label", std::string()), robust.value("robust", std::string()),
                                      recorded.value("curves", Json::object()) != curves};
    }
  }
}

Json results_json(const std::vector<ClaimResult>& results, const RunSettings& run) {
  Json doc = {{"torsim_version", TORSIM_VERSION}, {"quick", run.quick}, {"claims", Json::array()}};
  if (!run.what_if.empty()) doc["what_if"] = run.what_if;
  for (const auto& r : results) doc["claims"].push_back(claim_json(r));
  return doc;
}

namespace {

std::string joined(const ClaimResult& r, std::string (*field)(const CheckResult&)) {
  if (r.status == Status::not_yet_modelled) return "-";
  std::string out;
  for (const auto& c : r.checks)
    out += (out.empty() ? "" : "; ") + (c.spec->label.empty() ? "" : c.spec->label + ": ") + field(c);
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
    std::stable_sort(columns.begin(), columns.end(),
                     [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
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
           simulated_text(c.checks[i], verdicts[i]) + (verdicts[i].status == Status::reproduced ? " (reproduced)" : "");
  return out;
}

// "k of n" as "k of the n", to read "k of the n variants".
std::string of_the(const std::string& column) {
  const auto at = column.find(" of ");
  return at == std::string::npos ? column : column.substr(0, at) + " of the " + column.substr(at + 4);
}

// A claim whose robustness this run did not compute says how to compute it.
std::string robustness_missing(const ClaimResult& r) {
  if (r.status == Status::not_yet_modelled) return "";
  if (quotes_recorded_robustness(r))
    return "\nRobustness: " + of_the(r.recorded->column) +
           " variants that move a result keep the status, as computed by a run naming the claim (`make "
           "validate-on-request`: " +
           r.claim->sensitivity.on_request + "); its sensitivity table is in [" + on_request_report(r.claim->id) +
           "/README.md](" + on_request_report(r.claim->id) +
           "/README.md), from runs whose curves equal this report's value for value.\n";
  if (robustness_on_request(r))
    return "\nRobustness: on request, not computed in a run of the whole registry: " + r.claim->sensitivity.on_request +
           ". `torsim validate --only " + r.claim->id + "` computes it" +
           (r.recorded ? " (the one recorded in " + r.recorded->report +
                             " came from runs whose curves differ from this report's: stale; `make "
                             "validate-on-request` recomputes it)"
                       : "") +
           ".\n";
  return "\nRobustness: not computed in this report; a full-scale run computes it, and `torsim validate --quick "
         "--only " +
         r.claim->id + " --sensitivity` at this scale.\n";
}

std::string parameter_cell(const VariedParameter& p) {
  return "`" + p.path + "` | " + p.value + " | " + p.provenance.label() + (p.listed ? ", listed" : "");
}

std::string models_table(const ClaimResult& r) {
  std::ostringstream s;
  s << "\nOn each network model the machine supports:\n\n| network model | status | simulated |\n|---|---|---|\n";
  for (const auto& m : r.robustness.models)
    s << "| " << m.model << (m.primary ? " (the status's)" : "") << " | "
      << (m.impossible.empty() ? std::string(status_name(m.status)) + " | " + verdicts_text(*r.claim, m.verdicts)
                               : "cannot run | " + m.impossible)
      << " |\n";
  return s.str();
}

std::string deciding_assumptions(const ClaimResult& r) {
  std::string out;
  for (const auto& row : r.robustness.rows)
    if (std::any_of(row.status.begin(), row.status.end(), [&](Status st) { return st != r.status; }))
      out += "\n  - `" + row.parameter.path + "` = " + row.parameter.value + " (" + row.parameter.provenance.label() +
             (row.parameter.citation.empty() ? "" : ": " + row.parameter.citation) + ")";
  return out.empty() ? " none: no parameter at 0.5x or 2x changes the status.\n" : out + "\n";
}

std::string idle_parameters(const Robustness& robust) {
  std::string out;
  for (const auto& row : robust.rows)
    if (!row.moves() && row.impossible[0].empty() && row.impossible[1].empty())
      out += (out.empty() ? "" : ", ") + std::string("`") + row.parameter.path + "`";
  return out.empty() ? "" : "\nRead by the runs but moving no result at 0.5x or 2x: " + out + ".\n";
}

std::string unvaried_parameters(const Robustness& robust) {
  std::string out;
  for (const auto& u : robust.unvaried)
    out += (out.empty() ? "" : ", ") + std::string("`") + u.path + "`" + (u.value.empty() ? "" : " = " + u.value) +
           " (" + u.why + ")";
  return out.empty() ? "" : "\nAssumptions read but not varied: " + out + ".\n";
}

std::string variant_cell(const ClaimSpec& c, const SensitivityRow& row, std::size_t f) {
  return row.impossible[f].empty() ? verdicts_text(c, row.verdicts[f]) : "cannot run: " + row.impossible[f];
}

std::string sensitivity_table(const ClaimResult& r) {
  if (!r.robustness.computed) return robustness_missing(r);
  const ClaimSpec& c = *r.claim;
  const Robustness& robust = r.robustness;
  std::ostringstream s;
  s << "\nRobustness: " << robust.kept_variants(r.status) << " of the " << robust.moving_variants()
    << " variants that move a result keep the status, and " << robust.idle_variants() << " more move nothing"
    << (robust.impossible_variants()
            ? ", " + std::to_string(robust.impossible_variants()) + " cannot run (a model rejects the value)"
            : "")
    << " (each parameter the runs read whose source is an assumption, and each the registry lists, "
    << "at 0.5x and 2x of its value). The assumptions that decide it:" << deciding_assumptions(r) << models_table(r)
    << "\nSensitivity, most sensitive first" << (c.sensitivity.note.empty() ? "" : " (" + c.sensitivity.note + ")")
    << ". At the preset's values: " << verdicts_text(c, robust.base)
    << ".\n\n| parameter | value | source | 0.5x | 2x |\n|---|---|---|---|---|\n";
  for (const auto& row : robust.rows)
    if (row.moves() || !row.impossible[0].empty() || !row.impossible[1].empty())
      s << "| " << parameter_cell(row.parameter) << " | " << variant_cell(c, row, 0) << " | " << variant_cell(c, row, 1)
        << " |\n";
  s << idle_parameters(robust) << unvaried_parameters(robust);
  return s.str();
}

// The checks on their alternative measure, generated from the same runs: where it disagrees.
std::string alternative_notes(const ClaimResult& r) {
  std::string out, name;
  for (const auto& check : r.checks) {
    if (!check.alternative) continue;
    name = check.spec->alternative_name;
    out += "\n  - " + (check.spec->label.empty() ? "" : check.spec->label + ": ") +
           (check.alternative->status == Status::reproduced ? "holds; " : "does not hold; ") +
           check.alternative->detail;
  }
  return out.empty() ? "" : "- On " + name + " (the same runs; a note, never deciding the status):" + out + "\n";
}

std::string claim_section(const ClaimResult& r, bool has_plot) {
  const ClaimSpec& c = *r.claim;
  std::ostringstream s;
  s << "## " << c.id << ": " << c.quantity << "\n\n"
    << "- Paper: " << c.paper.authors << ", \"" << c.paper.title << "\", " << c.paper.venue << ", " << c.paper.year
    << " (DOI " << c.paper.doi << "; seed " << c.paper.seed << ")\n"
    << "- Source: " << c.source << "\n- Machine and scale: " << c.machine << "\n- Paper's value: " << c.paper_value
    << "\n- Status: **" << robust_label(r) << "**";
  if (!c.not_modelled.empty()) s << " — " << c.not_modelled;
  s << "\n";
  if (!c.by_construction.empty()) s << "- Holds by construction: " << c.by_construction << "\n";
  for (const auto& check : r.checks)
    s << "- Check" << (check.spec->label.empty() ? "" : " (" + check.spec->label + ")") << ": " << check.verdict.detail
      << ". " << check.spec->why << "\n";
  s << alternative_notes(r);
  if (r.status != Status::not_yet_modelled)
    s << "- Scale: " << (r.quick && !c.quick.empty() ? "reduced (" + c.quick_note + ")" : "full") << "\n";
  if (has_plot) s << "\n![" << c.id << "](" << c.id << ".png)\n";
  s << breakdown_tables(r) << sensitivity_table(r);
  return s.str() + "\n";
}

}  // namespace

std::string report_markdown(const std::vector<ClaimResult>& results, const RunSettings& run,
                            const std::vector<std::string>& plots) {
  std::ostringstream s;
  s << "# Validation report\n\n"
    << "Generated by `torsim validate" << (run.quick ? " --quick" : "")
    << (run.only.empty() ? "" : " --only " + run.only) << what_if_options(run) << "` (torsim " << TORSIM_VERSION
    << ") from `validation/claims.json`; do not edit by hand. Tolerance policy (in `validation/compare.hpp`): a "
    << "percentage gain is reproduced within +/-10 points of the paper's (for \"up to X %\", the largest gain over "
    << "the paper's sweep); an absolute latency or bandwidth within 15 % (symmetric relative error); a trend when it "
    << "holds beyond the tie resolution (1 % of the larger value; a tie is not a win) at every point except within 5 % "
    << "of the crossover, and a claim that names a bound is checked on both sides of it (beyond it, not ahead). "
    << "Calibration points (K*) check that the calibration "
    << "took; they are not validation.\n\n"
    << "Robust: of the variants that move a result — each parameter the claim's runs read whose source is an "
    << "assumption, and each its registry entry lists, at 0.5x and 2x of its value — how many keep the status; a "
    << "status reads (robust) when all do, (fragile: the parameters that change it) otherwise, names a network model "
    << "on which it differs, and says \"holds by construction\" where its sign follows from how the layers are "
    << "composed. \"On request\": a claim whose full-scale variants would take hours of CPU is not varied in a run "
    << "of the whole registry (its section says why); `torsim validate --only` naming it computes its robustness, and "
    << "`make validate-on-request` does so into " << kOnRequestReport
    << "/<claim>/, whose robustness this report quotes for "
    << "each claim whose curves there equal this report's value for value.\n\n"
    << what_if_note(run) << "| claim | paper | simulated | tolerance | robust | status |\n|---|---|---|---|---|---|\n";
  for (const auto& r : results)
    s << "| " << r.claim->id << " | " << r.claim->paper_value << " | " << joined(r, check_simulated) << " | "
      << joined(r, check_tolerance) << " | " << robust_column(r) << " | " << robust_label(r) << " |\n";
  s << "\n";
  for (const auto& r : results)
    s << claim_section(r, std::find(plots.begin(), plots.end(), r.claim->id) != plots.end());
  return s.str();
}

void print_table(const std::vector<ClaimResult>& results) {
  std::printf("%-5s %-28s %-34s %-22s %-14s %s\n", "claim", "paper", "simulated", "tolerance", "robust", "status");
  for (const auto& r : results) {
    auto cut = [](std::string s, std::size_t n) { return s.size() > n ? s.substr(0, n - 3) + "..." : s; };
    std::printf("%-5s %-28s %-34s %-22s %-14s %s\n", r.claim->id.c_str(), cut(r.claim->paper_value, 28).c_str(),
                cut(joined(r, check_simulated), 34).c_str(), cut(joined(r, check_tolerance), 22).c_str(),
                cut(robust_column(r), 14).c_str(), robust_label(r).c_str());
  }
}

void print_sensitivity(const std::vector<ClaimResult>& results) {
  for (const auto& r : results) {
    const Robustness& robust = r.robustness;
    if (!robust.computed) continue;
    std::printf("\n%s sensitivity (0.5x | 2x), most sensitive first; preset: %s\n", r.claim->id.c_str(),
                verdicts_text(*r.claim, robust.base).c_str());
    for (const auto& row : robust.rows)
      if (row.moves())
        std::printf("  %-40s %-12s %s | %s\n", row.parameter.path.c_str(), row.parameter.value.c_str(),
                    verdicts_text(*r.claim, row.verdicts[0]).c_str(), verdicts_text(*r.claim, row.verdicts[1]).c_str());
    for (const auto& m : robust.models)
      std::printf("  network %-32s %s\n", m.model.c_str(),
                  m.impossible.empty() ? std::string(status_name(m.status)).c_str() : "cannot run");
  }
}

namespace {

// A directory under the system's temporary directory, removed with everything in it.
class TemporaryDir {
 public:
  TemporaryDir() {
    std::string pattern = (fs::temp_directory_path() / "torsim-plots-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory for the plots");
    path_ = pattern;
  }
  ~TemporaryDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TemporaryDir(const TemporaryDir&) = delete;
  TemporaryDir& operator=(const TemporaryDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

// Plots need python3 with matplotlib; without them the report has no images, and says so.
std::vector<std::pair<std::string, std::string>> draw_plots(const std::string& validation_json) {
  const TemporaryDir dir;
  const Where where("validation plots", dir.path().string());
  {
    FileWriter json((dir.path() / "validation.json").string(), where);
    json.write(validation_json);
    json.close();
  }
  const std::string script = data_root() + "/validation/plot_report.py";
  const std::string command =
      "python3 '" + script + "' '" + (dir.path() / "validation.json").string() + "' '" + dir.path().string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  std::vector<std::string> drawn;
  if (!pipe) return {};
  char line[256];
  while (std::fgets(line, sizeof line, pipe)) {
    std::string id = line;
    while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
    if (!id.empty()) drawn.push_back(id);
  }
  if (pclose(pipe) != 0)
    std::cerr << "warning: plotting failed (python3 with matplotlib needed); report without plots\n";
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& id : drawn) out.emplace_back(id, read_text_file((dir.path() / (id + ".png")).string(), where));
  return out;
}

}  // namespace torsim::validation
