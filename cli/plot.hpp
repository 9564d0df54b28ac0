// `torsim plot RESULTS_DIR`: a sweep's series drawn as one PNG (python/torsim/plot.py).
#pragma once

#include "cli/options.hpp"

namespace torsim {

const CommandSpec& plot_command();

}  // namespace torsim
