// The simulated job: which node and core each rank runs on, the ranks' cores, and the shared
// simulation objects the NIC models and messaging layers work with.
#pragma once

#include <vector>

#include "models/network/network_model.hpp"
#include "models/node/cores.hpp"
#include "sim/core/random.hpp"

namespace torsim::node {

using topo::NodeId;

/// Rank placement: the nodes allocated to the job and how ranks map onto them.
struct Placement {
  std::vector<NodeId> nodes;  // allocated nodes, in allocation order
  int ranks_per_node = 0;     // parse_placement: kPlacementParams' default, 1
  bool round_robin = false;   // false: block (ranks 0..k-1 on the first node)

  int size() const { return static_cast<int>(nodes.size()) * ranks_per_node; }
  NodeId node_of(Rank r) const {
    const auto n = static_cast<Rank>(nodes.size());
    return nodes[static_cast<std::size_t>(round_robin ? r % n : r / ranks_per_node)];
  }
  /// Index of the rank among the ranks on its node (0..ranks_per_node-1).
  int local_index(Rank r) const {
    const auto n = static_cast<Rank>(nodes.size());
    return round_robin ? r / n : r % ranks_per_node;
  }
  /// Ranks sharing the core rank r runs on: a node's ranks go to its cores in turn (local
  /// index modulo cores), so with more ranks than cores they share them as hardware threads.
  int ranks_on_core(Rank r, int cores) const {
    const int core = local_index(r) % cores;
    return ranks_per_node / cores + (core < ranks_per_node % cores ? 1 : 0);
  }
};

extern const ParamTable kPlacementParams;
/// Parses the scenario's "placement" object against the machine.
Placement parse_placement(const Json& spec, const Where& where, const Machine& machine);

/// Built in place and never moved: its cores refer to its placement.
struct Job {
  Job(Kernel& kernel_, const Machine& machine_, net::NetworkModel& network_, Placement placement_, std::uint64_t seed_)
      : kernel(kernel_),
        machine(machine_),
        network(network_),
        placement(std::move(placement_)),
        seed(seed_),
        cores(kernel_, machine_.node, placement) {}
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  Kernel& kernel;
  const Machine& machine;
  net::NetworkModel& network;
  const Placement placement;
  std::uint64_t seed;
  Cores cores;

  int size() const { return placement.size(); }
  NodeId node_of(Rank r) const { return placement.node_of(r); }
  /// An independent random stream for one use (e.g. a workload's traffic).
  Rng rng(std::uint64_t stream) const { return Rng(seed, stream); }
};

}  // namespace torsim::node
