#include "validation/claims.hpp"

#include "run/scenario.hpp"
#include "sim/config/fields.hpp"

namespace torsim::validation {

namespace {

constexpr ParamSpec kBreakdownSpecs[] = {
    {"series", ParamKind::text, "", "", "", "",
     "series (same x column as the curves) whose other columns break "
     "the curves' y down; metric curves use the runs' core time by use without it",
     "-"},
    {"at", ParamKind::integer_list, "[]", "", "", "", "x values shown (default: where each check was decided)", "-"},
};
constexpr Field<SensitivitySpec> kSensitivityFields[] = {
    bind<&SensitivitySpec::parameters>(
        {"parameters", ParamKind::text_list, "[]", "", "", "",
         "parameters varied besides the assumptions the runs read: paths inside the machine (\"nic.smsg_send_cpu\") "
         "or the scenario (\"workload.window\"), each a number or a quantity (\"100ns\", \"8KiB\")",
         "-"}),
    bind<&SensitivitySpec::set>(
        {"set", ParamKind::text_list, "[]", "", "", "", "--set overrides for the sensitivity runs", "-"}),
    bind<&SensitivitySpec::note>({"note", ParamKind::text, "", "", "", "",
                                  "what the report says about the runs (what 'set' changes, which points run)", "-"}),
    bind<&SensitivitySpec::on_request>(
        {"on_request", ParamKind::text, "", "", "", "",
         "non-empty: why a full run of the whole registry does not compute this claim's full-scale robustness "
         "(what its variants would cost); `validate --only` naming the claim computes it",
         "-"}),
};
constexpr auto kSensitivitySpecs = specs_of(kSensitivityFields);
constexpr Field<Paper> kPaperFields[] = {
    bind<&Paper::title>({"title", ParamKind::text, kRequired, "", "", "", "title", "-"}),
    bind<&Paper::authors>({"authors", ParamKind::text, kRequired, "", "", "", "authors", "-"}),
    bind<&Paper::venue>({"venue", ParamKind::text, kRequired, "", "", "", "venue", "-"}),
    bind<&Paper::year>({"year", ParamKind::text, kRequired, "", "", "", "year", "-"}),
    bind<&Paper::doi>({"doi", ParamKind::text, kRequired, "", "", "", "DOI, or why there is none", "-"}),
    bind<&Paper::seed>({"seed", ParamKind::text, kRequired, "", "", "", "seed file the claim was taken from", "-"}),
};
constexpr auto kPaperSpecs = specs_of(kPaperFields);
constexpr ChoiceName<Rule> kRuleNames[] = {
    {"gain_up_to", Rule::gain_up_to}, {"gain_at", Rule::gain_at}, {"absolute", Rule::absolute}, {"trend", Rule::trend}};
constexpr ChoiceName<GainKind> kGainNames[] = {
    {"reduction", GainKind::reduction}, {"speedup", GainKind::speedup}, {"increase", GainKind::increase}};
using C = CheckSpec;
// The alternative measure is an object of its own (parse_check).
constexpr Field<C> kCheckFields[] = {
    bind<&C::label>({"label", ParamKind::text, "", "", "", "", "name of the check when a claim has several", "-"}),
    bind_choice<&C::rule, kRuleNames>(
        {"rule", ParamKind::choice, kRequired, "", "", "",
         "gain_up_to: largest gain over the sweep; gain_at: gain at x = at; absolute: value at x = at within 15 %; "
         "trend: one curve beats the other on one side of a crossover (or everywhere)",
         "-", "gain_up_to|gain_at|absolute|trend"}),
    bind<&C::baseline>({"baseline", ParamKind::text, "baseline", "", "", "",
                        "curve the gain is measured against (trend: the loser)", "-"}),
    bind<&C::improved>({"improved", ParamKind::text, "improved", "", "", "",
                        "curve whose gain is measured (trend: the winner; "
                        "absolute: the curve checked)",
                        "-"}),
    bind_choice<&C::gain, kGainNames>(
        {"gain", ParamKind::choice, "reduction", "", "", "",
         "reduction: (base - new) / base; speedup: base / new - 1; increase: new / base - 1", "-",
         "reduction|speedup|increase"}),
    bind<&C::expected>(
        {"expected", ParamKind::number, "0", "", "", "", "the paper's gain in percent, or its absolute value", "-"}),
    bind<&C::at>({"at", ParamKind::number, kUnset, "", "", "", "x of the point checked (gain_at, absolute)", "-"}),
    bind<&C::floor>(
        {"floor", ParamKind::number, "0", "", "0", "", "absolute floor of the relative error (absolute rule)", "-"}),
    bind<&C::crossover>({"crossover", ParamKind::number, kUnset, "", "", "",
                         "x where the trend flips (trend; unset: everywhere)", "-"}),
    bind<&C::below>(
        {"below", ParamKind::boolean, "true", "", "", "", "trend holds below the crossover (false: above)", "-"}),
    bind<&C::lower_is_better>(
        {"lower_is_better", ParamKind::boolean, "true", "", "", "", "lower y wins (latency, time)", "-"}),
    bind<&C::why>({"why", ParamKind::text, kRequired, "", "", "", "why this rule fits the claim", "-"}),
    unbound<C>(
        {"alternative", ParamKind::object, "{}", "", "", "",
         "another measure of the same runs, checked the same way and reported beside the check, never deciding it",
         "-"}),
};
constexpr auto kCheckSpecs = specs_of(kCheckFields);
constexpr ParamSpec kAlternativeSpecs[] = {
    {"y", ParamKind::text, kRequired, "", "", "", "the series column of the other measure (series curves only)", "-"},
    {"name", ParamKind::text, kRequired, "", "", "", "what it measures, for the report", "-"},
};
using V = CurveSpec;
constexpr Field<V> kCurveFields[] = {
    bind<&V::scenario>({"scenario", ParamKind::text, kRequired, "", "", "",
                        "scenario file, relative to the repository root (or absolute)", "-"}),
    unbound<V>(
        {"where", ParamKind::object, "{}", "", "", "", "sweep values selecting points (dotted path -> value)", "-"}),
    bind<&V::series>({"series", ParamKind::text, "", "", "", "", "series name (with x and y columns)", "-"}),
    bind<&V::metric>(
        {"metric", ParamKind::text, "", "", "", "", "metric name, taken across sweep points (x: a sweep key)", "-"}),
    bind<&V::x>({"x", ParamKind::text, kRequired, "", "", "", "x column, or sweep key for a metric", "-"}),
    bind<&V::y>({"y", ParamKind::text, "", "", "", "", "y column of the series", "-"}),
};
constexpr auto kCurveSpecs = specs_of(kCurveFields);

Paper parse_paper(const ParamReader& r) { return parse_fields(r, kPaperFields); }
SensitivitySpec parse_sensitivity(const ParamReader& r) { return parse_fields(r, kSensitivityFields); }

constexpr ChoiceName<bool> kKindNames[] = {{"claim", false}, {"calibration", true}};
using A = ClaimSpec;
// checks, curves, plot and breakdown are read by parse_claim.
constexpr Field<A> kClaimFields[] = {
    bind<&A::id>({"id", ParamKind::text, kRequired, "", "", "",
                  "C1..C15 for the mission's claims, K1.. for calibration points", "-"}),
    bind_choice<&A::calibration, kKindNames>({"kind", ParamKind::choice, "claim", "", "", "",
                                              "claim: validation target; calibration: a calibration point", "-",
                                              "claim|calibration"}),
    bind_object<&A::paper, &kPaperParams, parse_paper>(
        {"paper", ParamKind::object, kRequired, "", "", "", "the seed paper", "-"}),
    bind<&A::source>(
        {"source", ParamKind::text, kRequired, "", "", "", "the figure or sentence the claim comes from", "-"}),
    bind<&A::machine>(
        {"machine", ParamKind::text, kRequired, "", "", "", "machine and scale of the paper's measurement", "-"}),
    bind<&A::quantity>({"quantity", ParamKind::text, kRequired, "", "", "", "what is compared", "-"}),
    bind<&A::paper_value>(
        {"paper_value", ParamKind::text, kRequired, "", "", "", "the paper's value or range, as stated", "-"}),
    unbound<A>({"checks", ParamKind::object_list, kRequired, "", "", "",
                "the checks that decide the claim (all must pass)", "-"}),
    unbound<A>({"curves", ParamKind::object, "{}", "", "", "", "named curves the checks compare", "-"}),
    bind<&A::quick>(
        {"quick", ParamKind::text_list, "[]", "", "", "", "--set overrides for the reduced-scale run (--quick)", "-"}),
    bind<&A::quick_note>({"quick_note", ParamKind::text, "", "", "", "", "what the reduced scale changes", "-"}),
    bind<&A::not_modelled>(
        {"not_modelled", ParamKind::text, "", "", "", "", "why the claim is not yet modelled (empty when it is)", "-"}),
    bind<&A::by_construction>({"by_construction", ParamKind::text, "", "", "", "",
                               "when the claimed sign follows from how the layers are composed: how (the report says "
                               "'holds by construction')",
                               "-"}),
    unbound<A>({"plot", ParamKind::object, "{}", "", "", "", "axis labels and scales for the report", "-"}),
    unbound<A>({"breakdown", ParamKind::object, "{}", "", "", "", "where the time goes, shown in the report", "-"}),
    bind_object<&A::sensitivity, &kSensitivityParams, parse_sensitivity>(
        {"sensitivity", ParamKind::object, "{}", "", "", "",
         "machine parameters the claim depends on, re-evaluated at 0.5x and 2x by validate --sensitivity", "-"}),
};
constexpr auto kClaimSpecs = specs_of(kClaimFields);

}  // namespace

const ParamTable kClaimParams{"validation claim", "One entry of validation/claims.json.", kClaimSpecs};
const ParamTable kPaperParams{"validation claim.paper", "The seed paper.", kPaperSpecs};
const ParamTable kCheckParams{"validation claim.checks[i]", "One check of a claim.", kCheckSpecs};
const ParamTable kCurveParams{"validation claim.curves.<name>", "Where a curve comes from.", kCurveSpecs};
const ParamTable kBreakdownParams{"validation claim.breakdown", "Where the claim's time goes.", kBreakdownSpecs};
const ParamTable kAlternativeParams{"validation claim.checks[i].alternative", "Another measure of the check's runs.",
                                    kAlternativeSpecs};
const ParamTable kSensitivityParams{"validation claim.sensitivity", "Parameters the claim depends on.",
                                    kSensitivitySpecs};

namespace {

CheckSpec parse_check(const ParamReader& r) {
  CheckSpec c = parse_fields(r, kCheckFields);
  const ParamReader alternative(r.nested("alternative"), r.where("alternative"), kAlternativeParams);
  if (!r.nested("alternative").empty()) {
    c.alternative_y = alternative.text("y");
    c.alternative_name = alternative.text("name");
    if (c.rule != Rule::trend) r.where("alternative").fail("an alternative measure is for trend checks");
  }
  if ((c.rule == Rule::gain_at || c.rule == Rule::absolute) && !c.at)
    r.where().fail("rules gain_at and absolute need 'at', the x of the point checked");
  return c;
}

CurveSpec parse_curve(const ParamReader& r) {
  CurveSpec c = parse_fields(r, kCurveFields);
  c.where = r.nested("where");
  if (c.series.empty() == c.metric.empty()) r.where().fail("a curve takes either 'series' (with 'y') or 'metric'");
  if (!c.series.empty() && c.y.empty()) r.where().fail("a series curve needs 'y', the column plotted");
  return c;
}

// Each check's alternative measure reads the same points as its curves, another column.
void add_alternative_curves(ClaimSpec& c, const Where& where) {
  for (std::size_t i = 0; i < c.checks.size(); ++i) {
    const CheckSpec& check = c.checks[i];
    if (check.alternative_y.empty()) continue;
    for (const auto* name : {&check.baseline, &check.improved}) {
      const auto it = c.curves.find(*name);
      if (it == c.curves.end()) continue;  // reported below as a missing curve
      if (it->second.series.empty()) (where / i / "alternative").fail("an alternative measure needs series curves");
      CurveSpec other = it->second;
      other.y = check.alternative_y;
      c.curves[alternative_curve(*name)] = other;
    }
  }
}

ClaimSpec parse_claim(const ParamReader& r) {
  ClaimSpec c = parse_fields(r, kClaimFields);
  const Json& checks = r.nested("checks");
  for (std::size_t i = 0; i < checks.size(); ++i)
    c.checks.push_back(parse_check(ParamReader(checks[i], r.where("checks") / i, kCheckParams)));
  for (const auto& [name, spec] : r.nested("curves").items())
    c.curves[name] = parse_curve(ParamReader(spec, r.where("curves") / name, kCurveParams));
  add_alternative_curves(c, r.where("checks"));
  c.plot = r.nested("plot");
  const ParamReader breakdown(r.nested("breakdown"), r.where("breakdown"), kBreakdownParams);
  c.breakdown.series = breakdown.text("series");
  for (const auto x : breakdown.integers("at")) c.breakdown.at.push_back(static_cast<double>(x));
  if (c.not_modelled.empty())
    for (std::size_t i = 0; i < c.checks.size(); ++i)
      for (const auto* name : {&c.checks[i].baseline, &c.checks[i].improved})
        if ((c.checks[i].rule != Rule::absolute || name == &c.checks[i].improved) && !c.curves.count(*name))
          (r.where("checks") / i).fail("the check uses curve '" + *name + "', which 'curves' does not define");
  return c;
}

}  // namespace

std::string alternative_curve(const std::string& curve) { return curve + " (alternative measure)"; }

bool is_alternative_curve(const std::string& name) { return name.ends_with(" (alternative measure)"); }

std::vector<ClaimSpec> load_claims(const std::string& path) {
  const Json doc = read_json_file(path);
  const Where where(path);
  if (!doc.is_object() || !doc.contains("claims") || !doc["claims"].is_array())
    where.fail("expected an object with a \"claims\" list");
  std::vector<ClaimSpec> claims;
  for (std::size_t i = 0; i < doc["claims"].size(); ++i)
    claims.push_back(parse_claim(ParamReader(doc["claims"][i], where / "claims" / i, kClaimParams)));
  return claims;
}

}  // namespace torsim::validation
