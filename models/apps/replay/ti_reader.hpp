// SimGrid's time-independent traces: text, one action per line ("RANK ACTION ARGS..."), either
// one file per rank listed line by line in an index file, or every rank in one file (an index
// of one line, or that file given directly). Sizes are counts of a datatype (bytes unless the
// rank's `init` action says otherwise), `compute` is in flops. The grammar is SimGrid's replay
// (src/smpi/internals/smpi_replay.cpp, simgrid/simgrid@12a63c78); docs/replay.md lists it.
#pragma once

#include <memory>
#include <string>

#include "models/apps/replay/trace.hpp"

namespace torsim::replay {

std::unique_ptr<Trace> open_ti_trace(const std::string& path, const Where& where);

}  // namespace torsim::replay
