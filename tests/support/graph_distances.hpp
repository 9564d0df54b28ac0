// Brute-force router distances over a topology's Boost graph, for checking routes and summaries.
#pragma once

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

}  // namespace torsim::test
