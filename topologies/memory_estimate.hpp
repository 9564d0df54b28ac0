// Whether a machine fits in memory, checked before it is built: a torus at the router limit
// needs more memory than most computers have, and died of bad_alloc after building for a while.
#pragma once

#include <cstdint>
#include <string>

#include "sim/config/params.hpp"

namespace torsim::topo {

/// Memory a run on a machine of `network_links` directed network links and `nodes` nodes needs,
/// in bytes: about 400 B per network link and 800 B per node (its two links, graph vertex and
/// the network model's state) over a 40 MB base. Measured: peak RSS of `torsim run` of a
/// ping-pong on the packet model over 3-D tori of 32^3, 48^3 and 64^3 routers, concentration 1
/// and 2 (140, 166, 377, 840 and 1044 MB), and over a two-level fat tree of 524,288 nodes under
/// 512 spines (797 MB; estimated 880 MB); rounded up, so an estimate, not a bound. Forwarding
/// tables (minhop, random) are bounded separately, by the fat tree.
std::int64_t estimated_run_bytes(std::int64_t network_links, std::int64_t nodes);

/// Fails at `where`, with the estimate, when a machine's estimated_run_bytes exceeds the memory
/// this process may use: the computer's physical memory, or its address-space limit
/// (ulimit -v) when lower.
void check_fits_in_memory(const std::string& what, std::int64_t network_links, std::int64_t nodes, const Where& where);

}  // namespace torsim::topo
