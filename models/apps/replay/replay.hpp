// The `trace` workload's placement of the trace's ranks on the machine.
#pragma once

#include <optional>

#include "models/apps/replay/trace.hpp"
#include "models/messaging/messaging.hpp"

namespace torsim::replay {

/// The job's placement for a trace of trace.ranks() ranks: with {"from_trace": true}, on a
/// torus or mesh machine and a trace with mesh coordinates for every rank (DUMPI), the nodes
/// of the routers at those coordinates (docs/replay.md says which of a router's nodes);
/// otherwise the nodes the trace's host names group its ranks into (node 0 for the first host
/// named, 1 for the next, ...); with no placement, the ranks fill the first nodes' cores in order; otherwise
/// the scenario's placement, which must hold every rank. Input errors name `where` (the
/// placement) or `trace_where` (the trace's path) when the machine is too small.
rt::Placement trace_placement(const Trace& trace, const Json& spec, const Where& where, const Where& trace_where,
                              const Machine& machine);

}  // namespace torsim::replay
