// Deciding claims: runs the sweep points a claim's curves select (validation/runs.hpp) and
// applies the tolerance policy of validation/compare.hpp to each check.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "validation/claims.hpp"
#include "validation/runs.hpp"
#include "validation/sensitivity.hpp"

namespace torsim::validation {

/// How a validate run differs from the claims as registered: the reduced-scale variants, and
/// what-if overrides (--set) on every claim's runs.
struct RunSettings {
  bool quick = false;
  std::vector<std::string> what_if;  // path=value, as --set takes them
  std::string only;                  // the claims named (--only), or "" for the whole registry
};

struct CheckResult {
  const CheckSpec* spec = nullptr;
  Verdict verdict;
  Curve gains;                         // gain per x, for gain rules (plotted)
  std::optional<Verdict> alternative;  // the check on its alternative measure (a note, never deciding)
};

/// The robustness of an on-request claim as a run naming it computed it, read back from that
/// run's report (docs/validation/on-request/validation.json): adopted only when that run's
/// curves equal this run's value for value, i.e. the same runs decided it.
struct RecordedRobustness {
  std::string report;  // the report it was read from
  std::string label;   // its status label ("not reproduced (fragile: ...)")
  std::string column;  // "k of n"
  bool stale = false;  // its curves differ from this run's: not adopted
};

struct ClaimResult {
  const ClaimSpec* claim = nullptr;
  Status status = Status::not_yet_modelled;
  std::vector<CheckResult> checks;
  std::map<std::string, Curve> curves;
  bool quick = false;
  std::vector<std::string> what_if;  // the run's --set overrides: the status is not the claim's
  /// curve -> x -> where the time goes, at the x values the report shows
  std::map<std::string, std::map<double, Breakdown>> breakdowns;
  /// Its sensitivity and its status per network model (validation/robustness.hpp), when computed.
  Robustness robustness;
  /// For an on-request claim that this run did not vary: what a run naming it recorded.
  std::optional<RecordedRobustness> recorded;
};

/// The x values a claim's breakdowns are shown at: the registry's, or where each check was
/// decided (a trend: the first and last x of its better curve).
std::vector<double> breakdown_xs(const ClaimResult& r);

/// Decides one claim from its curves (already extracted).
ClaimResult evaluate(const ClaimSpec& claim, std::map<std::string, Curve> curves, bool quick);

/// Runs a claim's curves (at reduced scale when `run.quick`, with its what-if overrides) and decides it, with its
/// breakdowns. `where` is the claim's entry in the registry, for errors.
ClaimResult run_claim(const ClaimSpec& claim, const Where& where, PointCache& cache, const RunSettings& run);

/// The --set overrides of a claim's runs: its reduced scale (--quick), then the what-if.
std::vector<std::string> claim_sets(const ClaimSpec& claim, const RunSettings& run);

/// The checks' verdicts with the claim's runs under `sets`, on the points the checks read only
/// (every point for a trend or an "up to"), and the curves they were decided on; and the
/// requests for those points (to prefetch; tolerating input errors for variants whose values a
/// model may reject: ImpossibleRun then).
struct Evaluation {
  std::vector<Verdict> verdicts;
  std::map<std::string, Curve> curves;
};
/// What of a claim's runs its checks read: the curves they name (a curve drawn only for the
/// plot is not rerun) and, when every check reads one x, of each curve the sweep points (their
/// values, as dumped JSON) whose base runs gave such an x. A series curve's x values are known
/// only once its points have run, so without this a variant reruns its whole sweep.
struct ChecksRead {
  std::set<std::string> curves;
  std::map<std::string, std::set<std::string>> points;
  /// The points of curve `name` to rerun; null for every point.
  const std::set<std::string>* points_of(const std::string& name) const {
    const auto it = points.find(name);
    return it == points.end() ? nullptr : &it->second;
  }
};
/// From the base runs under `sets` (run into `cache` by this call if not there yet).
ChecksRead checks_read(const ClaimSpec& claim, const Where& where, PointCache& cache,
                       const std::vector<std::string>& sets);

Evaluation evaluate_with(const ClaimSpec& claim, const Where& where, PointCache& cache, bool quick,
                         const std::vector<std::string>& sets, const ChecksRead& read);
std::vector<PointRequest> check_requests(const ClaimSpec& claim, const Where& where,
                                         const std::vector<std::string>& sets, const ChecksRead& read,
                                         bool tolerate_input_errors = false);

/// reproduced when every verdict is.
Status status_of(const std::vector<Verdict>& verdicts);

}  // namespace torsim::validation
