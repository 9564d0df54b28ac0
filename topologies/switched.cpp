#include "topologies/switched.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

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
  add_node_links(node_links, switch_latency);  // no network links: the injection link enters the switch
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

namespace {

// One direction across the cut that puts the first leaves / 2 leaves on one side: that side's
// nodes send through their own links, their leaves' uplinks and the far leaves' downlinks, the
// narrowest of which (per leaf of the smaller side) limits the flow. Every rail adds a copy.
// 128 bits so that parsing can reject shapes whose figure does not fit a Rate.
Int128 fat_tree_bisection(const FatTreeShape& f, const NodeLinks& node_links) {
  const Int128 port = std::min(node_links.injection_bandwidth, node_links.ejection_bandwidth);
  if (f.leaves == 1) return Int128{f.rails} * (f.nodes_per_leaf / 2) * port;  // split the one leaf's nodes
  const Int128 per_leaf = std::min(Int128{f.nodes_per_leaf} * port, Int128{f.spines} * f.bandwidth);
  return Int128{f.rails} * (f.leaves / 2) * per_leaf;
}

}  // namespace

FatTree::FatTree(const FatTreeShape& shape, const NodeLinks& node_links) : shape_(shape) {
  rails_ = shape.rails;
  init_graph(shape.rails * (shape.leaves + shape.spines), shape.leaves * shape.nodes_per_leaf);
  for (int rail = 0; rail < shape.rails; ++rail) add_rail_links(rail);
  add_node_links(node_links, shape.latency);  // the node->leaf link enters the leaf switch
}

// Uplinks leaf-major then downlinks spine-major, so up_link() and down_link() are arithmetic.
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

// Hop by hop between routers of one rail (rails share no switch, so there is no path between
// them). A router-level query does not know the destination node, so from a leaf it climbs to
// spine (destination leaf % spines); route() uses the node (D-mod-k) instead. Spine to spine
// goes down through leaf 0.
void FatTree::next_hops(RouterId at, RouterId dst, std::vector<LinkId>& out) const {
  out.clear();
  if (at == dst) return;
  const int per_rail = shape_.leaves + shape_.spines;
  const int rail = at / per_rail;
  if (dst / per_rail != rail) throw std::logic_error("fat tree: no path between routers on different rails");
  const int from = at % per_rail;
  const int to = dst % per_rail;
  const bool to_leaf = to < shape_.leaves;
  if (from < shape_.leaves) out.push_back(up_link(rail, from, to_leaf ? to % shape_.spines : to - shape_.leaves));
  else out.push_back(down_link(rail, from - shape_.leaves, to_leaf ? to : 0));
}

Summary FatTree::summary() const {
  Summary s;
  const auto& f = shape_;
  s.nodes = node_count_;
  s.routers = router_count_;
  s.network_links = std::int64_t{2} * f.rails * f.leaves * f.spines;
  s.diameter = f.leaves > 1 ? 2 : 0;
  // Ordered pairs of distinct nodes; those on one leaf take 0 hops, all others 2.
  const double pairs = static_cast<double>(node_count_) * (node_count_ - 1);
  const double same_leaf = static_cast<double>(f.leaves) * f.nodes_per_leaf * (f.nodes_per_leaf - 1);
  s.average_hops = pairs > 0 ? 2.0 * (pairs - same_leaf) / pairs : 0.0;
  const NodeLinks ports{link(injection_link(0)).bandwidth, link(ejection_link(0)).bandwidth};
  s.bisection_bandwidth = static_cast<Rate>(fat_tree_bisection(f, ports));
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

namespace {

// ceil(nodes_per_leaf / oversubscription) without floating-point noise pushing an exact
// quotient up: 21 / 1.4 is 15.000000000000002 in doubles, and 15 uplinks is what is meant.
int uplinks_per_leaf(int nodes_per_leaf, double oversubscription) {
  return static_cast<int>(std::ceil(nodes_per_leaf / oversubscription - 1e-9));
}

}  // namespace

std::unique_ptr<Topology> make_fat_tree(const ParamReader& r, const NodeLinks& node_links) {
  FatTreeShape s;
  s.leaves = static_cast<int>(r.integer("leaves"));
  s.nodes_per_leaf = static_cast<int>(r.integer("nodes_per_leaf"));
  s.oversubscription = r.number("oversubscription");
  s.spines = uplinks_per_leaf(s.nodes_per_leaf, s.oversubscription);
  s.rails = static_cast<int>(r.integer("rails"));
  s.bandwidth = r.rate("link_bandwidth");
  s.latency = r.time("link_latency");
  if (std::int64_t{s.leaves} * s.nodes_per_leaf > (1 << 22))
    r.where().fail("at most 4,194,304 nodes (2^22) are supported");
  if (fat_tree_bisection(s, node_links) > INT64_MAX)
    r.where().fail("the bisection bandwidth of this fat tree does not fit a 64-bit rate (9.2e18 B/s); use fewer "
                   "leaves or a lower link_bandwidth");
  return std::make_unique<FatTree>(s, node_links);
}

std::unique_ptr<Topology> make_crossbar(const ParamReader& r, const NodeLinks& node_links) {
  return std::make_unique<Crossbar>(static_cast<int>(r.integer("nodes")), r.time("link_latency"), node_links);
}

}  // namespace torsim::topo
