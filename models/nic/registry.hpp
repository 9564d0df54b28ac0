// The NIC models by name: what a machine's "nic" section chooses with its "model" key, with
// each model's parameter table.
#pragma once

#include <string_view>
#include <vector>

#include "models/machine.hpp"

namespace torsim::nic {

struct NicModelEntry {
  std::string_view name;
  std::string_view description;
  const ParamTable* params;
  /// Parses every parameter (required ones, ranges, nested sections), discarding the result.
  void (*check)(const ParamReader&);
};
const std::vector<NicModelEntry>& nic_models();

/// The machine's "nic" section: empty, or a known model whose parameters all parse, whether
/// or not the run's messaging layer drives it.
void check_nic(const Machine& machine);

}  // namespace torsim::nic
