// Torus and mesh topologies: hop counts, the tie rule, size-1 and size-2 dimensions, route
// validity and minimality against breadth-first search, summary figures against brute force,
// and rejection of impossible shapes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <numeric>

#include "tests/support/graph_distances.hpp"
#include "tests/support/input_error.hpp"
#include "topologies/topology.hpp"
#include "topologies/torus.hpp"

using namespace torsim;
using test::bfs_distances;
using test::brute_force_hops;
using topo::LinkId;
using topo::NodeId;
using topo::RouterId;

namespace {

constexpr Rate kGB = 1000000000;

struct Dim {
  int size;
  bool wrap = true;
  std::string bandwidth = "1GB/s";
  int links = 1;
};

Json torus_spec(const std::vector<Dim>& dims, int concentration = 1, const std::string& routing = "dimension_order") {
  Json list = Json::array();
  for (const auto& d : dims)
    list.push_back({{"size", d.size},
                    {"wrap", d.wrap},
                    {"link_bandwidth", d.bandwidth},
                    {"link_latency", "100ns"},
                    {"links", d.links}});
  return {{"type", "torus"}, {"dims", list}, {"concentration", concentration}, {"routing", routing}};
}

std::unique_ptr<topo::Topology> build(const Json& spec) {
  return topo::make_topology(spec, Where("m.json", "/machine/topology"), {10 * kGB, 10 * kGB});
}

// The documented numbering, computed independently: dimension 0 varies fastest.
int coordinate_of(RouterId r, const std::vector<Dim>& dims, std::size_t d) {
  int stride = 1;
  for (std::size_t i = 0; i < d; ++i) stride *= dims[i].size;
  return r / stride % dims[d].size;
}

int at(const std::vector<int>& v, RouterId r) { return v[static_cast<std::size_t>(r)]; }

std::vector<RouterId> routers_along(const topo::Topology& t, const std::vector<LinkId>& route) {
  std::vector<RouterId> out;
  for (std::size_t i = 1; i < route.size(); ++i) out.push_back(t.link(route[i]).from);
  return out;
}

// Every ordered pair of nodes: the route chains from the source's injection link to the
// destination's ejection link through the graph, and is as short as BFS allows.
void check_all_routes(const topo::Topology& t) {
  std::vector<LinkId> route;
  for (NodeId src = 0; src < t.node_count(); ++src) {
    const auto distance = bfs_distances(t, t.router_of(src));
    for (NodeId dst = 0; dst < t.node_count(); ++dst) {
      INFO(t.node_label(src) << " -> " << t.node_label(dst));
      t.route(src, dst, route);
      if (src == dst) {
        REQUIRE(route.empty());
        continue;
      }
      REQUIRE(route.size() >= 2);
      REQUIRE(route.front() == t.injection_link(src));
      REQUIRE(t.link(route.front()).from == t.router_count() + src);
      REQUIRE(route.back() == t.ejection_link(dst));
      REQUIRE(t.link(route.back()).to == t.router_count() + dst);
      for (std::size_t i = 1; i < route.size(); ++i) REQUIRE(t.link(route[i - 1]).to == t.link(route[i]).from);
      for (std::size_t i = 1; i + 1 < route.size(); ++i) REQUIRE(t.link(route[i]).kind == topo::LinkKind::network);
      const int network_hops = static_cast<int>(route.size()) - 2;
      REQUIRE(network_hops == at(distance, t.router_of(dst)));
      REQUIRE(t.hops(src, dst) == network_hops);
    }
  }
}

// Bandwidth of the graph's links leaving the half of dimension d with coordinates < size/2.
Rate cut_bandwidth(const topo::Topology& t, const std::vector<Dim>& dims, std::size_t d) {
  auto low_half = [&](std::int32_t vertex) { return coordinate_of(vertex, dims, d) < dims[d].size / 2; };
  Rate total = 0;
  for (const auto& e : boost::make_iterator_range(boost::edges(t.graph()))) {
    const auto& link = t.link(t.graph()[e].link);
    if (link.kind != topo::LinkKind::network) continue;
    if (low_half(link.from) && !low_half(link.to)) total += link.bandwidth;
  }
  return total;
}

void expect_rejected(const Json& spec, const std::string& path, const std::string& message) {
  const InputError e = test::input_error_of([&] { build(spec); });
  CHECK(e.file() == "m.json");
  CHECK(e.path() == path);
  CHECK_THAT(e.message(), Catch::Contains(message));
}

}  // namespace

TEST_CASE("torus and mesh hop counts match hand-computed values", "[topology]") {
  SECTION("a ring of 8: 0 -> 7 is one hop through the wrap link, 7 on a line") {
    CHECK(build(torus_spec({{8, true}}))->hops(0, 7) == 1);
    CHECK(build(torus_spec({{8, false}}))->hops(0, 7) == 7);
    CHECK(build(torus_spec({{8, true}}))->hops(2, 7) == 3);  // backwards through the wrap
    CHECK(build(torus_spec({{8, false}}))->hops(2, 7) == 5);
  }
  SECTION("the wrap hop from 0 to k-1 goes in the - direction") {
    auto ring = build(torus_spec({{8, true}}));
    std::vector<LinkId> route;
    ring->route(0, 7, route);
    REQUIRE(route.size() == 3);
    CHECK(ring->link(route[1]).direction == -1);
    CHECK(ring->link(route[1]).from == 0);
    CHECK(ring->link(route[1]).to == 7);
  }
  SECTION("5x4x3 torus and mesh: per-dimension distances add up") {
    // Router (4,3,2) is 4 + 5*3 + 20*2 = 59. Torus: 1 + 1 + 1 hops; mesh: 4 + 3 + 2.
    CHECK(build(torus_spec({{5, true}, {4, true}, {3, true}}))->hops(0, 59) == 3);
    CHECK(build(torus_spec({{5, false}, {4, false}, {3, false}}))->hops(0, 59) == 9);
    // (1,2,1) = 1 + 10 + 20 = 31 to (3,0,2) = 3 + 0 + 40 = 43: torus 2 + 2 + 1, mesh 2 + 2 + 1.
    CHECK(build(torus_spec({{5, true}, {4, true}, {3, true}}))->hops(31, 43) == 5);
    CHECK(build(torus_spec({{5, false}, {4, false}, {3, false}}))->hops(31, 43) == 5);
  }
  SECTION("a mesh type defaults to no wrap, a torus type to wrap") {
    Json mesh = {{"type", "mesh"}, {"dims", {{{"size", 6}, {"link_bandwidth", "1GB/s"}, {"link_latency", "1ns"}}}}};
    CHECK(build(mesh)->hops(0, 5) == 5);
    mesh["type"] = "torus";
    CHECK(build(mesh)->hops(0, 5) == 1);
  }
}

TEST_CASE("nodes sit concentration to a router, dimension 0 varying fastest", "[topology]") {
  auto t = build(torus_spec({{3, true}, {2, true}, {4, true}}, 2));
  CHECK(t->router_count() == 24);
  CHECK(t->node_count() == 48);
  CHECK(t->router_of(0) == 0);
  CHECK(t->router_of(1) == 0);
  CHECK(t->router_of(7) == 3);
  CHECK(t->node_label(7) == "(0,1,0)/1");   // router 3 = (0,1,0), slot 1
  CHECK(t->node_label(46) == "(2,1,3)/0");  // router 23 = 2 + 3*1 + 6*3
  CHECK(t->hops(0, 1) == 0);                // same router
  std::vector<LinkId> route;
  t->route(0, 1, route);
  CHECK(route == std::vector<LinkId>{t->injection_link(0), t->ejection_link(1)});
  t->route(5, 5, route);
  CHECK(route.empty());
}

TEST_CASE("dimension-order routes finish dimension 0 before moving along dimension 1", "[topology]") {
  auto t = build(torus_spec({{5, true}, {4, false}, {3, true}}));
  std::vector<LinkId> route;
  for (NodeId src = 0; src < t->node_count(); ++src)
    for (NodeId dst = 0; dst < t->node_count(); ++dst) {
      t->route(src, dst, route);
      for (std::size_t i = 2; i + 1 < route.size(); ++i) REQUIRE(t->link(route[i - 1]).dim <= t->link(route[i]).dim);
    }
  // (0,0,0) -> (2,3,1): X+ X+, Y+ Y+ Y+, Z+.
  t->route(0, 2 + 5 * 3 + 20 * 1, route);
  std::vector<int> dims;
  for (std::size_t i = 1; i + 1 < route.size(); ++i) dims.push_back(t->link(route[i]).dim);
  CHECK(dims == std::vector<int>{0, 0, 1, 1, 1, 2});
}

TEST_CASE("tie rule plus (the default): an offset of exactly k/2 on a wrap ring goes in the + direction",
          "[topology]") {
  auto ring = build(torus_spec({{6, true}}));
  std::vector<LinkId> route;
  SECTION("0 -> 3 runs 0, 1, 2 on + links") {
    ring->route(0, 3, route);
    REQUIRE(route.size() == 5);
    CHECK(routers_along(*ring, route) == std::vector<RouterId>{0, 1, 2, 3});
    for (std::size_t i = 1; i + 1 < route.size(); ++i) CHECK(ring->link(route[i]).direction == +1);
  }
  SECTION("3 -> 0 also goes +, through the wrap: 3, 4, 5, 0") {
    ring->route(3, 0, route);
    CHECK(routers_along(*ring, route) == std::vector<RouterId>{3, 4, 5, 0});
    for (std::size_t i = 1; i + 1 < route.size(); ++i) CHECK(ring->link(route[i]).direction == +1);
  }
  SECTION("deterministic next_hops follows the same + link") {
    std::vector<LinkId> options;
    ring->next_hops(0, 3, options);
    REQUIRE(options.size() == 1);
    CHECK(ring->link(options[0]).direction == +1);
  }
  SECTION("adaptive routing offers both directions, + first") {
    auto adaptive = build(torus_spec({{6, true}}, 1, "minimal_adaptive"));
    std::vector<LinkId> options;
    adaptive->next_hops(0, 3, options);
    REQUIRE(options.size() == 2);
    CHECK(adaptive->link(options[0]).direction == +1);
    CHECK(adaptive->link(options[1]).direction == -1);
  }
}

namespace {
// The direction of the route's hops along dimension `dim` (0: none).
int direction_along(const topo::Topology& t, const std::vector<LinkId>& route, int dim) {
  for (LinkId l : route)
    if (t.link(l).dim == dim) return t.link(l).direction;
  return 0;
}
Json with_ties(Json spec, const char* ties) {
  spec["ties"] = ties;
  return spec;
}
}  // namespace

TEST_CASE("tie policies: by coordinate parity, by the parity of the coordinates' sum, or drawn", "[topology]") {
  const std::vector<Dim> shape{{8, true}, {8, true}};  // router r = x + 8 y
  std::vector<LinkId> route;
  SECTION("coordinate_parity: + from an even coordinate along the dimension, - from an odd one") {
    auto t = build(with_ties(torus_spec(shape), "coordinate_parity"));
    t->route(2 + 8 * 1, 6 + 8 * 5, route);  // x 2 -> 6 and y 1 -> 5: both ties
    CHECK(direction_along(*t, route, 0) == +1);
    CHECK(direction_along(*t, route, 1) == -1);
    t->route(3, 7, route);
    CHECK(direction_along(*t, route, 0) == -1);
    t->route(3, 5, route);  // no tie: the shorter way, whatever the parity
    CHECK(direction_along(*t, route, 0) == +1);
    CHECK_FALSE(t->draws_routes());
  }
  SECTION("coordinate_sum_parity: every tie of a route goes the way its source's coordinate sum says") {
    auto t = build(with_ties(torus_spec(shape), "coordinate_sum_parity"));
    t->route(2 + 8 * 1, 6 + 8 * 5, route);  // 2 + 1 odd: both -
    CHECK(direction_along(*t, route, 0) == -1);
    CHECK(direction_along(*t, route, 1) == -1);
    t->route(3 + 8 * 1, 7 + 8 * 5, route);  // 3 + 1 even: both +
    CHECK(direction_along(*t, route, 0) == +1);
    CHECK(direction_along(*t, route, 1) == +1);
  }
  SECTION("random: a draw's bit per dimension picks the direction; route() fixes one per pair") {
    auto t = build(with_ties(torus_spec(shape), "random"));
    CHECK(t->draws_routes());
    t->route_drawn(0, 4 + 8 * 4, 0b01, route);
    CHECK(direction_along(*t, route, 0) == +1);
    CHECK(direction_along(*t, route, 1) == -1);
    t->route_drawn(0, 4 + 8 * 4, 0b10, route);
    CHECK(direction_along(*t, route, 0) == -1);
    CHECK(direction_along(*t, route, 1) == +1);
    std::vector<LinkId> again;
    t->route(0, 4 + 8 * 4, route);
    t->route(0, 4 + 8 * 4, again);
    CHECK(route == again);
    int plus = 0;  // the pairs' fixed draws go both ways
    for (int dst = 0; dst < 8; ++dst) {
      t->route(dst, (dst + 4) % 8, route);
      plus += direction_along(*t, route, 0) > 0;
    }
    CHECK(plus > 0);
    CHECK(plus < 8);
    CHECK_FALSE(build(with_ties(torus_spec({{7, true}}), "random"))->draws_routes());  // no ties on odd rings
  }
  SECTION("every policy keeps routes minimal") {
    for (const char* ties : {"plus", "random", "coordinate_parity", "coordinate_sum_parity"}) {
      auto t = build(with_ties(torus_spec(shape), ties));
      for (NodeId src = 0; src < 64; ++src)
        for (NodeId dst = 0; dst < 64; ++dst) {
          t->route(src, dst, route);
          CHECK(route.size() == (src == dst ? 0 : static_cast<std::size_t>(t->hops(src, dst)) + 2));
        }
    }
  }
}

TEST_CASE("torus: size-1 dimensions have no links and routes skip them", "[topology]") {
  const std::vector<Dim> dims{{3, true}, {1, true}, {4, true}};
  auto t = build(torus_spec(dims));
  for (const auto& link : t->links()) CHECK(link.dim != 1);
  CHECK(t->summary().network_links == 12 * 2 * 2);
  CHECK(t->hops(0, 3 * 2) == 2);  // (0,0,0) -> (0,0,2)
  check_all_routes(*t);
  CHECK(t->summary().bisection_bandwidth == std::min(cut_bandwidth(*t, dims, 0), cut_bandwidth(*t, dims, 2)));
}

TEST_CASE("a size-2 wrap dimension has two distinct links in each direction of travel", "[topology]") {
  auto t = build(torus_spec({{2, true}}));
  std::vector<LinkId> zero_to_one;
  for (LinkId l = 0; l < t->link_count(); ++l)
    if (t->link(l).kind == topo::LinkKind::network && t->link(l).from == 0 && t->link(l).to == 1)
      zero_to_one.push_back(l);
  REQUIRE(zero_to_one.size() == 2);
  CHECK(t->link(zero_to_one[0]).direction != t->link(zero_to_one[1]).direction);
  CHECK(t->summary().network_links == 4);

  std::vector<LinkId> route;
  t->route(0, 1, route);
  REQUIRE(route.size() == 3);
  CHECK(t->link(route[1]).direction == +1);

  auto adaptive = build(torus_spec({{2, true}}, 1, "minimal_adaptive"));
  std::vector<LinkId> options;
  adaptive->next_hops(0, 1, options);
  REQUIRE(options.size() == 2);
  CHECK(options[0] != options[1]);
  for (LinkId l : options) CHECK(adaptive->link(l).to == 1);

  auto mesh = build(torus_spec({{2, false}}));
  CHECK(mesh->summary().network_links == 2);
  CHECK(mesh->summary().bisection_bandwidth == 1 * kGB);
  CHECK(t->summary().bisection_bandwidth == 2 * kGB);
}

TEST_CASE("every route is valid and minimal on small shapes", "[topology]") {
  SECTION("4x3 torus") { check_all_routes(*build(torus_spec({{4, true}, {3, true, "2GB/s"}}))); }
  SECTION("4x4 torus, two nodes per router") { check_all_routes(*build(torus_spec({{4, true}, {4, true}}, 2))); }
  SECTION("5x3 mesh") { check_all_routes(*build(torus_spec({{5, false}, {3, false}}))); }
  SECTION("5-D 2x2x3x2x2 torus") {
    check_all_routes(*build(torus_spec({{2, true}, {2, true}, {3, true}, {2, true}, {2, true}})));
  }
  SECTION("5-D 2x2x3x1x2 torus with a size-1 dimension") {
    check_all_routes(*build(torus_spec({{2, true}, {2, true}, {3, true}, {1, true}, {2, true}})));
  }
  SECTION("mixed wrap, three nodes per router, two lanes") {
    check_all_routes(*build(torus_spec({{6, true, "1GB/s", 2}, {3, false}}, 3)));
  }
  SECTION("adaptive topologies still give a minimal deterministic route") {
    check_all_routes(*build(torus_spec({{5, true}, {4, true}}, 1, "minimal_adaptive")));
  }
}

TEST_CASE("deterministic next_hops walks the route", "[topology]") {
  auto t = build(torus_spec({{6, true}, {3, false}, {4, true}}, 2));
  std::vector<LinkId> route, options;
  for (NodeId src = 0; src < t->node_count(); src += 3)
    for (NodeId dst = 0; dst < t->node_count(); dst += 5) {
      t->route(src, dst, route);
      if (route.empty()) continue;
      RouterId here = t->router_of(src);
      for (std::size_t i = 1; i + 1 < route.size(); ++i) {
        t->next_hops(here, t->router_of(dst), options);
        REQUIRE(options == std::vector<LinkId>{route[i]});
        here = t->link(route[i]).to;
      }
      t->next_hops(here, t->router_of(dst), options);
      CHECK(options.empty());
    }
}

TEST_CASE("adaptive next_hops: every candidate is productive, all of them are offered", "[topology]") {
  const std::vector<Dim> dims{{6, true}, {4, true}, {3, false}, {2, true}};
  auto t = build(torus_spec(dims, 1, "minimal_adaptive"));
  REQUIRE(t->routing() == topo::Routing::minimal_adaptive);
  std::vector<LinkId> options;
  for (RouterId dst = 0; dst < t->router_count(); ++dst) {
    const auto to_dst = bfs_distances(*t, dst);  // symmetric shapes: distance to dst == from dst
    for (RouterId here = 0; here < t->router_count(); ++here) {
      t->next_hops(here, dst, options);
      if (here == dst) CHECK(options.empty());
      int productive = 0;
      for (const auto& e : boost::make_iterator_range(boost::out_edges(static_cast<std::size_t>(here), t->graph()))) {
        const auto& link = t->link(t->graph()[e].link);
        if (link.kind == topo::LinkKind::network && link.lane == 0 && at(to_dst, link.to) == at(to_dst, here) - 1)
          ++productive;
      }
      CHECK(static_cast<int>(options.size()) == productive);
      for (std::size_t i = 0; i < options.size(); ++i) {
        const auto& link = t->link(options[i]);
        CHECK(link.from == here);
        CHECK(link.lane == 0);
        CHECK(at(to_dst, link.to) == at(to_dst, here) - 1);
        if (i > 0)
          CHECK(std::pair(t->link(options[i - 1]).dim, -t->link(options[i - 1]).direction) <
                std::pair(link.dim, -link.direction));  // by dimension, then + before -
      }
    }
  }
}

TEST_CASE("multiplicity: parallel lanes with consecutive ids", "[topology]") {
  auto t = build(torus_spec({{4, true, "1GB/s", 3}, {3, false}}));
  CHECK(t->has_lanes());
  CHECK_FALSE(build(torus_spec({{4, true}}))->has_lanes());
  CHECK(t->summary().network_links == 12 * 2 * 3 + 4 * 2 * 2);
  std::vector<LinkId> route;
  t->route(0, 1, route);
  REQUIRE(route.size() == 3);
  CHECK(t->link(route[1]).lane == 0);
  const auto [first, count] = t->lanes(route[1]);
  CHECK(first == route[1]);
  REQUIRE(count == 3);
  for (int k = 0; k < count; ++k) {
    CHECK(t->link(first + k).from == 0);
    CHECK(t->link(first + k).to == 1);
    CHECK(t->link(first + k).lane == k);
    CHECK(t->lanes(first + k) == std::pair<LinkId, int>{first, 3});
  }
  CHECK(t->lanes(t->injection_link(0)) == std::pair<LinkId, int>{t->injection_link(0), 1});
}

TEST_CASE("links carry their dimension's bandwidth and latency; node links have none", "[topology]") {
  Json spec = torus_spec({{4, true, "9.375GB/s"}, {3, true, "4.68GB/s"}});
  spec["dims"][1]["link_latency"] = "105ns";
  auto t = topo::make_topology(spec, Where("m.json"), {20 * kGB, 30 * kGB});
  for (const auto& link : t->links()) {
    if (link.kind == topo::LinkKind::network) {
      CHECK(link.bandwidth == (link.dim == 0 ? 9375000000 : 4680000000));
      CHECK(link.latency == (link.dim == 0 ? 100 : 105) * kNanosecond);
    } else {
      CHECK(link.latency == 0);
      CHECK(link.bandwidth == (link.kind == topo::LinkKind::injection ? 20 * kGB : 30 * kGB));
    }
  }
}

TEST_CASE("torus summary figures match brute force over all node pairs", "[topology]") {
  const std::vector<std::pair<std::vector<Dim>, int>> shapes{
      {{{4, true}, {3, true}}, 1},
      {{{5, false}, {4, true}}, 2},
      {{{2, true}, {3, true}, {1, true}, {4, false}}, 1},
      {{{6, true}, {2, false}}, 3},
      {{{1, true}}, 4},
  };
  for (const auto& [dims, concentration] : shapes) {
    auto t = build(torus_spec(dims, concentration));
    const auto s = t->summary();
    const auto brute = brute_force_hops(*t);
    INFO(t->describe().dump());
    CHECK(s.nodes == t->node_count());
    CHECK(s.routers == t->router_count());
    CHECK(s.network_links == std::count_if(t->links().begin(), t->links().end(),
                                           [](const auto& l) { return l.kind == topo::LinkKind::network; }));
    CHECK(s.diameter == brute.diameter);
    CHECK(s.average_hops == Approx(brute.average).epsilon(1e-12));
  }
}

TEST_CASE("torus bisection matches the graph's cut along the largest dimension and the closed form", "[topology]") {
  SECTION("6x4x2 torus, a different bandwidth in each dimension") {
    const std::vector<Dim> dims{{6, true, "9.375GB/s"}, {4, true, "4.68GB/s"}, {2, true, "2GB/s"}};
    auto t = build(torus_spec(dims));
    // Largest dimension X: 48 / 6 = 8 rings, each crossing the cut twice.
    CHECK(cut_bandwidth(*t, dims, 0) == 8 * 2 * 9375000000);
    CHECK(cut_bandwidth(*t, dims, 1) == 12 * 2 * 4680000000);
    CHECK(cut_bandwidth(*t, dims, 2) == 24 * 2 * 2 * kGB);
    CHECK(t->summary().bisection_bandwidth == 24 * 2 * 2 * kGB);  // Z is the weakest, not the largest X
  }
  SECTION("a mesh crosses once per line; multiplicity multiplies") {
    const std::vector<Dim> dims{{8, false, "1GB/s", 2}, {4, false, "3GB/s"}};
    auto t = build(torus_spec(dims));
    CHECK(cut_bandwidth(*t, dims, 0) == 4 * 1 * 2 * kGB);
    CHECK(cut_bandwidth(*t, dims, 1) == 8 * 1 * 3 * kGB);
    CHECK(t->summary().bisection_bandwidth == 8 * kGB);
  }
  SECTION("odd sizes cut into floor and ceil halves") {
    const std::vector<Dim> dims{{5, true}, {3, false, "2GB/s"}};
    auto t = build(torus_spec(dims));
    CHECK(cut_bandwidth(*t, dims, 0) == 3 * 2 * kGB);
    CHECK(t->summary().bisection_bandwidth == std::min(cut_bandwidth(*t, dims, 0), cut_bandwidth(*t, dims, 1)));
  }
}

TEST_CASE("summary of a Mira-sized torus comes from closed forms", "[topology]") {
  Json spec = torus_spec(
      {{8, true, "2GB/s"}, {12, true, "2GB/s"}, {16, true, "2GB/s"}, {16, true, "2GB/s"}, {2, true, "2GB/s"}});
  auto t = build(spec);
  const auto s = t->summary();
  CHECK(s.routers == 49152);
  CHECK(s.network_links == 49152 * 10);
  CHECK(s.diameter == 4 + 6 + 8 + 8 + 1);
  // Mean ring distance on an even ring of k is k/4; over distinct nodes, scaled by n/(n-1).
  const double n = 49152;
  CHECK(s.average_hops == Approx((2 + 3 + 4 + 4 + 0.5) * n / (n - 1)).epsilon(1e-12));
  CHECK(s.bisection_bandwidth == 49152 / 16 * 2 * 2 * kGB);
}

TEST_CASE("torus describe lists the dimensions, concentration and routing", "[topology]") {
  Json spec = torus_spec({{4, true, "9.375GB/s", 2}, {3, false}}, 2, "minimal_adaptive");
  spec["dims"][0]["name"] = "X";
  const Json d = build(spec)->describe();
  CHECK(d["type"] == "torus");
  CHECK(d["concentration"] == 2);
  CHECK(d["routing"] == "minimal_adaptive");
  REQUIRE(d["dims"].size() == 2);
  CHECK(d["dims"][0]["name"] == "X");
  CHECK(d["dims"][0]["size"] == 4);
  CHECK(d["dims"][0]["links"] == 2);
  CHECK(d["dims"][0]["link_bandwidth_Bps"] == 9375000000);
  CHECK(d["dims"][0]["link_latency_ps"] == 100000);
  CHECK(d["dims"][1]["name"] == "d1");
  CHECK(d["dims"][1]["wrap"] == false);
}

TEST_CASE("impossible torus shapes are rejected with the path and what was expected", "[topology]") {
  const std::string dims = "/machine/topology/dims";
  SECTION("no dimensions, or seven") {
    expect_rejected({{"type", "torus"}, {"dims", Json::array()}}, dims, "expected 1 to 6 dimensions, got 0");
    expect_rejected(torus_spec(std::vector<Dim>(7, Dim{2})), dims, "expected 1 to 6 dimensions, got 7");
    expect_rejected({{"type", "torus"}}, "/machine/topology", "missing required key 'dims'");
  }
  SECTION("size 0 or not an integer") {
    Json spec = torus_spec({{4}});
    spec["dims"][0]["size"] = 0;
    expect_rejected(spec, dims + "/0/size", "expected a value in [1, 4096]");
    spec["dims"][0]["size"] = 2.5;
    expect_rejected(spec, dims + "/0/size", "expected an integer");
  }
  SECTION("a bisection that does not fit a 64-bit rate") {
    // 8^6 routers, 16 lanes at 10 TB/s: every half-cut carries 32768 x 2 x 16 x 1e13 B/s > 2^63.
    // Rejected before any link is built (built, it would take gigabytes).
    const Dim fat{8, true, "10000GB/s", 16};
    expect_rejected(torus_spec(std::vector<Dim>(6, fat)), dims, "does not fit a 64-bit rate");
  }
}

TEST_CASE("out-of-range torus values are rejected with the path and what was expected", "[topology]") {
  const std::string dims = "/machine/topology/dims";
  SECTION("negative bandwidth or latency") {
    Json spec = torus_spec({{4}, {4}});
    spec["dims"][1]["link_bandwidth"] = "-1GB/s";
    expect_rejected(spec, dims + "/1/link_bandwidth", "expected a rate");
    spec = torus_spec({{4}});
    spec["dims"][0]["link_latency"] = "-5ns";
    expect_rejected(spec, dims + "/0/link_latency", "expected a time");
  }
  SECTION("concentration 0, routing unknown, links out of range") {
    expect_rejected(torus_spec({{4}}, 0), "/machine/topology/concentration", "expected a value in [1, 64]");
    expect_rejected(torus_spec({{4}}, 1, "random"), "/machine/topology/routing",
                    "valid values are: dimension_order, minimal_adaptive");
    expect_rejected(torus_spec({{4, true, "1GB/s", 17}}), dims + "/0/links", "expected a value in [1, 16]");
  }
  SECTION("duplicate or empty names, too many routers, missing bandwidth") {
    Json spec = torus_spec({{4}, {4}});
    spec["dims"][0]["name"] = "X";
    spec["dims"][1]["name"] = "X";
    expect_rejected(spec, dims + "/1/name", "dimension name 'X' is used twice");
    spec["dims"][1]["name"] = "";
    expect_rejected(spec, dims + "/1/name", "expected a non-empty dimension name");
    expect_rejected(torus_spec({{4096}, {4096}}), dims, "at most 4,194,304 routers");
    spec = torus_spec({{4}});
    spec["dims"][0].erase("link_bandwidth");
    expect_rejected(spec, dims + "/0", "missing required key 'link_bandwidth'");
  }
}

TEST_CASE("misspelt keys and unknown topology types are rejected with a suggestion", "[topology]") {
  const std::string dims = "/machine/topology/dims";
  SECTION("a misspelt key gets a suggestion") {
    Json spec = torus_spec({{4}});
    spec["dims"][0]["lnk_bandwidth"] = "1GB/s";
    expect_rejected(spec, dims + "/0/lnk_bandwidth", "did you mean 'link_bandwidth'");
    spec = torus_spec({{4}});
    spec["concentraton"] = 2;
    expect_rejected(spec, "/machine/topology/concentraton", "did you mean 'concentration'");
  }
  SECTION("unknown or missing topology type") {
    expect_rejected(
        {{"type", "tours"}}, "/machine/topology/type",
        "unknown topology type 'tours' (did you mean 'torus'?); valid values are: torus, mesh, fat_tree, crossbar");
    expect_rejected({{"dims", Json::array()}}, "/machine/topology",
                    "valid values are: torus, mesh, fat_tree, crossbar");
    expect_rejected({{"type", 3}}, "/machine/topology/type", "expected one of torus, mesh, fat_tree, crossbar");
    expect_rejected(Json::array(), "/machine/topology", "expected a topology object");
  }
}
