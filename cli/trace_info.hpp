// `torsim trace-info PATH`: what a recorded MPI trace holds and how a replay would run it.
#pragma once

#include "cli/options.hpp"

namespace torsim {

const CommandSpec& trace_info_command();

}  // namespace torsim
