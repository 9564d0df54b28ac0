// Brute-force router distances over a topology's Boost graph, for checking routes and summaries.
#pragma once

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <vector>

#include "topologies/topology.hpp"

namespace torsim::test {

/// Keeps the router-to-router links: injection and ejection links are not paths between routers.
struct NetworkLinksOnly {
  const topo::Topology* t = nullptr;
  bool operator()(const topo::Graph::edge_descriptor& e) const {
    return t->link(t->graph()[e].link).kind == topo::LinkKind::network;
  }
};

/// Router-to-router distances from `from` over the graph's network links (-1: unreachable).
inline std::vector<int> bfs_distances(const topo::Topology& t, topo::RouterId from) {
  const boost::filtered_graph<topo::Graph, NetworkLinksOnly> network(t.graph(), NetworkLinksOnly{&t});
  std::vector<int> distance(boost::num_vertices(t.graph()), -1);
  distance[static_cast<std::size_t>(from)] = 0;
  boost::breadth_first_search(
      network, static_cast<std::size_t>(from),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(distance.data(), boost::on_tree_edge()))));
  return distance;
}

struct HopFigures {
  int diameter = 0;
  double average = 0;
};

/// Diameter and mean router hops over ordered pairs of distinct nodes, by BFS from every node's
/// router (on a multi-rail fabric, rail 0: every rail is a copy).
inline HopFigures brute_force_hops(const topo::Topology& t) {
  HopFigures f;
  double sum = 0;
  for (topo::NodeId a = 0; a < t.node_count(); ++a) {
    const auto distance = bfs_distances(t, t.router_of(a));
    for (topo::NodeId b = 0; b < t.node_count(); ++b) {
      if (a == b) continue;
      const int d = distance[static_cast<std::size_t>(t.router_of(b))];
      f.diameter = std::max(f.diameter, d);
      sum += d;
    }
  }
  f.average = t.node_count() > 1 ? sum / (static_cast<double>(t.node_count()) * (t.node_count() - 1)) : 0.0;
  return f;
}

}  // namespace torsim::test
