// The trace readers' speed: records decoded per second on one core, per format, so that a
// replay's speed can be told apart from its reader's (`torsim bench` prints it; the figures
// are recorded in docs/performance.md).
#pragma once

#include <ostream>

#include "sim/config/results.hpp"

namespace torsim {

/// Per format: the trace read, its records, the passes made and records per second. DUMPI reads
/// the shipped AMG trace (27 ranks) over and over; the time-independent and OTF2 readers read a
/// trace the benchmark writes of 64 ranks (`quick`: 16) in a halo exchange.
Json trace_reader_speed(bool quick);
void print_trace_reader_speed(std::ostream& out, const Json& figures);

}  // namespace torsim
