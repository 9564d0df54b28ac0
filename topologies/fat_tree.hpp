// Fat trees of crossbar switches, as InfiniBand clusters are built: two levels (leaf/spine; a
// 648-port director is itself 36 leaf and 18 spine crossbars of 36 ports) or three, with 1 or
// 2 rails (independent copies of the fabric, a node has an HCA on each).
//
// Shape: a parallel-ports generalized fat tree, PGFT(h; m; w; p) (Öhring et al., "On
// generalized fat trees", IPPS 1995, extended with parallel links by Zahavi, JPDC 2012).
// Switch level l = 1..h (leaves are level 1); a level-l switch has m_l children below it, and
// a level-(l-1) element has w_l parents above it with p_l parallel links to each (nodes have
// one leaf per rail: w_1 = p_1 = 1). Node n is digits a_1..a_h of n in the mixed radix
// m_1..m_h (a_1 least significant); a level-l switch is (a_{l+1}..a_h; b_2..b_l), its index
// A * W_l + B with A = n / M_l, M_l = m_1...m_l, and B in [0, W_l), W_l = w_2...w_l. Its
// parent number b (0..w_{l+1}-1) is (A / m_{l+1}, B + W_l * b).
//
// Routing, as subnet managers compute it (one path per destination, LMC 0), chosen by
// machine.topology.routing:
//  - dmodk: up port floor(n / W_l) mod (w_{l+1} p_{l+1}) at level l towards node n (Zahavi
//    2012; OpenSM's ftree engine orders destinations by their place in the tree to the same
//    end): no two flows of a shift permutation share a link on a full tree;
//  - minhop: OpenSM's default engine: destinations taken in LID order, and at every switch
//    the minimal-hop output port with the fewest destinations already assigned, ties to the
//    lowest port (opensm(8), "Routing Algorithms", OpenSM 3.3.23);
//  - random: a uniformly random minimal-hop port per switch and destination (random static
//    routing in k-ary n-trees: Rodriguez et al., ICS 2009);
//  - adaptive: per packet, the least loaded of the minimal up ports (next_hops(); the packet
//    model chooses), down ports as dmodk. route() gives the dmodk path.
// Ports of a switch: down ports first (child c, lane j as c * p_l + j), then up ports q =
// b + w * j (parent b, lane j), so that a search in port order spreads over parents first.
//
// Rails: a message takes rail (src + dst) % rails unless the caller names one
// (route_on_rail). Each rail has its own tables (minhop and random draw per rail). A switch's
// traversal latency sits on the link entering it; links into nodes carry none.
#pragma once

#include <cstdint>
#include <vector>

#include "topologies/topology.hpp"

namespace torsim::topo {

extern const ParamTable kFatTreeParams;
extern const ParamTable kFatTreeLevelParams;

/// One switch level of a fat tree, leaves first.
// Both read by make_fat_tree from their declarations in fat_tree.cpp, which hold the defaults.
struct FatTreeLevel {
  int children = 0;          // m_l: elements below a switch of this level (nodes for leaves)
  int parents = 0;           // w_{l+1}: switches above each switch of this level (0 at the top)
  int links_per_parent = 0;  // p_{l+1}: parallel links to each of them
};

enum class FatTreeRouting : std::uint8_t { dmodk, minhop, random, adaptive };

struct FatTreeShape {
  std::vector<FatTreeLevel> levels;  // 2 or 3
  int rails = 0;
  Rate bandwidth = 0;
  Time latency = 0;
  FatTreeRouting routing = FatTreeRouting::dmodk;
  bool random_lid_order = false;   // minhop: LIDs in port GUID order, uncorrelated with the node ids
  std::uint64_t routing_seed = 0;  // draws of random routing and of the LID order
};

class FatTree final : public Topology {
 public:
  FatTree(const FatTreeShape& shape, const NodeLinks& node_links);
  std::string_view type() const override { return "fat_tree"; }
  RouterId router_of(NodeId n) const override { return leaf_router(0, leaf_of(n)); }
  RouterId rail_router(NodeId n, int rail) const override { return leaf_router(rail, leaf_of(n)); }
  void route(NodeId src, NodeId dst, std::vector<LinkId>& out) const override;
  void route_on_rail(NodeId src, NodeId dst, int rail, std::vector<LinkId>& out) const override;
  /// Towards a leaf switch `dst` of the same rail: adaptive routing's every minimal port; the
  /// static engines' one port (towards the leaf's first node).
  void next_hops(RouterId at, RouterId dst, std::vector<LinkId>& out) const override;
  Routing routing() const override {
    return shape_.routing == FatTreeRouting::adaptive ? Routing::minimal_adaptive : Routing::dimension_order;
  }
  int hops(NodeId a, NodeId b) const override { return 2 * (turning_level(a, b) - 1); }
  Summary summary() const override;
  std::string node_label(NodeId n) const override;
  nlohmann::json describe() const override;

  /// The rail a message from `src` to `dst` takes by default: (src + dst) % rails.
  int rail_of(NodeId src, NodeId dst) const { return (src + dst) % shape_.rails; }
  const FatTreeShape& shape() const { return shape_; }
  int levels() const { return static_cast<int>(shape_.levels.size()); }
  int leaves() const { return switches_[1]; }
  int nodes_per_leaf() const { return m_[1]; }
  /// Switches of level l (1 = leaves) per rail.
  int switches_at(int level) const { return switches_[static_cast<std::size_t>(level)]; }

 private:
  struct Switch {
    int level;
    int index;  // within the level and rail: A * W_l + B
  };
  int leaf_of(NodeId n) const { return n / m_[1]; }
  RouterId leaf_router(int rail, int leaf) const { return rail * per_rail_ + leaf; }
  RouterId router(int rail, Switch s) const {
    return rail * per_rail_ + first_[static_cast<std::size_t>(s.level)] + s.index;
  }
  Switch switch_of(RouterId r) const;
  /// Lowest level whose switches are ancestors of both nodes (1: the same leaf).
  int turning_level(NodeId a, NodeId b) const;
  bool is_ancestor(Switch s, NodeId n) const {
    return s.index / W_[static_cast<std::size_t>(s.level)] == n / M_[static_cast<std::size_t>(s.level)];
  }
  int up_ports(int level) const { return level < levels() ? w_[level + 1] * p_[level + 1] : 0; }
  int ports(int level) const { return m_[level] * p_[level] + up_ports(level); }
  /// Port `port` of switch `s` on `rail` as a link (down ports first, then up ports).
  LinkId port_link(int rail, Switch s, int port) const;
  /// The dmodk port at `s` towards node `n`.
  int dmodk_port(Switch s, NodeId n) const;
  /// Minimal-hop ports of `s` towards node `n`: [first, first + count).
  struct Candidates {
    int first, count;
  };
  Candidates minimal_ports(Switch s, NodeId n) const;
  /// The port a static route takes at `s` towards `n` on `rail`.
  int route_port(int rail, Switch s, NodeId n) const;
  void add_rail_links(int rail);
  void build_tables();
  void fill_table(int rail);

  FatTreeShape shape_;
  // Per level 0..h (index 0: nodes): m_l, w_l, p_l, M_l = m_1..m_l, W_l = w_2..w_l, switches
  // of the level per rail, and the first router of the level within a rail.
  std::vector<int> m_, w_, p_, switches_, first_;
  std::vector<std::int64_t> M_, W_;
  int per_rail_ = 0;                         // switches per rail
  std::vector<LinkId> up_base_, down_base_;  // per rail and level: first up / down link
  // minhop and random: per rail, switch (within the rail) and destination node, the port.
  std::vector<std::vector<std::uint16_t>> tables_;
};

std::unique_ptr<Topology> make_fat_tree(const ParamReader& r, const NodeLinks& node_links);

}  // namespace torsim::topo
