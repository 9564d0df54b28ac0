#include <catch2/catch.hpp>

#include "models/apps/cosmo_halo.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"

using namespace torsim;

namespace {

// A 36 x 36 domain of 2 levels over 3 x 3 processes: 12 x 12 interior points each, 3 halo
// lines, doubles; a field's array is 18 x 18 x 2 (i fastest): a j row is 144 B, a level 2592 B.
const apps::CosmoDomain kDomain{36, 36, 2, 3, 8};
const apps::ProcessGrid kGrid{3, 3};

const apps::HaloNeighbour& toward(const std::vector<apps::HaloNeighbour>& ns, int di, int dj) {
  for (const auto& n : ns)
    if (n.di == di && n.dj == dj) return n;
  FAIL("no neighbour in that direction");
  return ns.front();
}

Json halo_on_wilkes(int nodes, const char* design) {
  return {{"machine", "wilkes"},
          {"runtime", {{"layer", "mpi"}}},
          {"placement", {{"nodes", nodes}, {"ranks_per_node", 2}}},
          {"workload", {{"name", "halo_exchange"}, {"design", design}, {"iterations", 2}, {"warmup", 1}}}};
}

PointResult run(const Json& scenario) { return Simulation(Scenario(scenario, "test").doc(), Where("test"), 1).run(); }

}  // namespace

TEST_CASE("process grids split the ranks into two factors as close as possible", "[halo]") {
  const std::pair<int, std::pair<int, int>> cases[] = {{4, {2, 2}},  {8, {4, 2}},  {16, {4, 4}},
                                                       {32, {8, 4}}, {64, {8, 8}}, {7, {7, 1}}};
  for (const auto& [ranks, xy] : cases) {
    const apps::ProcessGrid g = apps::ProcessGrid::of(ranks);
    CHECK(g.x == xy.first);
    CHECK(g.y == xy.second);
  }
  CHECK(apps::share(350, 8, 0) == 44);  // 350 = 6 x 44 + 2 x 43
  CHECK(apps::share(350, 8, 7) == 43);
}

TEST_CASE("an inner process has 8 neighbours, an edge one 5, a corner one 3", "[halo]") {
  CHECK(apps::halo_neighbours(kDomain, kGrid, 4).size() == 8);
  CHECK(apps::halo_neighbours(kDomain, kGrid, 1).size() == 5);
  CHECK(apps::halo_neighbours(kDomain, kGrid, 0).size() == 3);
  const auto ns = apps::halo_neighbours(kDomain, kGrid, 4);
  CHECK(toward(ns, 1, 0).rank == 5);
  CHECK(toward(ns, -1, 1).rank == 6);
  CHECK(toward(ns, 0, -1).rank == 1);
}

TEST_CASE("faces and corners expand to the blocks a hand count gives", "[halo]") {
  const auto ns = apps::halo_neighbours(kDomain, kGrid, 4);
  // East face: 12 rows (j) x 2 levels of 3 doubles; the first at i = 12, j = 3.
  const auto& east = toward(ns, 1, 0).send.blocks();
  REQUIRE(east.size() == 24);
  CHECK(east.front().offset == (12 + 3 * 18) * 8);
  CHECK(east.front().length == 24);
  CHECK(east[1].offset == east[0].offset + 144);
  CHECK(east[12].offset == east[0].offset + 2592);  // the next level
  // Its receive: the halo at i = 15.
  CHECK(toward(ns, 1, 0).receive.blocks().front().offset == (15 + 3 * 18) * 8);
  // North face (j + 1): 3 rows x 2 levels of 12 doubles, the interior range in i.
  const auto& north = toward(ns, 0, 1).send.blocks();
  REQUIRE(north.size() == 6);
  CHECK(north.front().offset == (3 + 12 * 18) * 8);
  CHECK(north.front().length == 96);
  // South-west corner: 3 rows x 2 levels of 3 doubles; received into i, j = 0.
  const auto& corner = toward(ns, -1, -1);
  CHECK(corner.send.blocks().size() == 6);
  CHECK(corner.send.size() == 3 * 3 * 2 * 8);
  CHECK(corner.receive.blocks().front().offset == 0);
  // What a face sends, its neighbour receives.
  const auto west_of_5 = toward(apps::halo_neighbours(kDomain, kGrid, 5), -1, 0);
  CHECK(west_of_5.receive.size() == toward(ns, 1, 0).send.size());
}

TEST_CASE("the halo exchange runs on 2 Wilkes nodes in both designs, deterministically", "[halo][mpi_cuda]") {
  const PointResult base = run(halo_on_wilkes(2, "baseline"));
  const PointResult overlap = run(halo_on_wilkes(2, "overlap"));
  CHECK(base.blocked_processes == 0);
  CHECK(overlap.blocked_processes == 0);
  // 2 x 2 processes, 3 neighbours each, 3 fields.
  const auto metric = [](const PointResult& r, const char* name) { return r.output.metrics.at(name).get<double>(); };
  CHECK(metric(base, "messages") == 4 * 3 * 3);
  CHECK(metric(overlap, "exchange_us") != metric(base, "exchange_us"));
  CHECK(metric(run(halo_on_wilkes(2, "overlap")), "exchange_us") == metric(overlap, "exchange_us"));
}

TEST_CASE("a process grid too fine for the halo is an input error", "[halo]") {
  Json s = halo_on_wilkes(2, "baseline");
  s["workload"]["points_i"] = 5;  // 2 points per process in i
  CHECK_THROWS_AS(run(s), InputError);
}
