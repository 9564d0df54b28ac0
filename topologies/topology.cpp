#include "topologies/topology.hpp"

namespace torsim::topo {

void Topology::init_graph(std::int32_t routers, std::int32_t nodes) {
  router_count_ = routers;
  node_count_ = nodes;
  graph_ = Graph(static_cast<std::size_t>(routers) + static_cast<std::size_t>(nodes));
}

std::vector<LinkId> Topology::network_links_from(RouterId r) const {
  std::vector<LinkId> out;
  for (const auto& edge : boost::make_iterator_range(boost::out_edges(static_cast<std::size_t>(r), graph_))) {
    const LinkId id = graph_[edge].link;
    if (link(id).kind == LinkKind::network && link(id).lane == 0) out.push_back(id);
  }
  return out;
}

LinkId Topology::add_link(const LinkInfo& info) {
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(info);
  boost::add_edge(static_cast<std::size_t>(info.from), static_cast<std::size_t>(info.to), EdgeProps{id}, graph_);
  return id;
}

void Topology::add_node_links(const NodeLinks& node_links, Time injection_latency) {
  injection_base_ = link_count();
  for (int rail = 0; rail < rails_; ++rail)
    for (NodeId n = 0; n < node_count_; ++n)
      add_link({router_count_ + n, rail_router(n, rail), node_links.injection_bandwidth, injection_latency,
                LinkKind::injection, -1, 0, static_cast<std::uint8_t>(rail)});
  ejection_base_ = link_count();
  for (int rail = 0; rail < rails_; ++rail)
    for (NodeId n = 0; n < node_count_; ++n)
      add_link({rail_router(n, rail), router_count_ + n, node_links.ejection_bandwidth, 0, LinkKind::ejection, -1, 0,
                static_cast<std::uint8_t>(rail)});
}

}  // namespace torsim::topo
