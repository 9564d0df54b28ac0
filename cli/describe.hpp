// `torsim describe`: a machine's derived figures, and routes through it.
#pragma once

#include "cli/options.hpp"

namespace torsim {

const CommandSpec& describe_command();

}  // namespace torsim
