// Switched topologies: the leaf/spine fat tree (oversubscription, rails, D-mod-k routing) and
// the crossbar. Routes are checked against the graph, the summary against brute force (BFS
// for hops, a maximum flow between the two halves for the bisection).
#include <catch2/catch.hpp>

#include <algorithm>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <functional>
#include <set>

#include "tests/support/graph_distances.hpp"
#include "tests/support/input_error.hpp"
#include "topologies/switched.hpp"
#include "topologies/topology.hpp"

using namespace torsim;
using topo::LinkId;
using topo::NodeId;
using topo::RouterId;
using test::bfs_distances;
using test::brute_force_hops;

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
    if (from_side(n)) pipe(source, vertex, unlimited);
    else pipe(vertex, sink, unlimited);
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
    CHECK(as_fat_tree(*t).shape().spines == 3);
    CHECK(t->rail_count() == 2);
    CHECK(t->node_count() == 24);
    CHECK(t->router_count() == 2 * (4 + 3));
    CHECK(t->summary().network_links == 2 * 2 * 4 * 3);
    CHECK(t->link_count() == 2 * 2 * 4 * 3 + 2 * 2 * 24);
  }
  SECTION("ceil rounds up a fraction and does not round up an exact quotient") {
    CHECK(as_fat_tree(*build(fat_tree_spec(2, 5, 2.0))).shape().spines == 3);
    CHECK(as_fat_tree(*build(fat_tree_spec(2, 21, 1.4))).shape().spines == 15);  // 21 / 1.4 is not 15 in doubles
    CHECK(as_fat_tree(*build(fat_tree_spec(2, 4, 64.0))).shape().spines == 1);
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
  for (const auto& spec : {fat_tree_spec(4, 4), fat_tree_spec(3, 5, 2.5, 2), fat_tree_spec(1, 6, 1.0, 2),
                           fat_tree_spec(5, 3, 3.0)}) {
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
  const int routers_per_rail = tree.shape().leaves + tree.shape().spines;
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

TEST_CASE("fat tree next_hops climbs to a spine and comes down", "[topology]") {
  auto t = build(fat_tree_spec(3, 4, 2.0, 2));  // per rail: leaves 0-2, spines 3-4
  std::vector<LinkId> options;
  t->next_hops(0, 2, options);
  REQUIRE(options.size() == 1);
  CHECK(t->link(options[0]).to == 3 + 2 % 2);
  t->next_hops(t->link(options[0]).to, 2, options);
  REQUIRE(options.size() == 1);
  CHECK(t->link(options[0]).to == 2);
  t->next_hops(3, 4, options);  // spine to spine: down to a leaf first
  REQUIRE(options.size() == 1);
  t->next_hops(t->link(options[0]).to, 4, options);
  CHECK(t->link(options[0]).to == 4);
  t->next_hops(6, 6, options);
  CHECK(options.empty());
  CHECK_THROWS_AS(t->next_hops(0, 5 + 2, options), std::logic_error);  // rails share no switch
}

TEST_CASE("fat tree summary matches brute force", "[topology]") {
  for (const auto& spec : {fat_tree_spec(4, 4), fat_tree_spec(3, 5, 2.5, 2), fat_tree_spec(1, 6), fat_tree_spec(6, 1)}) {
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
      {fat_tree_spec(3, 4, 2.0), 10 * kGB, 10 * kGB, 1 * 1 * 2 * 5 * kGB},                 // odd leaves
      {fat_tree_spec(3, 2, 1.0, 1, "50GB/s"), 10 * kGB, 10 * kGB, 1 * 1 * 2 * 10 * kGB},   // odd, nodes limit
      {fat_tree_spec(4, 2, 1.0, 1, "50GB/s"), 10 * kGB, 3 * kGB, 2 * 2 * 3 * kGB},         // ejection limits
      {fat_tree_spec(1, 6, 1.0, 2), 10 * kGB, 10 * kGB, 2 * 3 * 10 * kGB},                 // one leaf: split its nodes
  };
  for (const auto& c : cases) {
    INFO(c.spec.dump());
    auto t = build(c.spec, c.injection, c.ejection);
    const auto& shape = as_fat_tree(*t).shape();
    const auto first_half = [&](NodeId n) {
      return shape.leaves > 1 ? n / shape.nodes_per_leaf < shape.leaves / 2 : n < shape.nodes_per_leaf / 2;
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
    const InputError e = test::input_error_of([&] { build(fat_tree_spec(1024, 1024, 1.0, 2, "10000GB/s"), fast, fast); });
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
  SECTION("a misspelt type") {
    expect_rejected({{"type", "fat-tree"}}, top + "/type", "did you mean 'fat_tree'");
  }
}
