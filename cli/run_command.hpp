// `torsim run`: one scenario, every point of its sweep, into an output directory.
#pragma once

#include "cli/options.hpp"

namespace torsim {

const CommandSpec& run_command();

/// --jobs N: a number of runs at once, 1 to 4096 (an input error at the command line otherwise).
std::size_t parse_jobs(const std::string& text);

}  // namespace torsim
