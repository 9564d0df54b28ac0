#include "validation/evaluate.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace torsim::validation {

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
        c.verdict =
            check_trend(improved, r.curves.at(check.baseline), check.crossover, check.below, check.lower_is_better);
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

// The --set overrides of a claim's runs: its reduced scale (--quick), then the what-if.
std::vector<std::string> claim_sets(const ClaimSpec& claim, const RunSettings& run) {
  std::vector<std::string> sets = run.quick ? claim.quick : std::vector<std::string>{};
  sets.insert(sets.end(), run.what_if.begin(), run.what_if.end());
  return sets;
}

double effect(const std::vector<Verdict>& base, const std::vector<Verdict>& varied) {
  for (std::size_t i = 0; i < base.size() && i < varied.size(); ++i)
    if (base[i].simulated) return varied[i].simulated ? std::fabs(*varied[i].simulated - *base[i].simulated) : 1e300;
  return 0;
}

}  // namespace

ClaimResult run_claim(const ClaimSpec& claim, const Where& where, PointCache& cache, const RunSettings& run) {
  if (!claim.not_modelled.empty()) return evaluate(claim, {}, run.quick);
  const auto extracted = claim_curves(claim, where, cache, claim_sets(claim, run), {});
  ClaimResult r = decide(claim, extracted, run.quick);
  r.what_if = run.what_if;
  for (const double x : breakdown_xs(r))
    for (const auto& [name, e] : extracted)
      if (const auto it = e.breakdowns.find(x); it != e.breakdowns.end()) r.breakdowns[name][x] = it->second;
  return r;
}

// Each listed machine parameter at 0.5x and 2x; everything else as in the preset.
void add_sensitivity(ClaimResult& r, const Where& where, PointCache& cache, const RunSettings& run) {
  const ClaimSpec& c = *r.claim;
  if (c.sensitivity.parameters.empty() || !c.not_modelled.empty() || c.curves.empty()) return;
  const bool quick = run.quick;
  std::vector<std::string> base_sets = claim_sets(c, run);
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

}  // namespace torsim::validation
