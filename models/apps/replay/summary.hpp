// What a trace holds, read once through: calls by type (and by function, for calls of no known
// type) with their bytes, the recorded span, hosts and mesh coordinates. `torsim trace-info`
// prints it, so a user can check a trace before a long run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/apps/replay/trace.hpp"

namespace torsim::replay {

struct CallTally {
  std::int64_t count = 0;
  Bytes bytes = 0;    // the calls' own sizes (sent, or received for receives)
  Time recorded = 0;  // time inside the calls, where recorded
};

struct TraceSummary {
  std::int64_t records = 0;
  std::map<CallType, CallTally> by_type;
  std::map<std::string, CallTally> other_functions;  // calls of type `other`, by name
  /// First call's start and last call's end over every rank (kNoTime without times).
  Time first = kNoTime, last = kNoTime;
  /// Hosts in order of first appearance, with their ranks (empty if none is recorded).
  std::vector<std::pair<std::string, std::vector<std::int32_t>>> hosts;
  std::int32_t ranks_with_coords = 0;
};

TraceSummary summarize(const Trace& trace);

/// "0-23", "24-26", "0,2,4-6": a sorted rank list, runs collapsed.
std::string rank_ranges(const std::vector<std::int32_t>& ranks);

}  // namespace torsim::replay
