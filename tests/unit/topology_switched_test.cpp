// Switched topologies: the leaf/spine fat tree (oversubscription, rails, D-mod-k routing) and
// the crossbar. Routes are checked against the graph, the summary against brute force (BFS
// for hops, a maximum flow between the two halves for the bisection).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <functional>
#include <numeric>
#include <set>

#include "sim/core/random.hpp"
#include "tests/support/graph_distances.hpp"
#include "tests/support/input_error.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/switched.hpp"
#include "topologies/topology.hpp"

using namespace torsim;
using test::bfs_distances;
using test::brute_force_hops;
using topo::LinkId;
using topo::NodeId;
using topo::RouterId;

namespace {

constexpr Rate kGB = 1000000000;

Json fat_tree_spec(int leaves, int nodes_per_leaf, double oversubscription = 1.0, int rails = 1,
                   const std::string& bandwidth = "5GB/s") {
  return {{"type", "fat_tree"},
          {"leaves", leaves},
          {"nodes_per_leaf", nodes_per_leaf},
          {"oversubscription", oversubscription},
          {"rails", rails},
          {"link_bandwidth", bandwidth},
          {"link_latency", "100ns"}};
}

std::unique_ptr<topo::Topology> build(const Json& spec, Rate injection = 10 * kGB, Rate ejection = 10 * kGB) {
  return topo::make_topology(spec, Where("m.json", "/machine/topology"), {injection, ejection});
}

const topo::FatTree& as_fat_tree(const topo::Topology& t) { return dynamic_cast<const topo::FatTree&>(t); }

// Routes between every ordered pair chain through the graph from the source's injection link
// (on the route's rail) to the destination's ejection link, with as many router-to-router hops
// as hops() says and as BFS allows on that rail.
void check_all_routes(const topo::Topology& t) {
  std::vector<LinkId> route;
  for (NodeId src = 0; src < t.node_count(); ++src) {
    for (NodeId dst = 0; dst < t.node_count(); ++dst) {
      INFO(t.node_label(src) << " -> " << t.node_label(dst));
      t.route(src, dst, route);
      if (src == dst) {
        REQUIRE(route.empty());
        continue;
      }
      REQUIRE(route.size() >= 2);
      const int rail = t.link(route.front()).lane;
      REQUIRE(route.front() == t.injection_link(src, rail));
      REQUIRE(t.link(route.front()).from == t.router_count() + src);
      REQUIRE(route.back() == t.ejection_link(dst, rail));
      REQUIRE(t.link(route.back()).to == t.router_count() + dst);
      for (std::size_t i = 1; i < route.size(); ++i) REQUIRE(t.link(route[i - 1]).to == t.link(route[i]).from);
      const int network_hops = static_cast<int>(route.size()) - 2;
      const auto distance = bfs_distances(t, t.rail_router(src, rail));
      REQUIRE(network_hops == distance[static_cast<std::size_t>(t.rail_router(dst, rail))]);
      REQUIRE(t.hops(src, dst) == network_hops);
    }
  }
}

// Maximum flow from the nodes with from_side(n) to the others through the whole graph, every
// link a pipe of its bandwidth.
Rate max_flow(const topo::Topology& t, const std::function<bool(NodeId)>& from_side) {
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, Rate,
                      boost::property<boost::edge_residual_capacity_t, Rate,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const std::size_t vertices = boost::num_vertices(t.graph());
  FlowGraph g(vertices + 2);
  const std::size_t source = vertices, sink = vertices + 1;
  auto capacity = boost::get(boost::edge_capacity, g);
  auto reverse = boost::get(boost::edge_reverse, g);
  auto pipe = [&](std::size_t a, std::size_t b, Rate rate) {
    const auto forward = boost::add_edge(a, b, g).first;
    const auto backward = boost::add_edge(b, a, g).first;
    capacity[forward] = rate;
    capacity[backward] = 0;
    reverse[forward] = backward;
    reverse[backward] = forward;
  };
  for (const auto& link : t.links())
    pipe(static_cast<std::size_t>(link.from), static_cast<std::size_t>(link.to), link.bandwidth);
  Rate unlimited = 1;  // more than every link together: the cut is never at the super-source or sink
  for (const auto& link : t.links()) unlimited += link.bandwidth;
  for (NodeId n = 0; n < t.node_count(); ++n) {
    const auto vertex = static_cast<std::size_t>(t.router_count() + n);
    if (from_side(n))
      pipe(source, vertex, unlimited);
    else
      pipe(vertex, sink, unlimited);
  }
  return boost::push_relabel_max_flow(g, source, sink);
}

// Bisection by brute force: the smaller of the maximum flows across the cut, each way.
Rate brute_force_bisection(const topo::Topology& t, const std::function<bool(NodeId)>& first_half) {
  return std::min(max_flow(t, first_half), max_flow(t, [&](NodeId n) { return !first_half(n); }));
}

void expect_rejected(const Json& spec, const std::string& path, const std::string& message) {
  INFO(spec.dump());
  const InputError e = test::input_error_of([&] { build(spec); });
  CHECK(e.file() == "m.json");
  CHECK(e.path() == path);
  CHECK_THAT(e.message(), Catch::Contains(message));
}

}  // namespace

TEST_CASE("fat tree shape: one uplink per spine, spines = ceil(nodes_per_leaf / oversubscription)", "[topology]") {
  SECTION("4 leaves of 6 nodes at 2:1, two rails") {
    auto t = build(fat_tree_spec(4, 6, 2.0, 2));
    CHECK(as_fat_tree(*t).switches_at(2) == 3);
    CHECK(t->rail_count() == 2);
    CHECK(t->node_count() == 24);
    CHECK(t->router_count() == 2 * (4 + 3));
    CHECK(t->summary().network_links == 2 * 2 * 4 * 3);
    CHECK(t->link_count() == 2 * 2 * 4 * 3 + 2 * 2 * 24);
  }
  SECTION("ceil rounds up a fraction and does not round up an exact quotient") {
    CHECK(as_fat_tree(*build(fat_tree_spec(2, 5, 2.0))).switches_at(2) == 3);
    CHECK(as_fat_tree(*build(fat_tree_spec(2, 21, 1.4))).switches_at(2) == 15);  // 21 / 1.4 is not 15 in doubles
    CHECK(as_fat_tree(*build(fat_tree_spec(2, 4, 64.0))).switches_at(2) == 1);
  }
  SECTION("each leaf has one uplink to each spine of its rail, and one downlink back") {
    auto t = build(fat_tree_spec(3, 4, 2.0, 2));
    std::multiset<std::pair<RouterId, RouterId>> up, down;
    for (const auto& link : t->links()) {
      if (link.kind != topo::LinkKind::network) continue;
      (link.direction > 0 ? up : down).insert({link.from, link.to});
    }
    for (int rail = 0; rail < 2; ++rail)
      for (RouterId leaf = 0; leaf < 3; ++leaf)
        for (RouterId spine = 3; spine < 5; ++spine) {
          const RouterId l = rail * 5 + leaf, s = rail * 5 + spine;
          CHECK(up.count({l, s}) == 1);
          CHECK(down.count({s, l}) == 1);
        }
  }
}

TEST_CASE("fat tree routes are valid, minimal and D-mod-k", "[topology]") {
  for (const auto& spec :
       {fat_tree_spec(4, 4), fat_tree_spec(3, 5, 2.5, 2), fat_tree_spec(1, 6, 1.0, 2), fat_tree_spec(5, 3, 3.0)}) {
    INFO(spec.dump());
    check_all_routes(*build(spec));
  }
  auto t = build(fat_tree_spec(4, 4, 2.0));  // 2 spines
  CHECK(t->hops(0, 3) == 0);
  CHECK(t->hops(0, 4) == 2);
  std::vector<LinkId> route;
  t->route(0, 3, route);  // same leaf: straight through it
  CHECK(route == std::vector<LinkId>{t->injection_link(0), t->ejection_link(3)});
  for (NodeId dst = 4; dst < 16; ++dst) {
    t->route(1, dst, route);
    REQUIRE(route.size() == 4);
    CHECK(t->link(route[1]).to == 4 + dst % 2);  // spine router = leaves + dst % spines
  }
}

TEST_CASE("fat tree rails: (src + dst) % rails, every hop on that rail", "[topology]") {
  auto t = build(fat_tree_spec(3, 4, 2.0, 2));
  const auto& tree = as_fat_tree(*t);
  const int routers_per_rail = tree.leaves() + tree.switches_at(2);
  std::vector<LinkId> route, again;
  std::set<int> rails_used;
  for (NodeId src = 0; src < t->node_count(); ++src)
    for (NodeId dst = 0; dst < t->node_count(); ++dst) {
      if (src == dst) continue;
      t->route(src, dst, route);
      const int rail = (src + dst) % 2;
      CHECK(tree.rail_of(src, dst) == rail);
      rails_used.insert(rail);
      for (LinkId l : route) CHECK(t->link(l).lane == rail);
      for (std::size_t i = 1; i < route.size(); ++i) CHECK(t->link(route[i]).from / routers_per_rail == rail);
      t->route(src, dst, again);
      CHECK(again == route);
    }
  CHECK(rails_used == std::set<int>{0, 1});
  // Rail 0's links are where single-rail callers look for them.
  CHECK(t->injection_link(5) == t->injection_link(5, 0));
  CHECK(t->link(t->injection_link(5, 1)).to == t->rail_router(5, 1));
  CHECK(t->rail_router(5, 1) == routers_per_rail + 1);
  CHECK(t->router_of(5) == 1);
}

TEST_CASE("fat tree switch latency sits on the link entering each switch", "[topology]") {
  auto t = build(fat_tree_spec(2, 2));
  for (const auto& link : t->links())
    CHECK(link.latency == (link.kind == topo::LinkKind::ejection ? 0 : 100 * kNanosecond));
  std::vector<LinkId> route;
  Time total = 0;
  t->route(0, 3, route);
  for (LinkId l : route) total += t->link(l).latency;
  CHECK(total == 3 * 100 * kNanosecond);  // leaf, spine, leaf
  total = 0;
  t->route(0, 1, route);
  for (LinkId l : route) total += t->link(l).latency;
  CHECK(total == 100 * kNanosecond);  // the one leaf
}

TEST_CASE("fat tree next_hops climbs to a spine and comes down to a leaf", "[topology]") {
  auto t = build(fat_tree_spec(3, 4, 2.0, 2));  // per rail: leaves 0-2, spines 3-4
  std::vector<LinkId> options;
  t->next_hops(0, 2, options);
  REQUIRE(options.size() == 1);
  CHECK(t->link(options[0]).to == 3 + 2 % 2);
  t->next_hops(t->link(options[0]).to, 2, options);
  REQUIRE(options.size() == 1);
  CHECK(t->link(options[0]).to == 2);
  t->next_hops(4, 1, options);  // from a spine: straight down
  REQUIRE(options.size() == 1);
  CHECK(t->link(options[0]).to == 1);
  t->next_hops(6, 6, options);
  CHECK(options.empty());
  CHECK_THROWS_AS(t->next_hops(0, 5 + 2, options), std::logic_error);  // rails share no switch
  CHECK_THROWS_AS(t->next_hops(0, 4, options), std::logic_error);      // towards leaves only
}

TEST_CASE("fat tree summary matches brute force", "[topology]") {
  for (const auto& spec :
       {fat_tree_spec(4, 4), fat_tree_spec(3, 5, 2.5, 2), fat_tree_spec(1, 6), fat_tree_spec(6, 1)}) {
    INFO(spec.dump());
    auto t = build(spec);
    const auto s = t->summary();
    const auto brute = brute_force_hops(*t);
    CHECK(s.nodes == t->node_count());
    CHECK(s.routers == t->router_count());
    CHECK(s.network_links == std::count_if(t->links().begin(), t->links().end(),
                                           [](const auto& l) { return l.kind == topo::LinkKind::network; }));
    CHECK(s.diameter == brute.diameter);
    CHECK(s.average_hops == Approx(brute.average).epsilon(1e-12));
  }
}

TEST_CASE("fat tree bisection: closed form against a maximum flow between the halves", "[topology]") {
  struct Case {
    Json spec;
    Rate injection, ejection;
    Rate expected;  // rails x (leaves / 2) x min(nodes_per_leaf x port, spines x link)
  };
  const std::vector<Case> cases{
      {fat_tree_spec(4, 4, 2.0, 2), 10 * kGB, 10 * kGB, 2 * 2 * std::min(4 * 10 * kGB, 2 * 5 * kGB)},
      {fat_tree_spec(4, 4, 1.0, 1, "40GB/s"), 10 * kGB, 10 * kGB, 1 * 2 * 4 * 10 * kGB},  // nodes limit
      {fat_tree_spec(3, 4, 2.0), 10 * kGB, 10 * kGB, 1 * 1 * 2 * 5 * kGB},                // odd leaves
      {fat_tree_spec(3, 2, 1.0, 1, "50GB/s"), 10 * kGB, 10 * kGB, 1 * 1 * 2 * 10 * kGB},  // odd, nodes limit
      {fat_tree_spec(4, 2, 1.0, 1, "50GB/s"), 10 * kGB, 3 * kGB, 2 * 2 * 3 * kGB},        // ejection limits
      {fat_tree_spec(1, 6, 1.0, 2), 10 * kGB, 10 * kGB, 2 * 3 * 10 * kGB},                // one leaf: split its nodes
  };
  for (const auto& c : cases) {
    INFO(c.spec.dump());
    auto t = build(c.spec, c.injection, c.ejection);
    const auto& tree = as_fat_tree(*t);
    const auto first_half = [&](NodeId n) {
      return tree.leaves() > 1 ? n / tree.nodes_per_leaf() < tree.leaves() / 2 : n < tree.nodes_per_leaf() / 2;
    };
    CHECK(t->summary().bisection_bandwidth == c.expected);
    CHECK(t->summary().bisection_bandwidth == brute_force_bisection(*t, first_half));
  }
}

TEST_CASE("crossbar: one switch, latency on the injection link", "[topology]") {
  auto t = build({{"type", "crossbar"}, {"nodes", 8}, {"link_latency", "200ns"}}, 2 * kGB, 3 * kGB);
  CHECK(t->router_count() == 1);
  CHECK(t->node_count() == 8);
  CHECK(t->rail_count() == 1);
  check_all_routes(*t);
  std::vector<LinkId> route;
  t->route(1, 6, route);
  REQUIRE(route == std::vector<LinkId>{t->injection_link(1), t->ejection_link(6)});
  CHECK(t->link(route[0]).latency == 200 * kNanosecond);
  CHECK(t->link(route[0]).bandwidth == 2 * kGB);
  CHECK(t->link(route[1]).latency == 0);
  CHECK(t->link(route[1]).bandwidth == 3 * kGB);
  CHECK(t->hops(1, 6) == 0);
  t->next_hops(0, 0, route);
  CHECK(route.empty());
  const auto s = t->summary();
  CHECK(s.network_links == 0);
  CHECK(s.diameter == 0);
  CHECK(s.average_hops == 0);
  CHECK(s.bisection_bandwidth == 4 * 2 * kGB);
  CHECK(s.bisection_bandwidth == brute_force_bisection(*t, [](NodeId n) { return n < 4; }));
  // An odd port count with asymmetric ports: the weaker direction counts.
  auto odd = build({{"type", "crossbar"}, {"nodes", 5}, {"link_latency", "200ns"}}, 10 * kGB, 1 * kGB);
  CHECK(odd->summary().bisection_bandwidth == 2 * 1 * kGB);
  CHECK(odd->summary().bisection_bandwidth == brute_force_bisection(*odd, [](NodeId n) { return n < 2; }));
}

TEST_CASE("impossible switched shapes are rejected with the path and what was expected", "[topology]") {
  const std::string top = "/machine/topology";
  SECTION("fat tree rails 3, leaves 0, oversubscription below 1") {
    expect_rejected(fat_tree_spec(2, 4, 1.0, 3), top + "/rails", "expected a value in [1, 2]");
    expect_rejected(fat_tree_spec(0, 4), top + "/leaves", "expected a value in [1, 4096]");
    expect_rejected(fat_tree_spec(2, 4, 0.5), top + "/oversubscription", "expected a value in [1, 64]");
  }
  SECTION("fat tree missing bandwidth, misspelt key") {
    Json spec = fat_tree_spec(2, 4);
    spec.erase("link_bandwidth");
    expect_rejected(spec, top, "missing required key 'link_bandwidth'");
    spec = fat_tree_spec(2, 4);
    spec["node_per_leaf"] = 4;
    expect_rejected(spec, top + "/node_per_leaf", "did you mean 'nodes_per_leaf'");
  }
  SECTION("a fat tree bisection that does not fit a 64-bit rate") {
    // 2 rails x 512 leaves x 1024 spines x 1e13 B/s > 2^63; rejected before any link is built.
    const Rate fast = 10000 * kGB;
    const InputError e =
        test::input_error_of([&] { build(fat_tree_spec(1024, 1024, 1.0, 2, "10000GB/s"), fast, fast); });
    CHECK(e.path() == top);
    CHECK_THAT(e.message(), Catch::Contains("does not fit a 64-bit rate"));
  }
  SECTION("crossbar without nodes, or with a torus key") {
    expect_rejected({{"type", "crossbar"}, {"nodes", 0}, {"link_latency", "1ns"}}, top + "/nodes",
                    "expected a value in [1, 65536]");
    expect_rejected({{"type", "crossbar"}, {"link_latency", "1ns"}}, top, "missing required key 'nodes'");
    expect_rejected({{"type", "crossbar"}, {"nodes", 4}, {"link_latency", "1ns"}, {"dims", Json::array()}},
                    top + "/dims", "unknown key 'dims'");
  }
  SECTION("a misspelt type") { expect_rejected({{"type", "fat-tree"}}, top + "/type", "did you mean 'fat_tree'"); }
}

// ---- Fat trees in general (PGFT shapes, three levels, parallel links) and their routing engines

namespace {

Json levels_spec(const std::vector<std::array<int, 3>>& levels, const std::string& routing = "dmodk", int rails = 1) {
  Json list = Json::array();
  for (const auto& [children, parents, links] : levels)
    list.push_back({{"children", children}, {"parents", parents}, {"links_per_parent", links}});
  return {{"type", "fat_tree"},        {"levels", list},          {"rails", rails},
          {"link_bandwidth", "5GB/s"}, {"link_latency", "100ns"}, {"routing", routing}};
}

// Flows per link when every node n sends to destination(n) (on the default rail).
std::vector<int> link_loads(const topo::Topology& t, const std::function<NodeId(NodeId)>& destination) {
  std::vector<int> load(static_cast<std::size_t>(t.link_count()), 0);
  std::vector<LinkId> route;
  for (NodeId n = 0; n < t.node_count(); ++n) {
    t.route(n, destination(n), route);
    for (LinkId l : route) ++load[static_cast<std::size_t>(l)];
  }
  return load;
}

int max_shift_load(const topo::Topology& t) {
  int worst = 0;
  const NodeId n = t.node_count();
  for (NodeId shift = 1; shift < n; ++shift) {
    const auto load = link_loads(t, [&](NodeId src) { return (src + shift) % n; });
    worst = std::max(worst, *std::max_element(load.begin(), load.end()));
  }
  return worst;
}

// Hoefler, Schneider, Lumsdaine (Cluster 2008): random bisections (half the nodes paired with
// the other half, both directions), each flow getting 1/k of the busiest link on its route
// when k flows share it; the mean over flows and pairings, relative to a lone flow.
double effective_bisection_estimate(const topo::Topology& t, int pairings, std::uint64_t seed) {
  Rng rng(seed, 7);
  std::vector<NodeId> nodes(static_cast<std::size_t>(t.node_count()));
  std::iota(nodes.begin(), nodes.end(), 0);
  std::vector<NodeId> partner(nodes.size());
  const std::size_t half = nodes.size() / 2;
  double sum = 0;
  std::vector<LinkId> route;
  for (int k = 0; k < pairings; ++k) {
    rng.shuffle(nodes);
    for (std::size_t i = 0; i < half; ++i) {
      partner[static_cast<std::size_t>(nodes[i])] = nodes[i + half];
      partner[static_cast<std::size_t>(nodes[i + half])] = nodes[i];
    }
    const auto load = link_loads(t, [&](NodeId n) { return partner[static_cast<std::size_t>(n)]; });
    for (NodeId n = 0; n < t.node_count(); ++n) {
      t.route(n, partner[static_cast<std::size_t>(n)], route);
      int busiest = 0;
      for (LinkId l : route) busiest = std::max(busiest, load[static_cast<std::size_t>(l)]);
      sum += 1.0 / busiest;
    }
  }
  return sum / (static_cast<double>(pairings) * t.node_count());
}

const std::vector<std::vector<std::array<int, 3>>> kShapes{
    {{4, 2, 2}, {3, 0, 1}},             // two spines, two links to each
    {{2, 2, 1}, {2, 2, 1}, {3, 0, 1}},  // three levels
    {{3, 3, 1}, {3, 2, 1}, {2, 0, 1}},  // three levels, 3:2 at the second
    {{2, 1, 2}, {2, 2, 1}, {2, 0, 1}},  // parallel links below, single above
};

}  // namespace

TEST_CASE("fat tree levels: PGFT shapes build, route minimally on every engine and rail", "[topology]") {
  for (const auto& shape : kShapes)
    for (const std::string routing : {"dmodk", "minhop", "random", "adaptive"}) {
      const Json spec = levels_spec(shape, routing, 2);
      INFO(spec.dump());
      auto t = build(spec);
      check_all_routes(*t);
      const auto s = t->summary();
      const auto brute = brute_force_hops(*t);
      CHECK(s.diameter == brute.diameter);
      CHECK(s.average_hops == Approx(brute.average).epsilon(1e-12));
    }
  auto director = build(levels_spec({{18, 18, 1}, {36, 0, 1}}));
  const auto& tree = as_fat_tree(*director);
  CHECK(director->node_count() == 648);
  CHECK(tree.leaves() == 36);
  CHECK(tree.switches_at(2) == 18);
  const auto description = director->describe();  // a range-for over a temporary's member would dangle
  for (const auto& level : description["levels"]) CHECK(level["ports_in_use"] == 36);
  auto three = build(levels_spec({{18, 18, 1}, {18, 18, 1}, {36, 0, 1}}));  // 36-port crossbars, three levels
  CHECK(three->node_count() == 11664);
  CHECK(as_fat_tree(*three).switches_at(3) == 324);
  CHECK(three->hops(0, 17) == 0);
  CHECK(three->hops(0, 18) == 2);
  CHECK(three->hops(0, 324) == 4);
}

TEST_CASE("fat tree levels: bisection closed form against a maximum flow", "[topology]") {
  for (const auto& shape : kShapes) {
    const Json spec = levels_spec(shape);
    INFO(spec.dump());
    auto t = build(spec, 10 * kGB, 10 * kGB);
    const auto& top = shape.back();
    std::int64_t subtree = 1;
    for (std::size_t i = 0; i + 1 < shape.size(); ++i) subtree *= shape[i][0];
    const auto first_half = [&](NodeId n) { return n / subtree < top[0] / 2; };
    CHECK(t->summary().bisection_bandwidth == brute_force_bisection(*t, first_half));
  }
}

TEST_CASE("dmodk: no link carries two flows of any shift permutation on a full tree", "[topology][routing]") {
  for (const auto& shape : std::vector<std::vector<std::array<int, 3>>>{{{4, 4, 1}, {6, 0, 1}},
                                                                        {{4, 2, 2}, {5, 0, 1}},
                                                                        {{2, 2, 1}, {2, 2, 1}, {2, 0, 1}},
                                                                        {{3, 3, 1}, {3, 3, 1}, {4, 0, 1}},
                                                                        {{4, 2, 2}, {4, 4, 2}, {3, 0, 1}},
                                                                        {{18, 18, 1}, {36, 0, 1}}}) {
    auto t = build(levels_spec(shape));
    INFO(t->describe().dump());
    CHECK(max_shift_load(*t) == 1);
  }
  // Guards the formula: the up port by destination modulo the up ports only (without the
  // division by the switches below, floor(n / W_l)) makes shifts collide on three levels.
}

TEST_CASE("minhop with LIDs in node order is dmodk on a two-level tree of single links", "[topology][routing]") {
  for (const auto& shape :
       std::vector<std::vector<std::array<int, 3>>>{{{4, 4, 1}, {6, 0, 1}}, {{6, 3, 1}, {4, 0, 1}}}) {
    Json minhop = levels_spec(shape, "minhop");
    minhop["lid_order"] = "node";
    auto a = build(minhop);
    auto b = build(levels_spec(shape));
    std::vector<LinkId> ra, rb;
    for (NodeId src = 0; src < a->node_count(); ++src)
      for (NodeId dst = 0; dst < a->node_count(); ++dst) {
        a->route(src, dst, ra);
        b->route(src, dst, rb);
        REQUIRE(ra == rb);
      }
  }
}

TEST_CASE("minhop in LID order and random routing load an uplink with several flows of some shift",
          "[topology][routing]") {
  const auto shape = std::vector<std::array<int, 3>>{{8, 8, 1}, {8, 0, 1}};
  CHECK(max_shift_load(*build(levels_spec(shape, "dmodk"))) == 1);
  CHECK(max_shift_load(*build(levels_spec(shape, "minhop"))) > 1);
  CHECK(max_shift_load(*build(levels_spec(shape, "random"))) > 1);
  // minhop still balances: every uplink of a leaf carries the same number of destinations.
  auto minhop = build(levels_spec(shape, "minhop"));
  std::vector<int> per_uplink(static_cast<std::size_t>(minhop->link_count()), 0);
  std::vector<LinkId> route;
  for (NodeId dst = 8; dst < 64; ++dst) {
    minhop->route(0, dst, route);
    ++per_uplink[static_cast<std::size_t>(route[1])];
  }
  for (LinkId l = 0; l < minhop->link_count(); ++l)
    if (minhop->link(l).from == 0 && minhop->link(l).kind == topo::LinkKind::network)
      CHECK(per_uplink[static_cast<std::size_t>(l)] == 7);
}

TEST_CASE("static routing: the effective bisection bandwidth falls below 1 and further as the tree grows",
          "[topology][routing]") {
  for (const std::string routing : {"dmodk", "minhop", "random"}) {
    const double small = effective_bisection_estimate(*build(levels_spec({{4, 4, 1}, {8, 0, 1}}, routing)), 200, 1);
    const double large = effective_bisection_estimate(*build(levels_spec({{16, 16, 1}, {32, 0, 1}}, routing)), 50, 1);
    INFO(routing << ": 32 nodes " << small << ", 512 nodes " << large);
    CHECK(small < 0.9);
    CHECK(large < small);
    CHECK(large < 0.75);
  }
  // A single crossbar's bisection is full: every flow alone on its ports.
  CHECK(effective_bisection_estimate(*build({{"type", "crossbar"}, {"nodes", 32}, {"link_latency", "1ns"}}), 20, 1) ==
        1.0);
}

TEST_CASE("adaptive routing: next_hops offers every minimal port; static engines one", "[topology][routing]") {
  auto t = build(levels_spec({{2, 2, 1}, {2, 2, 2}, {3, 0, 1}}, "adaptive"));
  CHECK(t->routing() == topo::Routing::minimal_adaptive);
  const auto& tree = as_fat_tree(*t);
  const RouterId far_leaf = tree.leaves() - 1;  // in the last pod
  std::vector<LinkId> options;
  t->next_hops(0, far_leaf, options);  // leaf 0: both up ports
  CHECK(options.size() == 2);
  for (LinkId l : options) CHECK(t->link(l).direction == +1);
  t->next_hops(t->link(options[0]).to, far_leaf, options);  // second level: 2 parents x 2 links
  CHECK(options.size() == 4);
  t->next_hops(t->link(options[0]).to, far_leaf, options);  // top: down, the two links into the pod
  CHECK(options.size() == 2);
  for (LinkId l : options) CHECK(t->link(l).direction == -1);
  auto fixed = build(levels_spec({{2, 2, 1}, {2, 2, 2}, {3, 0, 1}}, "random"));
  CHECK(fixed->routing() == topo::Routing::dimension_order);
  fixed->next_hops(0, far_leaf, options);
  CHECK(options.size() == 1);
}

TEST_CASE("fat tree rails: route_on_rail takes the rail asked for", "[topology]") {
  auto t = build(levels_spec({{2, 2, 1}, {3, 0, 1}}, "dmodk", 2));
  std::vector<LinkId> route;
  for (int rail : {0, 1}) {
    t->route_on_rail(0, 5, rail, route);
    for (LinkId l : route) CHECK(t->link(l).lane == rail);
  }
  t->route(0, 5, route);
  CHECK(t->link(route.front()).lane == 1);  // (0 + 5) % 2
}

TEST_CASE("fat tree levels: impossible shapes are rejected with the path", "[topology]") {
  const std::string top = "/machine/topology";
  Json spec = levels_spec({{18, 18, 1}, {36, 0, 1}});
  spec["switch_ports"] = 36;
  CHECK_NOTHROW(build(spec));
  spec["switch_ports"] = 32;
  expect_rejected(spec, top + "/switch_ports",
                  "a switch of level 1 uses 36 ports (18 down, 18 up); its crossbar has 32");
  expect_rejected(levels_spec({{4, 2, 1}}), top + "/levels", "expected 2 or 3 levels, got 1");
  expect_rejected(levels_spec({{4, 2, 1}, {4, 2, 1}}), top + "/levels/1/parents", "the top level has no parents");
  expect_rejected(levels_spec({{4, 0, 1}, {4, 0, 1}}), top + "/levels/0/parents", "expected at least one parent");
  spec = levels_spec({{4, 2, 1}, {4, 0, 1}});
  spec["leaves"] = 4;
  expect_rejected(spec, top + "/leaves", "give either 'levels' or the two-level keys");
  spec = fat_tree_spec(4, 6);
  spec["spines"] = 4;
  expect_rejected(spec, top + "/spines", "a leaf's 6 uplinks do not divide evenly over 4 spines");
  spec = fat_tree_spec(4096, 1024);
  spec["routing"] = "minhop";
  expect_rejected(spec, top + "/routing", "use dmodk or adaptive");
  spec = fat_tree_spec(4, 6);
  spec.erase("leaves");
  expect_rejected(spec, top, "missing required key 'leaves' (or give 'levels')");
}
