// The trace readers' speed: records decoded per second on one core, per format, so that a
// replay's speed can be told apart from its reader's (`torsim bench` prints it; the figures
// are recorded in docs/performance.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>

#include "sim/config/results.hpp"

namespace torsim {

/// Per format: the trace read, its records, the passes made and records per second. DUMPI reads
/// the shipped AMG trace (27 ranks) over and over; the time-independent and OTF2 readers read a
/// trace the benchmark writes of 64 ranks (`quick`: 16) in a halo exchange.
Json trace_reader_speed(bool quick);
void print_trace_reader_speed(std::ostream& out, const Json& figures);
/// Writes a time-independent trace of `ranks` ranks into `dir` (its index's path returned): per
/// step, an irecv and an isend of 8 KiB with each of 4 neighbours, a waitall, an allreduce of
/// 8 B and a compute of 1 Mflop.
std::string write_halo_trace(const std::filesystem::path& dir, std::int32_t ranks, std::int32_t steps);

}  // namespace torsim
