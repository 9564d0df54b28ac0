// `torsim bench`: the shipped speed benchmark (figures recorded in docs/performance.md).
#pragma once

#include "cli/options.hpp"

namespace torsim {

const CommandSpec& bench_command();

}  // namespace torsim
