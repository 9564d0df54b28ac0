// Switched clusters: one crossbar, or a two-level leaf/spine fat tree with 1 or 2 rails.
//
// Fat tree routing is deterministic: rail (src + dst) % rails; within a leaf, up and straight
// down; across leaves, up to spine dst % spines ("D-mod-k", dst the destination node) and
// down. A switch's traversal latency sits on the link entering it: node->leaf, leaf->spine
// and spine->leaf links carry link_latency, leaf->node links carry none.
//
// Bisection: the cut puts the first leaves / 2 leaves (and their nodes) on one side. With one
// leaf there is nothing to split, and the cut halves the leaf's nodes as on a crossbar.
#pragma once

#include "topologies/topology.hpp"

namespace torsim::topo {

extern const ParamTable kFatTreeParams;
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

struct FatTreeShape {
  int leaves = 1;
  int nodes_per_leaf = 1;
  int spines = 1;  // per rail: ceil(nodes_per_leaf / oversubscription)
  int rails = 1;
  double oversubscription = 1;
  Rate bandwidth = 0;
  Time latency = 0;
};

class FatTree final : public Topology {
 public:
  FatTree(const FatTreeShape& shape, const NodeLinks& node_links);
  std::string_view type() const override { return "fat_tree"; }
  RouterId router_of(NodeId n) const override { return leaf_router(0, leaf_of(n)); }
  RouterId rail_router(NodeId n, int rail) const override { return leaf_router(rail, leaf_of(n)); }
  void route(NodeId src, NodeId dst, std::vector<LinkId>& out) const override;
  void next_hops(RouterId at, RouterId dst, std::vector<LinkId>& out) const override;
  int hops(NodeId a, NodeId b) const override { return leaf_of(a) == leaf_of(b) ? 0 : 2; }
  Summary summary() const override;
  std::string node_label(NodeId n) const override;
  nlohmann::json describe() const override;

  /// The rail a message from `src` to `dst` takes: (src + dst) % rails.
  int rail_of(NodeId src, NodeId dst) const { return (src + dst) % shape_.rails; }
  const FatTreeShape& shape() const { return shape_; }

 private:
  int leaf_of(NodeId n) const { return n / shape_.nodes_per_leaf; }
  // Routers rail by rail; within a rail, the leaves then the spines.
  RouterId leaf_router(int rail, int leaf) const { return rail * (shape_.leaves + shape_.spines) + leaf; }
  RouterId spine_router(int rail, int spine) const { return leaf_router(rail, shape_.leaves) + spine; }
  LinkId up_link(int rail, int leaf, int spine) const { return up_base_[rail] + leaf * shape_.spines + spine; }
  LinkId down_link(int rail, int spine, int leaf) const { return down_base_[rail] + spine * shape_.leaves + leaf; }
  void add_rail_links(int rail);

  FatTreeShape shape_;
  std::vector<LinkId> up_base_, down_base_;
};

std::unique_ptr<Topology> make_fat_tree(const ParamReader& r, const NodeLinks& node_links);
std::unique_ptr<Topology> make_crossbar(const ParamReader& r, const NodeLinks& node_links);

}  // namespace torsim::topo
