#include <catch2/catch.hpp>

#include "run/scenario.hpp"
#include "run/simulation.hpp"

using namespace torsim;

namespace {
PointResult run_on_hopper(const std::string& layer, int nodes, const Json& workload) {
  Json doc{{"machine", "hopper"},
           {"runtime", {{"layer", layer}}},
           {"placement", {{"nodes", nodes}, {"ranks_per_node", 24}}},
           {"workload", workload}};
  return Simulation(Scenario(doc, "test").doc(), Where("test"), 1).run();
}
double metric(const PointResult& r, const char* name) { return r.output.metrics.at(name).get<double>(); }
}  // namespace

TEST_CASE("N-Queens explores the whole tree and finds every solution", "[apps][nqueens]") {
  for (const std::string layer : {"charm_ugni", "charm_mpi", "raw"}) {
    INFO(layer);
    const auto r = run_on_hopper(layer, 2, {{"name", "nqueens"}, {"board", 10}, {"grain", 6}});
    CHECK(metric(r, "solutions") == 724);     // the known count for 10 queens
    CHECK(metric(r, "tree_nodes") == 17769);  // half the tree below the root (mirror images count twice)
    CHECK(metric(r, "time_ms") > metric(r, "search_done_ms"));  // quiescence detection's waves come after the search
    CHECK(r.blocked_processes == 0);
  }
}

TEST_CASE("N-Queens runs faster on more cores and on the lighter runtime", "[apps][nqueens]") {
  const Json work{{"name", "nqueens"}, {"board", 12}, {"grain", 7}};
  const double small = metric(run_on_hopper("charm_ugni", 2, work), "time_ms");
  const double big = metric(run_on_hopper("charm_ugni", 8, work), "time_ms");
  CHECK(big < small / 2);
  CHECK(metric(run_on_hopper("charm_mpi", 8, work), "time_ms") > big);
}

TEST_CASE("the NAMD-like step decomposes ApoA1 as NAMD would", "[apps][namd]") {
  const auto r = run_on_hopper("charm_ugni", 2, {{"name", "namd"}, {"steps", 3}});
  CHECK(metric(r, "patches") == 8 * 8 * 5);  // cells at least 13.5 A wide
  CHECK(metric(r, "computes") == 320 * 14);  // self plus 13 forward neighbours each
  // Pairs within 12 A: atoms x (4/3 pi 12^3 x density) / 2, density 92,224 / box volume.
  const double density = 92224.0 / (108.86 * 108.86 * 77.76);
  const double expected = 92224.0 * (4.0 / 3.0 * 3.14159265 * 12 * 12 * 12 * density) / 2;
  CHECK(metric(r, "pairs_per_step") == Approx(expected).epsilon(0.02));
  CHECK(metric(r, "time_per_step_ms") > 0);
  CHECK(r.blocked_processes == 0);
}

TEST_CASE("the NAMD-like step scales with cores", "[apps][namd]") {
  const Json work{{"name", "namd"}, {"steps", 3}};
  CHECK(metric(run_on_hopper("charm_ugni", 16, work), "time_per_step_ms") <
        metric(run_on_hopper("charm_ugni", 2, work), "time_per_step_ms") / 3);
}

TEST_CASE("a NAMD box implying too many patches is an input error, before allocating", "[apps][namd]") {
  const auto namd_with_box = [](const char* side) {
    return Json{{"name", "namd"}, {"steps", 3}, {"box", {side, side, side}}};
  };
  // 100,000 A / 13.5 A = 7,407 cells a side: 4.06e11 patches (this ended in bad_alloc).
  CHECK_THROWS_WITH(run_on_hopper("charm_ugni", 2, namd_with_box("100000")),
                    Catch::Contains("/workload/box") && Catch::Contains("4.06e+11 patches") &&
                        Catch::Contains("at most 1,048,576 patches"));
  // 1e300 A would overflow an int cell count: still the same error, not undefined behaviour.
  CHECK_THROWS_WITH(run_on_hopper("charm_ugni", 2, namd_with_box("1e300")), Catch::Contains("at most 1,048,576"));
  // 1,380 A: 102 cells a side, 1,061,208 patches, just over the limit.
  CHECK_THROWS_WITH(run_on_hopper("charm_ugni", 2, namd_with_box("1380")), Catch::Contains("1.06e+06 patches"));
}
