// What a route costs on an idle network: the sum of its links' latencies and its slowest link.
// NIC models and messaging layers add their own fixed costs (the NIC's latency, PCIe) to the
// latency; a train of wire bytes takes latency + bytes / bottleneck end to end.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "topologies/topology.hpp"

namespace torsim::net {

struct RouteCost {
  Time latency = 0;                                    // sum of the links' latencies
  Rate bottleneck = std::numeric_limits<Rate>::max();  // the slowest link's bandwidth

  void add(const topo::LinkInfo& link) {
    latency += link.latency;
    bottleneck = std::min(bottleneck, link.bandwidth);
  }
};

inline RouteCost route_cost(const topo::Topology& topology, const std::vector<topo::LinkId>& route) {
  RouteCost cost;
  for (const topo::LinkId l : route) cost.add(topology.link(l));
  return cost;
}

/// The cost of the deterministic route between two nodes (zero latency and no bottleneck
/// within a node: the route is empty).
inline RouteCost route_cost(const topo::Topology& topology, topo::NodeId from, topo::NodeId to) {
  std::vector<topo::LinkId> route;
  topology.route(from, to, route);
  return route_cost(topology, route);
}

}  // namespace torsim::net
