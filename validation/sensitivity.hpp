// Robustness of a claim: the claim re-evaluated with each parameter its runs read whose source is
// an assumption (and each the registry lists) at 0.5x and 2x of its value, everything else
// unchanged, and its status on every network model the machine supports, so a reader sees
// which knobs a result hangs on. The types and the pure parts; validation/robustness.* runs it.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "sim/config/params.hpp"
#include "sim/config/provenance.hpp"
#include "validation/compare.hpp"

namespace torsim::validation {

inline constexpr std::array<double, 2> kSensitivityFactors{0.5, 2.0};

/// A parameter's value times `factor`, written as a scenario takes it: a number stays
/// a number (an integer stays an integer, rounded, at least 1 if it was), a quantity becomes
/// an exact count of its base unit ("100ns" x 0.5 -> "50000ps", "8KiB" x 2 -> "16384B").
/// An error at `where` if the value is neither.
Json scaled_parameter(const Json& value, double factor, const Where& where);

/// A parameter a claim's sensitivity varies.
struct VariedParameter {
  std::string path;      // inside the machine ("nic.bte_setup"), or in the scenario ("workload.window")
  std::string value;     // as the preset (or the table's default, or the scenario) gives it
  std::string citation;  // the preset's "sources" entry, or the table's source column
  Provenance provenance;
  bool listed = false;  // named by the registry ("sensitivity": {"parameters": [...]})
  bool in_machine = true;
  std::string set_path() const { return in_machine ? "machine." + path : path; }
};

/// An assumption the runs read that is not varied, and why (not a number, zero, differs
/// between the claim's machines).
struct UnvariedParameter {
  std::string path, value, why;
  Provenance provenance;
};

/// One parameter's row of a claim's sensitivity table.
struct SensitivityRow {
  VariedParameter parameter;
  std::array<std::vector<Verdict>, 2> verdicts;  // per factor, one per check of the claim
  std::array<Status, 2> status{};                // the claim's status with the parameter at each factor
  /// Per factor: why the runs could not take the value (a model rejects it), "" when they ran.
  std::array<std::string, 2> impossible;
  /// Per factor: whether it moved any check's simulated value or status at all.
  std::array<bool, 2> moved{};
  /// How far the claim's curves move, the larger of the two factors: the largest relative
  /// change of any point of the curves the checks are decided on, in percent.
  double effect = 0;
  bool moves() const { return moved[0] || moved[1]; }
};

/// The claim's status on one network model.
struct ModelStatus {
  std::string model;     // "packet", "packet, credit flow control", "analytic"
  std::string set;       // the --set that selects it ("" for the scenarios' own)
  bool primary = false;  // the model the claim's status comes from (the scenarios' default)
  Status status = Status::not_reproduced;
  std::vector<Verdict> verdicts;
  std::string impossible;  // why the model cannot run the claim's scenarios, "" when it ran
};

struct Robustness {
  bool computed = false;
  std::vector<Verdict> base;         // the claim at its preset values, on the checks' points
  std::vector<SensitivityRow> rows;  // most sensitive first
  std::vector<UnvariedParameter> unvaried;
  std::vector<ModelStatus> models;

  /// Variants (parameter x factor) that move a result, and of those how many keep the status.
  std::size_t moving_variants() const;
  std::size_t kept_variants(Status status) const;
  /// Variants that move nothing (the runs read the parameter but it changes no result).
  std::size_t idle_variants() const;
  /// Variants whose value a model rejects (not counted above).
  std::size_t impossible_variants() const;
  /// The parameters whose 0.5x or 2x changes the status, most sensitive first.
  std::vector<std::string> flipping(Status status) const;
  /// The models (that could run) on which the status differs from `status`.
  std::vector<const ModelStatus*> differing_models(Status status) const;
};

/// Most sensitive first (ties keep the claim's order).
void sort_by_effect(std::vector<SensitivityRow>& rows);

}  // namespace torsim::validation
