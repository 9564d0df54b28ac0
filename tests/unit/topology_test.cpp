#include <catch2/catch.hpp>

#include <boost/graph/breadth_first_search.hpp>
#include <functional>

#include "tests/support/fixtures.hpp"
#include "topologies/switched.hpp"
#include "topologies/torus.hpp"

using namespace torsim;
using namespace torsim::test;
using topo::LinkId;
using topo::NodeId;

namespace {

std::unique_ptr<topo::Topology> build(const Json& topology, const std::string& injection = "10GB/s") {
  return topo::make_topology(topology, Where("t.json", "/machine/topology"),
                             {*parse_quantity(injection, Quantity::rate, "GB/s"), *parse_quantity(injection, Quantity::rate, "GB/s")});
}

Json dims_json(const std::vector<std::tuple<int, bool, std::string>>& dims) {
  Json out = Json::array();
  for (const auto& [size, wrap, bw] : dims)
    out.push_back({{"size", size}, {"wrap", wrap}, {"link_bandwidth", bw}, {"link_latency", "100ns"}});
  return out;
}

Json torus(const std::vector<std::tuple<int, bool, std::string>>& dims, int concentration = 1,
           const std::string& routing = "dimension_order") {
  return {{"type", "torus"}, {"dims", dims_json(dims)}, {"concentration", concentration}, {"routing", routing}};
}

// Router-to-router distances from `from` by breadth-first search over the graph's network links.
std::vector<int> bfs_distances(const topo::Topology& t, topo::RouterId from) {
  std::vector<int> distance(static_cast<std::size_t>(t.router_count()), -1);
  std::vector<topo::RouterId> queue{from};
  distance[static_cast<std::size_t>(from)] = 0;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    for (const auto& e : boost::make_iterator_range(boost::out_edges(queue[i], t.graph()))) {
      const auto& link = t.link(t.graph()[e].link);
      if (link.kind != topo::LinkKind::network) continue;
      if (distance[static_cast<std::size_t>(link.to)] >= 0) continue;
      distance[static_cast<std::size_t>(link.to)] = distance[static_cast<std::size_t>(queue[i])] + 1;
      queue.push_back(link.to);
    }
  }
  return distance;
}

// Every ordered pair: the route chains through the graph from the source's injection link to
// the destination's ejection link, and has as many network hops as BFS says is minimal.
void check_all_routes(const topo::Topology& t) {
  std::vector<LinkId> route;
  for (NodeId src = 0; src < t.node_count(); ++src) {
    const auto distance = bfs_distances(t, t.router_of(src));
    for (NodeId dst = 0; dst < t.node_count(); ++dst) {
      t.route(src, dst, route);
      if (src == dst) {
        REQUIRE(route.empty());
        continue;
      }
      INFO(src << " -> " << dst);
      REQUIRE(route.size() >= 2);
      REQUIRE(t.link(route.front()).kind == topo::LinkKind::injection);
      REQUIRE(t.link(route.front()).from == t.router_count() + src);
      REQUIRE(t.link(route.back()).kind == topo::LinkKind::ejection);
      REQUIRE(t.link(route.back()).to == t.router_count() + dst);
      for (std::size_t i = 1; i < route.size(); ++i) REQUIRE(t.link(route[i - 1]).to == t.link(route[i]).from);
      const int network_hops = static_cast<int>(route.size()) - 2;
      REQUIRE(network_hops == distance[static_cast<std::size_t>(t.router_of(dst))]);
      REQUIRE(t.hops(src, dst) == network_hops);
    }
  }
}

// Diameter and mean hops over ordered pairs of distinct nodes, by brute force.
std::pair<int, double> brute_force_hops(const topo::Topology& t) {
  int diameter = 0;
  double sum = 0;
  for (NodeId a = 0; a < t.node_count(); ++a) {
    const auto distance = bfs_distances(t, t.router_of(a));
    for (NodeId b = 0; b < t.node_count(); ++b) {
      if (a == b) continue;
      const int d = distance[static_cast<std::size_t>(t.router_of(b))];
      diameter = std::max(diameter, d);
      sum += d;
    }
  }
  const double pairs = static_cast<double>(t.node_count()) * (t.node_count() - 1);
  return {diameter, sum / pairs};
}

// Bandwidth of the links crossing from one side to the other, one direction, when `side`
// splits the routers.
Rate cut_bandwidth(const topo::Topology& t, const std::function<bool(topo::RouterId)>& first_half) {
  Rate total = 0;
  for (const auto& link : t.links())
    if (link.kind == topo::LinkKind::network && first_half(link.from) && !first_half(link.to)) total += link.bandwidth;
  return total;
}

InputError build_error(const Json& topology) {
  try {
    build(topology);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  return InputError("", "", "");
}

}  // namespace

TEST_CASE("torus hop counts and wrap-around", "[topology]") {
  auto ring = build(torus({{8, true, "1GB/s"}}));
  CHECK(ring->hops(0, 7) == 1);  // the wrap link
  CHECK(ring->hops(0, 3) == 3);
  CHECK(ring->hops(0, 5) == 3);  // backwards through the wrap
  auto line = build(torus({{8, false, "1GB/s"}}));
  CHECK(line->hops(0, 7) == 7);
  auto t3 = build(torus({{4, true, "1GB/s"}, {3, true, "1GB/s"}, {5, true, "1GB/s"}}));
  // Node (1,2,3) is 1 + 4*2 + 12*3 = 45; from (0,0,0): 1 + 1 + 2 hops.
  CHECK(t3->hops(0, 45) == 4);
  CHECK(t3->node_label(45) == "(1,2,3)/0");
}

TEST_CASE("the half-way tie goes in the + direction", "[topology]") {
  auto ring = build(torus({{8, true, "1GB/s"}}));
  std::vector<LinkId> route;
  ring->route(0, 4, route);
  REQUIRE(route.size() == 6);
  for (std::size_t i = 1; i + 1 < route.size(); ++i) CHECK(ring->link(route[i]).direction == +1);
  ring->route(4, 0, route);
  for (std::size_t i = 1; i + 1 < route.size(); ++i) CHECK(ring->link(route[i]).direction == +1);
  // Adaptive routing offers both directions at the tie.
  auto adaptive = build(torus({{8, true, "1GB/s"}}, 1, "minimal_adaptive"));
  std::vector<LinkId> options;
  adaptive->next_hops(0, 4, options);
  CHECK(options.size() == 2);
}

TEST_CASE("size-1 dimensions have no links and routes ignore them", "[topology]") {
  auto t = build(torus({{1, true, "1GB/s"}, {4, true, "1GB/s"}}));
  for (const auto& link : t->links()) CHECK(link.dim != 0);
  CHECK(t->summary().network_links == 4 * 2);
  CHECK(t->hops(0, 2) == 2);
  check_all_routes(*t);
}

TEST_CASE("a size-2 wrap dimension has two distinct links between the pair", "[topology]") {
  auto t = build(torus({{2, true, "1GB/s"}}));
  int from_0_to_1 = 0;
  for (const auto& link : t->links())
    if (link.kind == topo::LinkKind::network && link.from == 0 && link.to == 1) ++from_0_to_1;
  CHECK(from_0_to_1 == 2);
  std::vector<LinkId> route;
  t->route(0, 1, route);
  CHECK(t->link(route[1]).direction == +1);
  auto adaptive = build(torus({{2, true, "1GB/s"}}, 1, "minimal_adaptive"));
  std::vector<LinkId> options;
  adaptive->next_hops(0, 1, options);
  REQUIRE(options.size() == 2);
  CHECK(options[0] != options[1]);
  CHECK(adaptive->link(options[0]).to == adaptive->link(options[1]).to);
  // The mesh version has one link each way.
  auto mesh = build(torus({{2, false, "1GB/s"}}));
  CHECK(mesh->summary().network_links == 2);
}

TEST_CASE("every route is valid and minimal", "[topology]") {
  check_all_routes(*build(torus({{4, true, "1GB/s"}, {3, true, "2GB/s"}})));
  check_all_routes(*build(torus({{4, true, "1GB/s"}, {4, true, "2GB/s"}}, 2)));
  check_all_routes(*build(torus({{5, false, "1GB/s"}, {3, false, "2GB/s"}})));
  check_all_routes(*build(torus({{2, true, "1GB/s"}, {2, true, "1GB/s"}, {3, true, "1GB/s"}, {1, true, "1GB/s"},
                                 {2, true, "1GB/s"}})));
  check_all_routes(*build(torus({{6, true, "1GB/s"}, {2, false, "1GB/s"}}, 3)));
}

TEST_CASE("adaptive candidates each reduce the distance by one", "[topology]") {
  auto t = build(torus({{6, true, "1GB/s"}, {4, true, "1GB/s"}, {3, false, "1GB/s"}}, 1, "minimal_adaptive"));
  std::vector<LinkId> options;
  for (topo::RouterId at = 0; at < t->router_count(); ++at) {
    const auto distance = bfs_distances(*t, at);
    for (topo::RouterId dst = 0; dst < t->router_count(); ++dst) {
      t->next_hops(at, dst, options);
      const auto to_dst = bfs_distances(*t, dst);
      if (at == dst) CHECK(options.empty());
      for (LinkId l : options) CHECK(to_dst[static_cast<std::size_t>(t->link(l).to)] == to_dst[static_cast<std::size_t>(at)] - 1);
    }
    (void)distance;
  }
}

TEST_CASE("multiplicity gives parallel lanes", "[topology]") {
  Json spec = torus({{4, true, "1GB/s"}});
  spec["dims"][0]["links"] = 3;
  auto t = build(spec);
  CHECK(t->summary().network_links == 4 * 2 * 3);
  std::vector<LinkId> route;
  t->route(0, 1, route);
  const auto [first, count] = t->lanes(route[1]);
  CHECK(first == route[1]);
  CHECK(count == 3);
  for (int k = 0; k < count; ++k) CHECK(t->link(first + k).to == t->link(first).to);
  CHECK(t->summary().bisection_bandwidth == 1 * 2 * 3 * 1000000000LL);
}

TEST_CASE("summary figures match brute force", "[topology]") {
  for (const auto& spec : {torus({{4, true, "1GB/s"}, {3, true, "2GB/s"}}), torus({{5, false, "1GB/s"}, {4, true, "1GB/s"}}, 2),
                           torus({{2, true, "1GB/s"}, {3, true, "1GB/s"}, {1, true, "1GB/s"}, {4, false, "1GB/s"}})}) {
    auto t = build(spec);
    const auto [diameter, mean] = brute_force_hops(*t);
    CHECK(t->summary().diameter == diameter);
    CHECK(t->summary().average_hops == Approx(mean).epsilon(1e-12));
  }
}

TEST_CASE("bisection bandwidth matches the graph's cut and the closed form", "[topology]") {
  // 6x4x2 torus, X at 9.375 GB/s, Y at 4.68 GB/s, Z at 2 GB/s: cutting each dimension in half.
  auto t = build(torus({{6, true, "9.375GB/s"}, {4, true, "4.68GB/s"}, {2, true, "2GB/s"}}));
  auto* torus_topology = dynamic_cast<const topo::Torus*>(t.get());
  REQUIRE(torus_topology);
  std::vector<Rate> cuts;
  for (std::size_t d = 0; d < 3; ++d) {
    const int half = torus_topology->dims()[d].size / 2;
    cuts.push_back(cut_bandwidth(*t, [&](topo::RouterId r) { return torus_topology->coordinate(r, d) < half; }));
  }
  // Closed form per dimension: routers / size * 2 (wrap) * bandwidth.
  CHECK(cuts[0] == 48 / 6 * 2 * 9375000000LL);
  CHECK(cuts[1] == 48 / 4 * 2 * 4680000000LL);
  CHECK(cuts[2] == 48 / 2 * 2 * 2000000000LL);
  CHECK(t->summary().bisection_bandwidth == *std::min_element(cuts.begin(), cuts.end()));
  auto mesh = build(torus({{4, false, "1GB/s"}, {4, false, "1GB/s"}}));
  CHECK(mesh->summary().bisection_bandwidth == 4 * 1000000000LL);
}

TEST_CASE("bad shapes are rejected with a clear message", "[topology]") {
  auto expect = [](Json spec, const std::string& path, const std::string& text) {
    const auto e = build_error(spec);
    CHECK(e.file() == "t.json");
    CHECK(e.path() == path);
    CHECK_THAT(e.message(), Catch::Contains(text));
  };
  expect({{"type", "torus"}, {"dims", Json::array()}}, "/machine/topology/dims", "expected 1 to 6 dimensions");
  Json zero = torus({{4, true, "1GB/s"}});
  zero["dims"][0]["size"] = 0;
  expect(zero, "/machine/topology/dims/0/size", "expected a value in [1, 4096]");
  Json negative = torus({{4, true, "1GB/s"}});
  negative["dims"][0]["link_bandwidth"] = "-1GB/s";
  expect(negative, "/machine/topology/dims/0/link_bandwidth", "expected a rate");
  Json typo = torus({{4, true, "1GB/s"}});
  typo["dims"][0]["lnk_bandwidth"] = "1GB/s";
  expect(typo, "/machine/topology/dims/0/lnk_bandwidth", "did you mean 'link_bandwidth'");
  expect({{"type", "tours"}}, "/machine/topology/type", "valid values are: torus, mesh, fat_tree, crossbar");
  Json concentration = torus({{4, true, "1GB/s"}}, 0);
  expect(concentration, "/machine/topology/concentration", "expected a value in [1, 64]");
  Json huge = torus({{4096, true, "1GB/s"}, {4096, true, "1GB/s"}});
  expect(huge, "/machine/topology/dims", "at most 4,194,304 routers");
  Json routing = torus({{4, true, "1GB/s"}}, 1, "random");
  expect(routing, "/machine/topology/routing", "valid values are: dimension_order, minimal_adaptive");
  expect({{"type", "fat_tree"}, {"leaves", 2}, {"nodes_per_leaf", 4}, {"rails", 3}, {"link_bandwidth", "1GB/s"},
          {"link_latency", "100ns"}},
         "/machine/topology/rails", "expected a value in [1, 2]");
  expect({{"type", "fat_tree"}, {"leaves", 0}, {"nodes_per_leaf", 4}, {"link_bandwidth", "1GB/s"}, {"link_latency", "100ns"}},
         "/machine/topology/leaves", "expected a value in [1, 4096]");
}

TEST_CASE("fat tree routes, rails and bisection", "[topology]") {
  auto t = build({{"type", "fat_tree"}, {"leaves", 4}, {"nodes_per_leaf", 4}, {"oversubscription", 2.0}, {"rails", 2},
                  {"link_bandwidth", "5GB/s"}, {"link_latency", "100ns"}});
  auto* tree = dynamic_cast<const topo::FatTree*>(t.get());
  REQUIRE(tree);
  CHECK(tree->shape().spines == 2);
  std::vector<LinkId> route;
  for (NodeId src = 0; src < 16; ++src) {
    for (NodeId dst = 0; dst < 16; ++dst) {
      t->route(src, dst, route);
      if (src == dst) continue;
      REQUIRE(t->link(route.front()).from == t->router_count() + src);
      REQUIRE(t->link(route.back()).to == t->router_count() + dst);
      for (std::size_t i = 1; i < route.size(); ++i) REQUIRE(t->link(route[i - 1]).to == t->link(route[i]).from);
      CHECK(static_cast<int>(route.size()) - 2 == t->hops(src, dst));
      CHECK(t->link(route.front()).lane == (src + dst) % 2);  // the rail
    }
  }
  CHECK(t->hops(0, 3) == 0);
  CHECK(t->hops(0, 4) == 2);
  // Two rails x (2 leaves x 2 spines x 5 GB/s) of uplinks vs 8 nodes x 10 GB/s: uplinks win.
  CHECK(t->summary().bisection_bandwidth == 2 * 2 * 2 * 5000000000LL);
  CHECK(t->summary().diameter == 2);
  const auto [diameter, mean] = brute_force_hops(*t);
  CHECK(t->summary().average_hops == Approx(mean));
}

TEST_CASE("crossbar routes through its one switch", "[topology]") {
  auto t = build({{"type", "crossbar"}, {"nodes", 8}, {"link_latency", "200ns"}}, "2GB/s");
  std::vector<LinkId> route;
  t->route(1, 6, route);
  REQUIRE(route.size() == 2);
  CHECK(t->link(route[0]).latency == 200 * kNanosecond);
  CHECK(t->hops(1, 6) == 0);
  CHECK(t->summary().bisection_bandwidth == 4 * 2000000000LL);
  check_all_routes(*t);
}
