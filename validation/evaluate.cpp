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
    CheckResult c{&check, {}, {}, std::nullopt};
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
    if (!check.alternative_y.empty())
      c.alternative =
          check_trend(r.curves.at(alternative_curve(check.improved)), r.curves.at(alternative_curve(check.baseline)),
                      check.crossover, check.below, check.lower_is_better);
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

// Every curve of a claim, at every point, run with `sets`.
std::map<std::string, ExtractedCurve> claim_curves(const ClaimSpec& claim, const Where& where, PointCache& cache,
                                                   const std::vector<std::string>& sets) {
  std::map<std::string, ExtractedCurve> out;
  for (const auto& [name, spec] : claim.curves)
    out[name] = extract(spec, cache, sets, {}, claim.breakdown.series, where / "curves" / name);
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

}  // namespace

ClaimResult run_claim(const ClaimSpec& claim, const Where& where, PointCache& cache, const RunSettings& run) {
  if (!claim.not_modelled.empty()) return evaluate(claim, {}, run.quick);
  std::vector<PointRequest> requests;
  for (const auto& [name, spec] : claim.curves)
    requests.push_back(curve_request(spec, claim_sets(claim, run), {}, where / "curves" / name));
  cache.prefetch(requests);
  const auto extracted = claim_curves(claim, where, cache, claim_sets(claim, run));
  ClaimResult r = decide(claim, extracted, run.quick);
  r.what_if = run.what_if;
  for (const double x : breakdown_xs(r))
    for (const auto& [name, e] : extracted)
      if (const auto it = e.breakdowns.find(x); it != e.breakdowns.end() && !is_alternative_curve(name))
        r.breakdowns[name][x] = it->second;
  return r;
}

// The --set overrides of a claim's runs: its reduced scale (--quick), then the what-if.
std::vector<std::string> claim_sets(const ClaimSpec& claim, const RunSettings& run) {
  std::vector<std::string> sets = run.quick ? claim.quick : std::vector<std::string>{};
  sets.insert(sets.end(), run.what_if.begin(), run.what_if.end());
  return sets;
}

ChecksRead checks_read(const ClaimSpec& claim, const Where& where, PointCache& cache,
                       const std::vector<std::string>& sets) {
  ChecksRead read;
  for (const auto& check : claim.checks) {
    std::vector<std::string> names{check.improved};
    if (check.rule != Rule::absolute) names.push_back(check.baseline);
    for (const auto& name : names) {
      read.curves.insert(name);
      if (!check.alternative_y.empty()) read.curves.insert(alternative_curve(name));
    }
  }
  const std::vector<double> xs = checked_xs(claim);
  if (xs.empty()) return read;
  for (const auto& name : read.curves) {
    const CurveSpec& spec = claim.curves.at(name);
    if (spec.series.empty()) continue;  // a metric curve's x is its point's: only_x selects it
    const Where at = where / "curves" / name;
    auto& points = read.points[name];
    for (const RunPoint* p : cache.points(curve_request(spec, sets, {}, at, true)))
      if (series_gives_x(spec, *p, xs, at)) points.insert(p->completed.point.values.dump());
  }
  return read;
}

std::vector<PointRequest> check_requests(const ClaimSpec& claim, const Where& where,
                                         const std::vector<std::string>& sets, const ChecksRead& read,
                                         bool tolerate_input_errors) {
  std::vector<PointRequest> out;
  for (const auto& name : read.curves)
    out.push_back(curve_request(claim.curves.at(name), sets, checked_xs(claim), where / "curves" / name,
                                tolerate_input_errors, read.points_of(name)));
  return out;
}

Evaluation evaluate_with(const ClaimSpec& claim, const Where& where, PointCache& cache, bool quick,
                         const std::vector<std::string>& sets, const ChecksRead& read) {
  Evaluation out;
  std::map<std::string, ExtractedCurve> curves;
  for (const auto& name : read.curves)
    curves[name] = extract(claim.curves.at(name), cache, sets, checked_xs(claim), claim.breakdown.series,
                           where / "curves" / name, read.points_of(name));
  ClaimResult r = decide(claim, curves, quick);
  for (const auto& check : r.checks) out.verdicts.push_back(check.verdict);
  out.curves = std::move(r.curves);
  return out;
}

Status status_of(const std::vector<Verdict>& verdicts) {
  for (const auto& v : verdicts)
    if (v.status != Status::reproduced) return Status::not_reproduced;
  return Status::reproduced;
}

}  // namespace torsim::validation
