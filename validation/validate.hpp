// `torsim validate`: runs the claims' scenarios, compares with the papers, prints the table,
// writes validation.json and the report (Markdown index and one plot per claim).
#pragma once

#include <string>
#include <vector>

#include "validation/claims.hpp"

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
};

/// Decides one claim from its curves (already extracted).
ClaimResult evaluate(const ClaimSpec& claim, std::map<std::string, Curve> curves, bool quick);

/// The whole result as JSON (validation.json), and the Markdown index of the report.
Json results_json(const std::vector<ClaimResult>& results, bool quick);
std::string report_markdown(const std::vector<ClaimResult>& results, bool quick, const std::vector<std::string>& plots);

int command_validate(const std::vector<std::string>& args);

}  // namespace torsim::validation
