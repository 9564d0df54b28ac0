// The scenario reference (docs/scenario-reference.md), generated from the same ParamTables
// that parse scenario files, so the documentation cannot drift from the code.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "sim/config/params.hpp"

namespace torsim {

/// Every table a scenario can contain, in reading order.
std::vector<const ParamTable*> all_param_tables();
/// The Markdown reference.
std::string scenario_reference();

/// `torsim reference`.
const CommandSpec& reference_command();

}  // namespace torsim
