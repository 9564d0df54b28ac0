// `torsim validate`: runs the claims' scenarios, compares with the papers, prints the table,
// writes validation.json and the report (Markdown index and one plot per claim).
#pragma once

#include <string>
#include <vector>

#include "validation/claims.hpp"
#include "validation/runs.hpp"
#include "validation/sensitivity.hpp"

namespace torsim::validation {

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

/// The whole result as JSON (validation.json), and the Markdown index of the report.
Json results_json(const std::vector<ClaimResult>& results, bool quick);
std::string report_markdown(const std::vector<ClaimResult>& results, bool quick, const std::vector<std::string>& plots);

int command_validate(const std::vector<std::string>& args);

}  // namespace torsim::validation
