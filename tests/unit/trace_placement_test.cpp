// Placement of a replay's ranks where the trace says they ran ("placement": {"from_trace":
// true}): from DUMPI mesh coordinates on a torus (tests/data/traces/dumpi-testtrace-mesh, made
// by scripts/dumpi_set_mesh.py), else from host names.
#include <catch2/catch.hpp>

#include "models/apps/replay/replay.hpp"
#include "run/scenario.hpp"
#include "tests/support/fixtures.hpp"
#include "tests/support/input_error.hpp"
#include "tests/support/script_trace.hpp"

using namespace torsim;
using namespace torsim::test;

namespace {

const std::string kMesh = std::string(TORSIM_SOURCE_DIR) + "/tests/data/traces/dumpi-testtrace-mesh/testtrace.meta";

Machine preset(const std::string& name) { return make_machine(load_preset(name, Where("test")).machine); }

rt::Placement from_trace(const replay::Trace& trace, const Machine& machine) {
  return replay::trace_placement(trace, Json{{"from_trace", true}}, Where("test"), Where("trace"), machine);
}

// Each rank's node as the topology labels it: "(x,y,z)/n" on a torus.
std::vector<std::string> labels(const rt::Placement& p, const Machine& machine, int ranks) {
  std::vector<std::string> out;
  for (int r = 0; r < ranks; ++r) out.push_back(machine.topology->node_label(p.node_of(r)));
  return out;
}

}  // namespace

TEST_CASE("DUMPI mesh coordinates put each rank on its router; host names pick a Gemini router's node", "[replay]") {
  const auto trace = replay::open_trace(kMesh, replay::Format::automatic, Where("test"));
  REQUIRE(trace->ranks() == 4);
  CHECK(trace->rank(0).coords == std::vector<std::int32_t>{1, 2, 3});
  CHECK(trace->rank(0).mesh == std::vector<std::int32_t>{17, 8, 24});
  CHECK(trace->rank(1).host == "nid00011");
  const Machine hopper = preset("hopper");
  const auto p = from_trace(*trace, hopper);
  CHECK(labels(p, hopper, 4) == std::vector<std::string>{"(1,2,3)/0", "(1,2,3)/1", "(4,5,6)/0", "(4,5,6)/1"});
  CHECK(p.ranks_per_node == 1);
}

TEST_CASE("without host names, the ranks at a router fill its first node's cores, then the next's", "[replay]") {
  const Machine hopper = preset("hopper");  // 24 cores a node, 2 nodes a router
  test::ScriptTrace trace(27);
  for (std::size_t r = 0; r < 27; ++r) trace.set_coords(r, {0, 1, 2});
  const auto p = from_trace(trace, hopper);
  const auto at = labels(p, hopper, 27);
  CHECK(std::count(at.begin(), at.end(), "(0,1,2)/0") == 24);
  CHECK(at[24] == "(0,1,2)/1");
  CHECK(at[26] == "(0,1,2)/1");
}

TEST_CASE("ranks round robin over routers are placed round robin", "[replay]") {
  const Machine hopper = preset("hopper");
  test::ScriptTrace trace(4);
  for (std::size_t r = 0; r < 4; ++r) trace.set_coords(r, {r % 2 == 0 ? 3 : 5, 0, 0});
  const auto p = from_trace(trace, hopper);
  CHECK(p.round_robin);
  CHECK(labels(p, hopper, 4) == std::vector<std::string>{"(3,0,0)/0", "(5,0,0)/0", "(3,0,0)/0", "(5,0,0)/0"});
}

TEST_CASE("coordinates the machine does not have are an input error naming the rank's file", "[replay]") {
  const Machine hopper = preset("hopper");  // 17 x 8 x 24
  test::ScriptTrace trace(2);
  trace.set_coords(0, {0, 0, 0});
  SECTION("beyond a dimension's size") {
    trace.set_coords(1, {0, 8, 0});
    const auto e = input_error_of([&] { from_trace(trace, hopper); });
    CHECK_THAT(e.message(), Catch::Contains("rank 1 ran at mesh coordinates (0,8,0) (rank1)"));
    CHECK_THAT(e.message(), Catch::Contains("17 x 8 x 24 routers: expected 3 coordinates"));
  }
  SECTION("negative") {
    trace.set_coords(1, {-1, 0, 0});
    CHECK_THAT(input_error_of([&] { from_trace(trace, hopper); }).message(), Catch::Contains("(-1,0,0)"));
  }
  SECTION("another number of dimensions") {
    trace.set_coords(1, {0, 0, 0, 0, 0});
    CHECK_THAT(input_error_of([&] { from_trace(trace, hopper); }).message(), Catch::Contains("3-dimensional torus"));
  }
}

TEST_CASE("more hosts at a router than it has nodes is an input error", "[replay]") {
  const Machine hopper = preset("hopper");
  test::ScriptTrace trace(3);
  trace.set_hosts({"a", "b", "c"});
  for (std::size_t r = 0; r < 3; ++r) trace.set_coords(r, {1, 1, 1});
  CHECK_THAT(input_error_of([&] { from_trace(trace, hopper); }).message(),
             Catch::Contains("rank 2 (rank2) needs node 3 at mesh coordinates (1,1,1)"));
}

TEST_CASE("on a machine that is not a torus, or without coordinates for every rank, host names place", "[replay]") {
  test::ScriptTrace trace(2);
  trace.set_hosts({"x", "y"});
  trace.set_coords(0, {1, 1, 1});
  SECTION("a rank without coordinates") {
    const Machine hopper = preset("hopper");
    CHECK(from_trace(trace, hopper).nodes == std::vector<topo::NodeId>{0, 1});
  }
  SECTION("a fat tree") {
    trace.set_coords(1, {1, 1, 2});
    CHECK(from_trace(trace, preset("qdr-cluster")).nodes == std::vector<topo::NodeId>{0, 1});
  }
}
