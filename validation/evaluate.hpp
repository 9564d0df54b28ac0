// Deciding claims: runs the sweep points a claim's curves select (validation/runs.hpp), applies
// the tolerance policy of validation/compare.hpp to each check, and re-evaluates a claim with
// its sensitivity parameters at 0.5x and 2x.
#pragma once

#include <map>
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
};

struct CheckResult {
  const CheckSpec* spec = nullptr;
  Verdict verdict;
  Curve gains;  // gain per x, for gain rules (plotted)
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
  /// With --sensitivity: the claim at its preset values (with the sensitivity's own --set, if
  /// any), and one row per parameter, most sensitive first.
  std::vector<Verdict> sensitivity_base;
  std::vector<SensitivityRow> sensitivity;
};

/// The x values a claim's breakdowns are shown at: the registry's, or where each check was
/// decided (a trend: the first and last x of its better curve).
std::vector<double> breakdown_xs(const ClaimResult& r);

/// Decides one claim from its curves (already extracted).
ClaimResult evaluate(const ClaimSpec& claim, std::map<std::string, Curve> curves, bool quick);

/// Runs a claim's curves (at reduced scale when `run.quick`, with its what-if overrides) and decides it, with its
/// breakdowns. `where` is the claim's entry in the registry, for errors.
ClaimResult run_claim(const ClaimSpec& claim, const Where& where, PointCache& cache, const RunSettings& run);

/// Adds the claim's sensitivity table: each listed machine parameter at 0.5x and 2x.
void add_sensitivity(ClaimResult& r, const Where& where, PointCache& cache, const RunSettings& run);

}  // namespace torsim::validation
