// A single crossbar switch (fat trees of crossbars: topologies/fat_tree.hpp).
#pragma once

#include "topologies/topology.hpp"

namespace torsim::topo {

extern const ParamTable kCrossbarParams;

class Crossbar final : public Topology {
 public:
  Crossbar(int nodes, Time switch_latency, const NodeLinks& node_links);
  std::string_view type() const override { return "crossbar"; }
  RouterId router_of(NodeId) const override { return 0; }
  void route(NodeId src, NodeId dst, std::vector<LinkId>& out) const override;
  void next_hops(RouterId, RouterId, std::vector<LinkId>& out) const override { out.clear(); }
  int hops(NodeId, NodeId) const override { return 0; }
  Summary summary() const override;
  std::string node_label(NodeId n) const override { return "port " + std::to_string(n); }
  nlohmann::json describe() const override;

 private:
  Time switch_latency_;
};

std::unique_ptr<Topology> make_crossbar(const ParamReader& r, const NodeLinks& node_links);

}  // namespace torsim::topo
