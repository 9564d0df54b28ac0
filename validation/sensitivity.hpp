// Sensitivity of a claim to the machine parameters it lists (claims.json "sensitivity"): the
// claim re-evaluated with each parameter at 0.5x and 2x of its value in the machine preset,
// everything else unchanged, so a reader sees which knobs a result hangs on.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/config/params.hpp"
#include "validation/compare.hpp"

namespace torsim::validation {

inline constexpr std::array<double, 2> kSensitivityFactors{0.5, 2.0};

/// A machine parameter's value times `factor`, written as a scenario takes it: a number stays
/// a number (an integer stays an integer, rounded, at least 1 if it was), a quantity becomes
/// an exact count of its base unit ("100ns" x 0.5 -> "50000ps", "8KiB" x 2 -> "16384B").
/// An error at `where` if the value is neither.
Json scaled_parameter(const Json& value, double factor, const Where& where);

/// One parameter's row of a claim's sensitivity table.
struct SensitivityRow {
  std::string parameter;                  // path inside the machine
  std::string value;                      // its value in the preset, as written
  std::array<std::vector<Verdict>, 2> verdicts;  // per factor, one per check of the claim
  std::array<Status, 2> status{};
  /// How far the first check's simulated value moves: the larger |change| of the two factors.
  double effect = 0;
};

/// Most sensitive first (ties keep the claim's order).
void sort_by_effect(std::vector<SensitivityRow>& rows);

}  // namespace torsim::validation
