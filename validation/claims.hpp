// The claims registry (validation/claims.json): each paper claim or reference point with its
// source, the paper's value, the check that decides it, and the scenarios and curves the
// simulated quantity comes from. Parsed with ParamTables, so a typo in the registry is an
// error naming the key, like in a scenario.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/config/params.hpp"
#include "validation/compare.hpp"

namespace torsim::validation {

struct Paper {
  std::string title, authors, venue, year, doi, seed;
};

/// Where a curve comes from: a series of one scenario (x and y columns, across the points
/// whose sweep values match `where`), or a metric across sweep points (x = a sweep key).
/// The defaults and meanings of CurveSpec and CheckSpec are their tables' (validation/claims.cpp).
struct CurveSpec {
  std::string scenario;  // relative to the repository root
  Json where;
  std::string series, metric, x, y;
};

enum class Rule { gain_up_to, gain_at, absolute, trend };

struct CheckSpec {
  std::string label;  // e.g. "4 B"; empty for a single check
  Rule rule{};
  std::string baseline, improved;  // curve names
  GainKind gain{};
  double expected = 0;              // percent for gains, a value for absolute
  std::optional<double> at;         // x for gain_at / absolute
  double floor = 0;                 // absolute: floor of the relative error
  std::optional<double> crossover;  // trend
  bool below = false, lower_is_better = false;
  std::string why;  // why this rule and tolerance fit the claim
  /// Another measure of the same runs (another y column of the curves' series), checked the
  /// same way and reported as a note, never deciding: e.g. the mean of per-pair rates beside
  /// the node's aggregate.
  std::string alternative_y, alternative_name;
};

/// Where a claim's time goes: for metric curves, every run's core time by use (results'
/// counters.core_time_us, per core); for series curves, the row at x of a breakdown series
/// the scenario writes (e.g. ping-pong's latency_breakdown). Shown at `at`, or where the
/// checks were decided.
struct BreakdownSpec {
  std::string series;      // breakdown series for series curves ("" : none)
  std::vector<double> at;  // x values shown (empty: each check's deciding x)
};

/// Parameters a claim's robustness varies besides the assumptions its runs read
/// (validation/robustness.hpp): paths inside the machine ("nic.smsg_send_cpu") or the scenario
/// ("workload.window"), each at 0.5x and 2x.
struct SensitivitySpec {
  std::vector<std::string> parameters;
  std::vector<std::string> set;  // --set overrides for the sensitivity runs
  std::string note;              // what the report says about the runs
  std::string on_request;        // non-empty: why a full run of the registry skips its full-scale robustness
};

struct ClaimSpec {
  std::string id;
  bool calibration = false;  // a calibration point: checks that calibration took, not validation
  Paper paper;
  std::string source, machine, quantity, paper_value;
  std::vector<CheckSpec> checks;
  std::map<std::string, CurveSpec> curves;
  std::vector<std::string> quick;  // --set overrides for the reduced-scale variant
  std::string quick_note;          // what --quick changes, for the report
  std::string not_modelled;        // non-empty: the claim is not yet modelled, and why
  std::string by_construction;     // non-empty: the claimed sign follows from how the layers are composed, and how
  Json plot = Json::object();      // x_label, y_label, log_x, log_y
  BreakdownSpec breakdown;
  SensitivitySpec sensitivity;
};

std::vector<ClaimSpec> load_claims(const std::string& path);

extern const ParamTable kClaimParams;
extern const ParamTable kPaperParams;
extern const ParamTable kCheckParams;
extern const ParamTable kCurveParams;
extern const ParamTable kBreakdownParams;
extern const ParamTable kSensitivityParams;
extern const ParamTable kAlternativeParams;

/// The name of the curve that carries `curve`'s alternative measure.
std::string alternative_curve(const std::string& curve);
bool is_alternative_curve(const std::string& name);

}  // namespace torsim::validation
