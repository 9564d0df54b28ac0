// The validation report: validation.json, the Markdown index (docs/validation/README.md), one
// plot per claim, and the table printed on the console. Pure text from the decided claims;
// the command (cli/validate.cpp) writes it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "validation/evaluate.hpp"

namespace torsim::validation {

/// The whole result as JSON (validation.json), and the Markdown index of the report.
/// A what-if run (--set) says so in the header and in every status.
Json results_json(const std::vector<ClaimResult>& results, const RunSettings& run);
std::string report_markdown(const std::vector<ClaimResult>& results, const RunSettings& run,
                            const std::vector<std::string>& plots);

/// Where a run naming an on-request claim writes its report, within the committed report's
/// directory: one subdirectory per claim (`make validate-on-request` runs each on its own, so one
/// claim can be recomputed without the others); a run of the whole registry reads them back.
inline constexpr const char* kOnRequestReport = "on-request";

/// The on-request report of claim `id`, relative to the committed report's directory.
inline std::string on_request_report(const std::string& id) { return std::string(kOnRequestReport) + "/" + id; }

/// For each on-request claim of `results` that this run did not vary, the robustness that a run
/// naming it recorded in `report` (a report's validation.json, read from `path`): adopted when
/// that run's curves equal this run's, marked stale otherwise. Claims it does not hold are left.
void adopt_recorded_robustness(std::vector<ClaimResult>& results, const Json& report, const std::string& path);

/// claim | paper | simulated | tolerance | status, and each sensitivity table, on stdout.
void print_table(const std::vector<ClaimResult>& results);
void print_sensitivity(const std::vector<ClaimResult>& results);

/// One PNG per claim drawn from validation.json's text by validation/plot_report.py (python3
/// with matplotlib) in a temporary directory: (claim id, the file's bytes). Without them, none,
/// and a warning.
std::vector<std::pair<std::string, std::string>> draw_plots(const std::string& validation_json);

}  // namespace torsim::validation
