// `torsim run`: one scenario, every point of its sweep, into an output directory.
#pragma once

#include "cli/options.hpp"

namespace torsim {

const CommandSpec& run_command();

}  // namespace torsim
