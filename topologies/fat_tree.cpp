#include "topologies/fat_tree.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <numeric>
#include <stdexcept>

#include "sim/config/fields.hpp"
#include "sim/core/random.hpp"
#include "topologies/memory_estimate.hpp"

namespace torsim::topo {

namespace {

constexpr ChoiceName<FatTreeRouting> kRoutingNames[] = {{"dmodk", FatTreeRouting::dmodk},
                                                        {"minhop", FatTreeRouting::minhop},
                                                        {"random", FatTreeRouting::random},
                                                        {"adaptive", FatTreeRouting::adaptive}};
constexpr ChoiceName<bool> kLidOrderNames[] = {{"node", false}, {"random", true}};

// The keys that give the levels: 'levels' (read by explicit_levels), or the two-level shorthand,
// read only without it (else oversubscription's default would be noted as a parameter the run read).
struct LeafSpineKeys {
  int leaves = 0;
  int nodes_per_leaf = 0;
  double oversubscription = 0;
  int spines = 0;  // 0: not given, one per uplink of a leaf
};
using K = LeafSpineKeys;
constexpr Field<K> kLevelKeyFields[] = {
    unbound<K>({"type", ParamKind::text, kRequired, "", "", "", "fat_tree", "-"}),
    unbound<K>({"levels", ParamKind::object_list, kUnset, "", "", "",
                "switch levels, leaves first, two or three; see "
                "topology.levels. Instead of leaves, nodes_per_leaf, oversubscription and spines",
                "-"}),
    bind<&K::leaves>(
        {"leaves", ParamKind::integer, kUnset, "", "1", "4096", "leaf switches per rail (a two-level tree)", "preset"}),
    bind<&K::nodes_per_leaf>({"nodes_per_leaf", ParamKind::integer, kUnset, "", "1", "1024",
                              "nodes attached to each leaf (a two-level tree)", "preset"}),
    bind<&K::oversubscription>(
        {"oversubscription", ParamKind::number, "1", "", "1", "64",
         "nodes per leaf over uplinks per leaf; each leaf has ceil(nodes_per_leaf / oversubscription) uplinks",
         "preset"}),
    bind<&K::spines>(
        {"spines", ParamKind::integer, kUnset, "", "1", "4096",
         "spine switches per rail (default: one per uplink of a leaf); a leaf's uplinks are spread evenly over them",
         "preset"}),
};

// The shape, and the crossbar's port count its switches are checked against.
struct FatTreeKeys : FatTreeShape {
  int switch_ports = 0;  // 0: not given, not checked
};
using S = FatTreeKeys;
constexpr Field<S> kFields[] = {
    bind<&S::switch_ports>({"switch_ports", ParamKind::integer, kUnset, "", "2", "1024",
                            "ports of the crossbar every switch is built from; when given, each switch's ports in use "
                            "are checked against it",
                            "[C] 36 for InfiniBand QDR and FDR switch ASICs (vendor switch descriptions)"}),
    bind<&FatTreeShape::rails, S>({"rails", ParamKind::integer, "1", "", "1", "2",
                                   "independent copies of the fabric; a node has an HCA on each", "preset"}),
    bind<&FatTreeShape::bandwidth, S>({"link_bandwidth", ParamKind::rate, kRequired, "GB/s", "1MB/s", "10000GB/s",
                                       "switch-to-switch link bandwidth per direction, wire bytes per second",
                                       "preset"}),
    bind<&FatTreeShape::latency, S>(
        {"link_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms", "traversal latency of one switch", "preset"}),
    bind_choice<&FatTreeShape::routing, kRoutingNames, S>(
        {"routing", ParamKind::choice, "dmodk", "", "", "",
         "dmodk: up port by destination modulo the up ports (OpenSM ftree's aim); minhop: OpenSM's default, minimal "
         "ports balanced by destinations already assigned, in LID order; random: a random minimal port per switch and "
         "destination; adaptive: per packet the least loaded minimal port",
         "preset", "dmodk|minhop|random|adaptive"}),
    bind_choice<&FatTreeShape::random_lid_order, kLidOrderNames, S>(
        {"lid_order", ParamKind::choice, "random", "", "", "",
         "order in which minhop takes the destinations: random (LIDs as a first sweep assigns them, in port GUID "
         "order, which has nothing to do with where nodes sit) or node (LIDs follow the node ids)",
         "assumption: OpenSM's LID manager assigns LIDs in port GUID order", "node|random"}),
    bind<&FatTreeShape::routing_seed, S>({"routing_seed", ParamKind::integer, "1", "", "0", "",
                                          "draws of random routing and of minhop's random LID "
                                          "order: the fabric's own, not the scenario's seed",
                                          "-"}),
};

// The table's rows: the keys that give the levels, then the rest.
constexpr auto table_rows() {
  const auto levels = specs_of(kLevelKeyFields);
  const auto rest = specs_of(kFields);
  std::array<ParamSpec, std::size(kLevelKeyFields) + std::size(kFields)> rows{};
  std::copy(rest.begin(), rest.end(), std::copy(levels.begin(), levels.end(), rows.begin()));
  return rows;
}
constexpr auto kSpecs = table_rows();
using L = FatTreeLevel;
constexpr Field<L> kLevelFields[] = {
    bind<&L::children>(
        {"children", ParamKind::integer, kRequired, "", "1", "1024",
         "elements below each switch of this level: nodes for a leaf, switches of the level below otherwise",
         "preset"}),
    bind<&L::parents>({"parents", ParamKind::integer, "0", "", "0", "1024",
                       "switches of the next level each switch of this level connects to (0 at the top level)",
                       "preset"}),
    bind<&L::links_per_parent>(
        {"links_per_parent", ParamKind::integer, "1", "", "1", "64", "parallel links to each of them", "preset"}),
};
constexpr auto kLevelSpecs = specs_of(kLevelFields);

constexpr std::int64_t kMaxNodes = std::int64_t{1} << 22;
constexpr std::int64_t kMaxTableBytes = std::int64_t{512} << 20;

}  // namespace

const ParamTable kFatTreeParams{"machine.topology (type: fat_tree)",
                                "Fat tree of crossbar switches, two or three levels, 1 or 2 rails.", kSpecs};
const ParamTable kFatTreeLevelParams{"machine.topology.levels[i] (fat_tree)",
                                     "One switch level of a fat tree, leaves first.", kLevelSpecs};

FatTree::FatTree(const FatTreeShape& shape, const NodeLinks& node_links) : shape_(shape) {
  const int h = levels();
  m_.assign(static_cast<std::size_t>(h) + 2, 1);
  w_.assign(static_cast<std::size_t>(h) + 2, 1);
  p_.assign(static_cast<std::size_t>(h) + 2, 1);
  for (int l = 1; l <= h; ++l) {
    const auto& level = shape.levels[static_cast<std::size_t>(l - 1)];
    m_[static_cast<std::size_t>(l)] = level.children;
    if (l < h) {
      w_[static_cast<std::size_t>(l) + 1] = level.parents;
      p_[static_cast<std::size_t>(l) + 1] = level.links_per_parent;
    }
  }
  M_.assign(static_cast<std::size_t>(h) + 1, 1);
  W_.assign(static_cast<std::size_t>(h) + 1, 1);
  for (int l = 1; l <= h; ++l) {
    M_[static_cast<std::size_t>(l)] = M_[static_cast<std::size_t>(l) - 1] * m_[static_cast<std::size_t>(l)];
    W_[static_cast<std::size_t>(l)] =
        W_[static_cast<std::size_t>(l) - 1] * (l > 1 ? w_[static_cast<std::size_t>(l)] : 1);
  }
  const auto nodes = static_cast<std::int32_t>(M_[static_cast<std::size_t>(h)]);
  switches_.assign(static_cast<std::size_t>(h) + 1, 0);
  first_.assign(static_cast<std::size_t>(h) + 2, 0);
  for (int l = 1; l <= h; ++l) {
    const auto at = static_cast<std::size_t>(l);
    switches_[at] = static_cast<int>(nodes / M_[at] * W_[at]);
    first_[at + 1] = first_[at] + switches_[at];
  }
  first_[0] = 0;
  per_rail_ = first_[static_cast<std::size_t>(h) + 1];
  rails_ = shape.rails;
  init_graph(rails_ * per_rail_, nodes);
  for (int rail = 0; rail < rails_; ++rail) add_rail_links(rail);
  add_node_links(node_links, shape.latency);  // the node->leaf link enters the leaf switch
  build_tables();
}

// Per level, the up links switch by switch (port order), then the down links of the level
// above parent by parent (port order), so that port_link() is arithmetic.
void FatTree::add_rail_links(int rail) {
  const int h = levels();
  up_base_.resize(static_cast<std::size_t>(rails_) * (h + 1), kNoLink);
  down_base_.resize(static_cast<std::size_t>(rails_) * (h + 1), kNoLink);
  const auto lane = static_cast<std::uint8_t>(rail);
  for (int l = 1; l < h; ++l) {
    const auto at = static_cast<std::size_t>(l);
    up_base_[static_cast<std::size_t>(rail) * (h + 1) + at] = link_count();
    for (int index = 0; index < switches_[at]; ++index)
      for (int q = 0; q < up_ports(l); ++q) {
        const int b = q % w_[at + 1];
        const Switch parent{l + 1,
                            static_cast<int>(index / W_[at] / m_[at + 1] * W_[at + 1] + index % W_[at] + W_[at] * b)};
        add_link({router(rail, {l, index}), router(rail, parent), shape_.bandwidth, shape_.latency, LinkKind::network,
                  static_cast<std::int16_t>(l), +1, lane});
      }
    down_base_[static_cast<std::size_t>(rail) * (h + 1) + at + 1] = link_count();
    for (int index = 0; index < switches_[at + 1]; ++index)
      for (int port = 0; port < m_[at + 1] * p_[at + 1]; ++port) {
        const int c = port / p_[at + 1];
        const auto B = index % W_[at + 1];
        const Switch child{l, static_cast<int>((index / W_[at + 1] * m_[at + 1] + c) * W_[at] + B % W_[at])};
        add_link({router(rail, {l + 1, index}), router(rail, child), shape_.bandwidth, shape_.latency,
                  LinkKind::network, static_cast<std::int16_t>(l), -1, lane});
      }
  }
}

LinkId FatTree::port_link(int rail, Switch s, int port) const {
  const auto at = static_cast<std::size_t>(s.level);
  const int down = m_[at] * p_[at];
  const auto base = static_cast<std::size_t>(rail) * (levels() + 1) + at;
  if (port >= down) return up_base_[base] + s.index * up_ports(s.level) + (port - down);
  if (s.level == 1) return ejection_link(s.index * m_[1] + port, rail);
  return down_base_[base] + s.index * down + port;
}

FatTree::Switch FatTree::switch_of(RouterId r) const {
  const int local = r % per_rail_;
  int level = 1;
  while (local >= first_[static_cast<std::size_t>(level) + 1]) ++level;
  return {level, local - first_[static_cast<std::size_t>(level)]};
}

int FatTree::turning_level(NodeId a, NodeId b) const {
  int level = 1;
  while (a / M_[static_cast<std::size_t>(level)] != b / M_[static_cast<std::size_t>(level)]) ++level;
  return level;
}

// Down: the child holding n, on the lane its own dmodk up port used; up: n / W_l modulo the
// up ports (Zahavi 2012).
int FatTree::dmodk_port(Switch s, NodeId n) const {
  const auto at = static_cast<std::size_t>(s.level);
  if (!is_ancestor(s, n)) return m_[at] * p_[at] + static_cast<int>((n / W_[at]) % up_ports(s.level));
  const int child = static_cast<int>((n / M_[at - 1]) % m_[at]);
  if (s.level == 1) return child;
  const auto below_up_port = (n / W_[at - 1]) % (w_[at] * p_[at]);
  return child * p_[at] + static_cast<int>(below_up_port / w_[at]);
}

FatTree::Candidates FatTree::minimal_ports(Switch s, NodeId n) const {
  const auto at = static_cast<std::size_t>(s.level);
  if (!is_ancestor(s, n)) return {m_[at] * p_[at], up_ports(s.level)};
  const int child = static_cast<int>((n / M_[at - 1]) % m_[at]);
  return {child * p_[at], p_[at]};
}

int FatTree::route_port(int rail, Switch s, NodeId n) const {
  if (tables_.empty()) return dmodk_port(s, n);
  const auto row = static_cast<std::size_t>(first_[static_cast<std::size_t>(s.level)] + s.index);
  return tables_[static_cast<std::size_t>(rail)]
                [row * static_cast<std::size_t>(node_count_) + static_cast<std::size_t>(n)];
}

void FatTree::route(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  route_on_rail(src, dst, rail_of(src, dst), out);
}

void FatTree::route_on_rail(NodeId src, NodeId dst, int rail, std::vector<LinkId>& out) const {
  out.clear();
  if (src == dst) return;
  out.push_back(injection_link(src, rail));
  Switch at{1, leaf_of(src)};
  const int target = leaf_of(dst);
  while (at.level != 1 || at.index != target) {
    const LinkId hop = port_link(rail, at, route_port(rail, at, dst));
    out.push_back(hop);
    at = switch_of(link(hop).to);
  }
  out.push_back(ejection_link(dst, rail));
}

void FatTree::next_hops(RouterId at, RouterId dst, std::vector<LinkId>& out) const {
  out.clear();
  if (at == dst) return;
  const int rail = at / per_rail_;
  if (dst / per_rail_ != rail) throw std::logic_error("fat tree: no path between routers on different rails");
  const Switch target = switch_of(dst);
  if (target.level != 1) throw std::logic_error("fat tree: next_hops leads to leaf switches only");
  const Switch here = switch_of(at);
  const NodeId first_node = target.index * m_[1];
  if (shape_.routing != FatTreeRouting::adaptive)
    return out.push_back(port_link(rail, here, route_port(rail, here, first_node)));
  const Candidates ports = minimal_ports(here, first_node);
  for (int k = 0; k < ports.count; ++k) out.push_back(port_link(rail, here, ports.first + k));
}

// minhop and random fill one table per rail.
void FatTree::build_tables() {
  if (shape_.routing != FatTreeRouting::minhop && shape_.routing != FatTreeRouting::random) return;
  tables_.assign(static_cast<std::size_t>(rails_), std::vector<std::uint16_t>(static_cast<std::size_t>(per_rail_) *
                                                                              static_cast<std::size_t>(node_count_)));
  for (int rail = 0; rail < rails_; ++rail) fill_table(rail);
}

// For every destination (minhop: in LID order), every switch's port towards it: minhop the
// minimal port with the fewest destinations so far (ties: the lowest), random any minimal one.
void FatTree::fill_table(int rail) {
  const bool minhop = shape_.routing == FatTreeRouting::minhop;
  const auto nodes = static_cast<std::size_t>(node_count_);
  std::vector<NodeId> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  if (minhop && shape_.random_lid_order)
    Rng(shape_.routing_seed, 1000 + static_cast<std::uint64_t>(rail)).shuffle(order);
  std::vector<std::size_t> first_port(static_cast<std::size_t>(per_rail_) + 1, 0);
  for (RouterId local = 0; local < per_rail_; ++local)
    first_port[static_cast<std::size_t>(local) + 1] =
        first_port[static_cast<std::size_t>(local)] + static_cast<std::size_t>(ports(switch_of(local).level));
  std::vector<std::int64_t> assigned(first_port.back(), 0);  // per port: destinations routed through it
  Rng draws(shape_.routing_seed, static_cast<std::uint64_t>(rail));
  auto& table = tables_[static_cast<std::size_t>(rail)];
  for (const NodeId n : order) {
    for (RouterId local = 0; local < per_rail_; ++local) {
      const Candidates c = minimal_ports(switch_of(local), n);
      std::int64_t* counts = &assigned[first_port[static_cast<std::size_t>(local)]];
      int port = c.first;
      if (!minhop)
        port += static_cast<int>(draws.below(static_cast<std::uint64_t>(c.count)));
      else
        for (int k = c.first + 1; k < c.first + c.count; ++k)
          if (counts[k] < counts[port]) port = k;
      ++counts[port];
      table[static_cast<std::size_t>(local) * nodes + static_cast<std::size_t>(n)] = static_cast<std::uint16_t>(port);
    }
  }
}

namespace {

// The cut between the first half of the subtrees under the highest level that has more than
// one (and the rest): each subtree sends at most through its nodes' ports and through each
// level of its uplinks, whichever is narrowest. With a single leaf, the cut halves its nodes.
// 128 bits so that parsing can reject shapes whose figure does not fit a Rate.
Int128 fat_tree_bisection(const FatTreeShape& shape, const NodeLinks& node_links) {
  const Int128 port = std::min(node_links.injection_bandwidth, node_links.ejection_bandwidth);
  const auto& levels = shape.levels;
  std::size_t top = 0;  // index of the highest level with more than one child
  for (std::size_t i = 1; i < levels.size(); ++i)
    if (levels[i].children > 1) top = i;
  if (top == 0) return Int128{shape.rails} * (levels[0].children / 2) * port;
  Int128 subtree_nodes = 1;  // nodes under one switch of level `top` (index top - 1)
  for (std::size_t i = 0; i < top; ++i) subtree_nodes *= levels[i].children;
  Int128 capacity = subtree_nodes * port;
  Int128 nodes_below = 1, switches_above = 1;  // per switch of level i; W of level i
  for (std::size_t i = 0; i < top; ++i) {
    nodes_below *= levels[i].children;
    const Int128 uplinks =
        subtree_nodes / nodes_below * switches_above * levels[i].parents * levels[i].links_per_parent;
    capacity = std::min(capacity, uplinks * shape.bandwidth);
    switches_above *= levels[i].parents;
  }
  return Int128{shape.rails} * (levels[top].children / 2) * capacity;
}

}  // namespace

Summary FatTree::summary() const {
  Summary s;
  s.nodes = node_count_;
  s.routers = router_count_;
  s.network_links =
      std::count_if(links_.begin(), links_.end(), [](const LinkInfo& l) { return l.kind == LinkKind::network; });
  // Over ordered pairs of distinct nodes: those turning at level L take 2 (L - 1) hops, and
  // each node has M_L - M_{L-1} partners turning there.
  double weighted = 0;
  for (int l = 2; l <= levels(); ++l) {
    const auto at = static_cast<std::size_t>(l);
    if (m_[at] > 1) s.diameter = 2 * (l - 1);
    weighted += 2.0 * (l - 1) * static_cast<double>(M_[at] - M_[at - 1]);
  }
  s.average_hops = node_count_ > 1 ? weighted / (node_count_ - 1) : 0.0;
  const NodeLinks ports{link(injection_link(0)).bandwidth, link(ejection_link(0)).bandwidth};
  s.bisection_bandwidth = static_cast<Rate>(fat_tree_bisection(shape_, ports));
  return s;
}

std::string FatTree::node_label(NodeId n) const {
  return "leaf " + std::to_string(leaf_of(n)) + "/port " + std::to_string(n % m_[1]);
}

nlohmann::json FatTree::describe() const {
  nlohmann::json levels = nlohmann::json::array();
  for (int l = 1; l <= this->levels(); ++l)
    levels.push_back({{"switches", switches_[static_cast<std::size_t>(l)]},
                      {"children", m_[static_cast<std::size_t>(l)]},
                      {"parents", l < this->levels() ? w_[static_cast<std::size_t>(l) + 1] : 0},
                      {"links_per_parent", l < this->levels() ? p_[static_cast<std::size_t>(l) + 1] : 0},
                      {"ports_in_use", ports(l)}});
  nlohmann::json out{{"type", "fat_tree"},
                     {"levels", levels},
                     {"rails", rails_},
                     {"routing", name_of(kRoutingNames, shape_.routing)},
                     {"link_bandwidth_Bps", shape_.bandwidth},
                     {"link_latency_ps", shape_.latency}};
  if (shape_.routing == FatTreeRouting::minhop) out["lid_order"] = name_of(kLidOrderNames, shape_.random_lid_order);
  if (!tables_.empty()) out["routing_seed"] = shape_.routing_seed;
  return out;
}

namespace {

// ceil(nodes_per_leaf / oversubscription) without floating-point noise pushing an exact
// quotient up: 21 / 1.4 is 15.000000000000002 in doubles, and 15 uplinks is what is meant.
int uplinks_per_leaf(int nodes_per_leaf, double oversubscription) {
  return static_cast<int>(std::ceil(nodes_per_leaf / oversubscription - 1e-9));
}

// The two-level shorthand: leaves of nodes_per_leaf nodes, each with its uplinks spread evenly
// over the spines.
std::vector<FatTreeLevel> leaf_spine_levels(const ParamReader& r) {
  for (const char* key : {"leaves", "nodes_per_leaf"})
    if (!r.has(key)) r.where().fail(std::string("missing required key '") + key + "' (or give 'levels')");
  const LeafSpineKeys k = parse_fields(r, kLevelKeyFields);
  const int uplinks = uplinks_per_leaf(k.nodes_per_leaf, k.oversubscription);
  const int spines = r.has("spines") ? k.spines : uplinks;
  if (uplinks % spines != 0)
    r.where("spines").fail("a leaf's " + std::to_string(uplinks) + " uplinks do not divide evenly over " +
                           std::to_string(spines) + " spines");
  return {{k.nodes_per_leaf, spines, uplinks / spines}, {k.leaves, 0, 1}};
}

std::vector<FatTreeLevel> explicit_levels(const ParamReader& r) {
  for (const char* key : {"leaves", "nodes_per_leaf", "oversubscription", "spines"})
    if (r.has(key))
      r.where(key).fail(
          "give either 'levels' or the two-level keys (leaves, nodes_per_leaf, "
          "oversubscription, spines), not both");
  const Json& list = r.nested("levels");
  if (list.size() < 2 || list.size() > 3)
    r.where("levels").fail("expected 2 or 3 levels, got " + std::to_string(list.size()));
  std::vector<FatTreeLevel> levels;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const ParamReader level(list[i], r.where("levels") / i, kFatTreeLevelParams);
    levels.push_back(parse_fields(level, kLevelFields));
    const bool top = i + 1 == list.size();
    if (top != (levels.back().parents == 0))
      level.where("parents").fail(top ? "the top level has no parents: expected 0"
                                      : "expected at least one parent below the top level");
  }
  return levels;
}

std::int64_t node_count(const FatTreeShape& s) {
  std::int64_t nodes = 1;
  for (const auto& level : s.levels) nodes *= level.children;
  return nodes;
}

// Directed links between switches, every rail: each switch of a level below the top has
// `parents` parents over `links_per_parent` links each, one link each way. A level has
// nodes / (nodes below one of its switches) groups of (switches above one leaf) switches.
std::int64_t network_link_count(const FatTreeShape& s) {
  const std::int64_t nodes = node_count(s);
  std::int64_t below = 1, above = 1, links = 0;
  for (std::size_t i = 0; i + 1 < s.levels.size(); ++i) {
    below *= s.levels[i].children;
    if (i > 0) above *= s.levels[i - 1].parents;
    links += 2 * (nodes / below) * above * s.levels[i].parents * s.levels[i].links_per_parent;
  }
  return links * s.rails;
}

// Ports in use per switch against the crossbar's, and sizes the structures can hold.
void check_shape(const ParamReader& r, const FatTreeKeys& s) {
  std::int64_t nodes = 1;
  for (std::size_t i = 0; i < s.levels.size(); ++i) {
    const auto& level = s.levels[i];
    nodes *= level.children;
    if (nodes > kMaxNodes) r.where().fail("at most 4,194,304 nodes (2^22) are supported");
    const std::int64_t down = std::int64_t{level.children} * (i == 0 ? 1 : s.levels[i - 1].links_per_parent);
    const std::int64_t in_use = down + std::int64_t{level.parents} * level.links_per_parent;
    if (in_use > 65535)
      r.where().fail("a switch of level " + std::to_string(i + 1) + " would have more than 65,535 ports");
    if (r.has("switch_ports") && in_use > s.switch_ports)
      r.where("switch_ports")
          .fail("a switch of level " + std::to_string(i + 1) + " uses " + std::to_string(in_use) + " ports (" +
                std::to_string(down) + " down, " + std::to_string(in_use - down) + " up); its crossbar has " +
                std::to_string(s.switch_ports));
  }
  if (s.routing != FatTreeRouting::minhop && s.routing != FatTreeRouting::random) return;
  std::int64_t switches = 0, nodes_below = 1, switches_above = 1;
  for (const auto& level : s.levels) {
    nodes_below *= level.children;
    switches += nodes / nodes_below * switches_above;
    switches_above *= std::max(1, level.parents);
  }
  if (2 * switches * nodes * s.rails > kMaxTableBytes)
    r.where("routing").fail("the forwarding tables of '" + r.text("routing") + "' on this tree would take " +
                            std::to_string(2 * switches * nodes * s.rails >> 20) +
                            " MiB (at most 512); use dmodk or adaptive, which compute ports instead");
}

}  // namespace

std::unique_ptr<Topology> make_fat_tree(const ParamReader& r, const NodeLinks& node_links) {
  FatTreeKeys s = parse_fields(r, kFields);
  s.levels = r.has("levels") ? explicit_levels(r) : leaf_spine_levels(r);
  check_shape(r, s);
  check_fits_in_memory("a fat tree of " + std::to_string(node_count(s)) + " nodes",
                       network_link_count(s) + 2 * node_count(s) * (s.rails - 1), node_count(s), r.where());
  if (fat_tree_bisection(s, node_links) > INT64_MAX)
    r.where().fail(
        "the bisection bandwidth of this fat tree does not fit a 64-bit rate (9.2e18 B/s); use fewer "
        "switches or a lower link_bandwidth");
  return std::make_unique<FatTree>(s, node_links);
}

}  // namespace torsim::topo
