#include "topologies/switched.hpp"

#include <algorithm>
#include <cmath>

namespace torsim::topo {

namespace {

constexpr ParamSpec kFatTreeSpecs[] = {
    {"type", ParamKind::text, kRequired, "", "", "", "fat_tree", "-"},
    {"leaves", ParamKind::integer, kRequired, "", "1", "4096", "leaf switches per rail", "preset"},
    {"nodes_per_leaf", ParamKind::integer, kRequired, "", "1", "1024", "nodes attached to each leaf", "preset"},
    {"oversubscription", ParamKind::number, "1", "", "1", "64",
     "nodes per leaf over uplinks per leaf; each leaf has ceil(nodes_per_leaf / oversubscription) uplinks, one to "
     "each spine", "preset"},
    {"rails", ParamKind::integer, "1", "", "1", "2", "independent copies of the fabric; a node has a NIC on each",
     "preset"},
    {"link_bandwidth", ParamKind::rate, kRequired, "GB/s", "1MB/s", "10000GB/s",
     "switch-to-switch link bandwidth per direction", "preset"},
    {"link_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms", "traversal latency of one switch", "preset"},
};
constexpr ParamSpec kCrossbarSpecs[] = {
    {"type", ParamKind::text, kRequired, "", "", "", "crossbar", "-"},
    {"nodes", ParamKind::integer, kRequired, "", "1", "65536", "ports of the switch (one node each)", "preset"},
    {"link_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms", "traversal latency of the switch", "preset"},
};

}  // namespace

const ParamTable kFatTreeParams{"machine.topology (type: fat_tree)", "Two-level leaf/spine fat tree, 1 or 2 rails.",
                                kFatTreeSpecs};
const ParamTable kCrossbarParams{"machine.topology (type: crossbar)",
                                 "One switch; port bandwidth is the node's injection/ejection bandwidth.",
                                 kCrossbarSpecs};

// ---- Crossbar

Crossbar::Crossbar(int nodes, Time switch_latency, const NodeLinks& node_links) : switch_latency_(switch_latency) {
  init_graph(1, nodes);
  add_node_links(node_links);
  for (NodeId n = 0; n < nodes; ++n) links_[static_cast<std::size_t>(injection_link(n))].latency = switch_latency;
}

void Crossbar::route(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  out.clear();
  if (src == dst) return;
  out.push_back(injection_link(src));
  out.push_back(ejection_link(dst));
}

Summary Crossbar::summary() const {
  Summary s;
  s.nodes = node_count_;
  s.routers = 1;
  const Rate port = std::min(link(injection_link(0)).bandwidth, link(ejection_link(0)).bandwidth);
  s.bisection_bandwidth = static_cast<Rate>(node_count_ / 2) * port;
  return s;
}

nlohmann::json Crossbar::describe() const {
  return {{"type", "crossbar"}, {"nodes", node_count_}, {"switch_latency_ps", switch_latency_}};
}

// ---- Fat tree

FatTree::FatTree(const FatTreeShape& shape, const NodeLinks& node_links) : shape_(shape) {
  init_graph(shape.rails * (shape.leaves + shape.spines), shape.leaves * shape.nodes_per_leaf);
  for (int rail = 0; rail < shape.rails; ++rail) add_rail_links(rail);
  add_rail_node_links(node_links);
}

void FatTree::add_rail_links(int rail) {
  const auto& s = shape_;
  up_base_.push_back(link_count());
  for (int leaf = 0; leaf < s.leaves; ++leaf)
    for (int spine = 0; spine < s.spines; ++spine)
      add_link({leaf_router(rail, leaf), spine_router(rail, spine), s.bandwidth, s.latency, LinkKind::network, 1, +1,
                static_cast<std::uint8_t>(rail)});
  down_base_.push_back(link_count());
  for (int spine = 0; spine < s.spines; ++spine)
    for (int leaf = 0; leaf < s.leaves; ++leaf)
      add_link({spine_router(rail, spine), leaf_router(rail, leaf), s.bandwidth, s.latency, LinkKind::network, 1, -1,
                static_cast<std::uint8_t>(rail)});
}

// One injection and one ejection link per node and rail: injection links first (rail-major),
// then ejection links, so rail 0's are where the base class expects them.
void FatTree::add_rail_node_links(const NodeLinks& node_links) {
  injection_base_ = link_count();
  for (int rail = 0; rail < shape_.rails; ++rail)
    for (NodeId n = 0; n < node_count_; ++n)
      add_link({router_count_ + n, leaf_router(rail, leaf_of(n)), node_links.injection_bandwidth, shape_.latency,
                LinkKind::injection, -1, 0, static_cast<std::uint8_t>(rail)});
  ejection_base_ = link_count();
  for (int rail = 0; rail < shape_.rails; ++rail)
    for (NodeId n = 0; n < node_count_; ++n)
      add_link({leaf_router(rail, leaf_of(n)), router_count_ + n, node_links.ejection_bandwidth, 0, LinkKind::ejection,
                -1, 0, static_cast<std::uint8_t>(rail)});
}

void FatTree::route(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  out.clear();
  if (src == dst) return;
  const int rail = rail_of(src, dst);
  out.push_back(injection_link(src, rail));
  if (leaf_of(src) != leaf_of(dst)) {
    const int spine = dst % shape_.spines;
    out.push_back(up_link(rail, leaf_of(src), spine));
    out.push_back(down_link(rail, spine, leaf_of(dst)));
  }
  out.push_back(ejection_link(dst, rail));
}

// Deterministic: up to the spine the destination leaf's index selects, then down.
void FatTree::next_hops(RouterId at, RouterId dst, std::vector<LinkId>& out) const {
  out.clear();
  if (at == dst) return;
  const int per_rail = shape_.leaves + shape_.spines;
  const int rail = at / per_rail;
  const int position = at % per_rail;
  const int dst_leaf = dst % per_rail;
  if (position < shape_.leaves) out.push_back(up_link(rail, position, dst_leaf % shape_.spines));
  else out.push_back(down_link(rail, position - shape_.leaves, dst_leaf));
}

Summary FatTree::summary() const {
  Summary s;
  const auto& f = shape_;
  s.nodes = node_count_;
  s.routers = router_count_;
  s.network_links = std::int64_t{2} * f.rails * f.leaves * f.spines;
  s.diameter = f.leaves > 1 ? 2 : 0;
  const double pairs = static_cast<double>(node_count_) * (node_count_ - 1);
  const double same_leaf = static_cast<double>(f.leaves) * f.nodes_per_leaf * (f.nodes_per_leaf - 1);
  s.average_hops = pairs > 0 ? 2.0 * (pairs - same_leaf) / pairs : 0.0;
  // Half the leaves talk to the other half through their uplinks, unless the nodes' own
  // links are narrower.
  const Rate injection = std::min(link(injection_link(0, 0)).bandwidth, link(ejection_link(0, 0)).bandwidth);
  const Rate uplinks = static_cast<Rate>(f.leaves / 2) * f.spines * f.bandwidth;
  const Rate node_side = static_cast<Rate>(node_count_ / 2) * injection;
  s.bisection_bandwidth = f.leaves > 1 ? f.rails * std::min(uplinks, node_side) : f.rails * node_side;
  return s;
}

std::string FatTree::node_label(NodeId n) const {
  return "leaf " + std::to_string(leaf_of(n)) + "/port " + std::to_string(n % shape_.nodes_per_leaf);
}

nlohmann::json FatTree::describe() const {
  const auto& f = shape_;
  return {{"type", "fat_tree"}, {"leaves", f.leaves}, {"nodes_per_leaf", f.nodes_per_leaf}, {"spines", f.spines},
          {"rails", f.rails}, {"oversubscription", f.oversubscription}, {"link_bandwidth_Bps", f.bandwidth},
          {"link_latency_ps", f.latency}};
}

std::unique_ptr<Topology> make_fat_tree(const ParamReader& r, const NodeLinks& node_links) {
  FatTreeShape s;
  s.leaves = static_cast<int>(r.integer("leaves"));
  s.nodes_per_leaf = static_cast<int>(r.integer("nodes_per_leaf"));
  s.oversubscription = r.number("oversubscription");
  s.spines = static_cast<int>(std::ceil(s.nodes_per_leaf / s.oversubscription));
  s.rails = static_cast<int>(r.integer("rails"));
  s.bandwidth = r.rate("link_bandwidth");
  s.latency = r.time("link_latency");
  if (std::int64_t{s.leaves} * s.nodes_per_leaf > (1 << 22))
    r.where().fail("at most 4,194,304 nodes (2^22) are supported");
  return std::make_unique<FatTree>(s, node_links);
}

std::unique_ptr<Topology> make_crossbar(const ParamReader& r, const NodeLinks& node_links) {
  return std::make_unique<Crossbar>(static_cast<int>(r.integer("nodes")), r.time("link_latency"), node_links);
}

}  // namespace torsim::topo
