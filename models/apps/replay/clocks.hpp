// Ranks on different hosts record with different clocks. A trace of AMG on two Hopper nodes,
// for one, has rank 24 finish waiting for rank 15's message 40 ms, by its own clock, before
// rank 15 sent it by rank 15's. Replaying each rank's start at its recorded offset would
// replay that skew as 40 ms of waiting that never happened.
//
// align_clocks() finds one offset per host from the trace's own messages: the smallest
// corrections (Lamport's clock condition) under which every message a receive completed on
// another host was sent before it completed: offset[receiver's host] - offset[sender's host]
// >= send start - receive completion, for every pair of hosts, solved as difference
// constraints (Bellman-Ford). A message is paired with its receive by MPI's non-overtaking
// rule: the k-th send from s to d with tag t on the world communicator meets the k-th receive
// d posted for s and t. Receives with a wildcard source or tag, and communicators other than
// the world, are left out (their pairing depends on timing).
#pragma once

#include <vector>

#include "models/apps/replay/trace.hpp"

namespace torsim::replay {

struct ClockAlignment {
  /// Per rank: added to its recorded times to put them on a common clock.
  std::vector<Time> offset;
  /// The earliest first call on that clock (0 without offsets).
  Time origin = 0;
  /// Messages between hosts that the offsets were found from.
  std::int64_t messages = 0;
  /// False when no offsets satisfy every message (clocks that drifted apart during the run):
  /// the offsets are then all 0.
  bool consistent = true;
};

/// The offsets of `trace`'s ranks; all 0 for a trace without times or with one host.
ClockAlignment align_clocks(const Trace& trace);

}  // namespace torsim::replay
