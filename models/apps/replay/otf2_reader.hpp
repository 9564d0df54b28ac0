// OTF2 traces (Score-P and other tools), read through the OTF2 library (never by hand): the
// anchor file (NAME.otf2), its global definitions (NAME.def) and one event file per location
// (NAME/LOCATION.evt). A rank is an MPI location: its place in the MPI COMM_LOCATIONS group is
// its rank in MPI_COMM_WORLD; its host is its location group's system-tree node. A call is the
// MPI region between an Enter and its Leave, with the MPI events inside it.
#pragma once

#include <memory>
#include <string>

#include "models/apps/replay/trace.hpp"

namespace torsim::replay {

std::unique_ptr<Trace> open_otf2_trace(const std::string& path, const Where& where);

}  // namespace torsim::replay
