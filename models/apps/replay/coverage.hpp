// What the replay does with each MPI call type: modelled (the call's mechanism runs over the
// messaging layer), approximated (replayed in a simpler way, said how), or unsupported (its
// recorded duration passes, and the run counts it). `torsim trace-info` prints this table for
// the calls a trace holds; docs/replay.md lists it whole.
#pragma once

#include <string_view>

#include "models/apps/replay/trace.hpp"

namespace torsim::replay {

enum class Support : std::uint8_t { modelled, approximated, unsupported };
/// "modelled", "approximated", "unsupported".
std::string_view support_name(Support support);

struct Coverage {
  Support support;
  /// How the replay runs the call: one line, for a user deciding whether to trust a replay.
  std::string_view how;
};

/// The replay's coverage of one call type.
const Coverage& coverage(CallType type);

}  // namespace torsim::replay
