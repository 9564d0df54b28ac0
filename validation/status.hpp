// The recorded statuses (validation/status.json): what `make validate` recorded per claim and
// scale, and the check CI makes against it (a claim recorded as reproduced that no longer is).
#pragma once

#include <string>
#include <vector>

#include "validation/evaluate.hpp"

namespace torsim::validation {

/// 3 when a claim recorded as reproduced at this scale is no longer reproduced, or one recorded
/// as robust is now fragile (each one said on stderr), else 0. A status is recorded with its
/// label ("reproduced (robust)", validation/robustness.hpp).
int check_against(const std::string& path, const std::vector<ClaimResult>& results, bool quick);

/// The status file with this run's statuses recorded at its scale (the rest unchanged), as text.
std::string recorded_status(const std::string& path, const std::vector<ClaimResult>& results, bool quick);

}  // namespace torsim::validation
