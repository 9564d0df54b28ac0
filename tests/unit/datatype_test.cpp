#include <catch2/catch.hpp>

#include <vector>

#include "models/apps/ddtbench_layouts.hpp"

using namespace torsim;
using rt::Datatype;

namespace {

using Blocks = std::vector<gpu::Block>;
const Datatype kFloat = Datatype::basic(4);

bool same(const Blocks& a, const Blocks& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].offset != b[i].offset || a[i].length != b[i].length) return false;
  return true;
}

}  // namespace

TEST_CASE("vector and contiguous types expand into their blocks", "[datatype]") {
  const Datatype v = Datatype::vector(3, 2, 4, kFloat);
  CHECK(same(v.blocks(), {{0, 8}, {16, 8}, {32, 8}}));
  CHECK(v.size() == 24);
  CHECK(v.extent() == 40);
  CHECK(same(Datatype::contiguous(5, kFloat).blocks(), {{0, 20}}));
  // Two of them: the second starts one extent on.
  CHECK(same(v.layout(2).blocks(), {{0, 8}, {16, 8}, {32, 16}, {56, 8}, {72, 8}}));
}

TEST_CASE("indexed blocks merge where they touch", "[datatype]") {
  const Datatype t = Datatype::indexed_block(3, {0, 3, 10}, kFloat);
  CHECK(same(t.blocks(), {{0, 24}, {40, 12}}));
  CHECK(t.size() == 36);
  CHECK(t.lower_bound() == 0);
  CHECK(t.extent() == 52);
}

TEST_CASE("a struct places its members at their displacements", "[datatype]") {
  const Datatype a = Datatype::indexed_block(1, {1, 5}, kFloat);
  const Datatype b = Datatype::vector(2, 1, 2, Datatype::basic(8));
  const Datatype s = Datatype::structure({{1, 0, &a}, {2, 100, &b}});
  // b's extent is 24 (two doubles 16 B apart): its second copy starts at 124.
  CHECK(same(s.blocks(), {{4, 4}, {20, 4}, {100, 8}, {116, 16}, {140, 8}}));
  CHECK(s.size() == 8 + 2 * 16);
}

TEST_CASE("a subarray is the rows of its box along the fastest dimension", "[datatype]") {
  // A 4 x 5 x 6 array, the box 2 x 3 x 4 at (1, 1, 2).
  const std::vector<std::int64_t> sizes{4, 5, 6}, sub{2, 3, 4}, starts{1, 1, 2};
  SECTION("C order: the last index is fastest") {
    const Datatype t = Datatype::subarray(sizes, sub, starts, Datatype::Order::c, kFloat);
    CHECK(t.blocks().size() == 2 * 3);
    CHECK(t.blocks()[0].offset == (1 * 30 + 1 * 6 + 2) * 4);
    CHECK(t.blocks()[0].length == 4 * 4);
    CHECK(t.blocks()[1].offset == (1 * 30 + 2 * 6 + 2) * 4);
    CHECK(t.blocks()[3].offset == (2 * 30 + 1 * 6 + 2) * 4);
    CHECK(t.extent() == 4 * 5 * 6 * 4);
  }
  SECTION("Fortran order: the first index is fastest") {
    const Datatype t = Datatype::subarray(sizes, sub, starts, Datatype::Order::fortran, kFloat);
    CHECK(t.blocks().size() == 3 * 4);
    CHECK(t.blocks()[0].offset == (1 + 1 * 4 + 2 * 20) * 4);
    CHECK(t.blocks()[0].length == 2 * 4);
    CHECK(t.blocks()[1].offset == (1 + 2 * 4 + 2 * 20) * 4);
  }
  SECTION("a box as wide as its array makes rows that merge") {
    const Datatype t = Datatype::subarray({4, 6}, {2, 6}, {1, 0}, Datatype::Order::c, kFloat);
    CHECK(same(t.blocks(), {{24, 48}}));
  }
}

TEST_CASE("the DDTBench datatypes have the benchmark's sizes and runs", "[datatype]") {
  Rng rng(1);
  const auto oc = apps::ddtbench_sets("SPECFEM3D_oc", rng);
  REQUIRE(oc.size() == 4);
  const Bytes oc_bytes[] = {1972, 3508, 7588, 12900};
  for (std::size_t i = 0; i < oc.size(); ++i) CHECK(oc[i].type.size() == oc_bytes[i]);
  CHECK(oc.back().label == "c=4");
  CHECK(oc.back().type.extent() <= 88881 * 4);
  const auto cm = apps::ddtbench_sets("SPECFEM3D_cm", rng);
  const Bytes cm_bytes[] = {26424, 55224, 106248, 177672};
  for (std::size_t i = 0; i < cm.size(); ++i) CHECK(cm[i].type.size() == cm_bytes[i]);
  const auto wrf = apps::ddtbench_sets("WRF_y_sa", rng);
  REQUIRE(wrf.size() == 5);
  CHECK(wrf.front().label == "8x8");
  CHECK(wrf.back().label == "2x2");
  CHECK(wrf.back().type.size() == 90804);
  CHECK(wrf.front().type.size() == 43428);
  for (const auto& set : wrf) CHECK(set.type.blocks().size() == 987);
  // The same seed draws the same positions.
  Rng again(1);
  CHECK(same(apps::ddtbench_sets("SPECFEM3D_oc", again).front().type.blocks(), oc.front().type.blocks()));
}
