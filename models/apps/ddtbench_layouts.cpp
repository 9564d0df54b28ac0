#include "models/apps/ddtbench_layouts.hpp"

#include <stdexcept>

namespace torsim::apps {

namespace {

const Datatype kFloat = Datatype::basic(4);

// `count` distinct positions in [0, length), in increasing order (Knuth's selection sampling,
// TAOCP vol. 2, algorithm 3.4.2 S).
std::vector<std::int64_t> distinct_positions(std::int64_t count, std::int64_t length, Rng& rng) {
  std::vector<std::int64_t> positions;
  positions.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < length && static_cast<std::int64_t>(positions.size()) < count; ++i) {
    const auto needed = static_cast<std::uint64_t>(count - static_cast<std::int64_t>(positions.size()));
    if (rng.below(static_cast<std::uint64_t>(length - i)) < needed) positions.push_back(i);
  }
  return positions;
}

struct SpecfemSet {
  std::int64_t outer_core, outer_core_length;  // SPECFEM3D_oc
  std::int64_t crust_mantle, inner_core;       // SPECFEM3D_cm
};
constexpr SpecfemSet kSpecfem[] = {
    {493, 3697, 1957, 245}, {877, 12857, 3801, 801}, {1897, 38585, 7125, 1729}, {3225, 88881, 11797, 3009}};

std::string specfem_label(std::size_t set) { return "c=" + std::to_string(set + 1); }

std::vector<DdtbenchSet> specfem_oc(Rng& rng) {
  std::vector<DdtbenchSet> sets;
  for (std::size_t i = 0; i < std::size(kSpecfem); ++i) {
    const auto& s = kSpecfem[i];
    sets.push_back({specfem_label(i),
                    Datatype::indexed_block(1, distinct_positions(s.outer_core, s.outer_core_length, rng), kFloat)});
  }
  return sets;
}

// Assumption: each array is as much longer than its point count as the outer core's.
std::int64_t assumed_length(const SpecfemSet& s, std::int64_t points) {
  return points * s.outer_core_length / s.outer_core;
}

std::vector<DdtbenchSet> specfem_cm(Rng& rng) {
  std::vector<DdtbenchSet> sets;
  for (std::size_t i = 0; i < std::size(kSpecfem); ++i) {
    const auto& s = kSpecfem[i];
    const std::int64_t mantle_length = assumed_length(s, s.crust_mantle);
    const Datatype mantle = Datatype::indexed_block(3, distinct_positions(s.crust_mantle, mantle_length, rng), kFloat);
    const Datatype core =
        Datatype::indexed_block(3, distinct_positions(s.inner_core, assumed_length(s, s.inner_core), rng), kFloat);
    sets.push_back({specfem_label(i), Datatype::structure({{1, 0, &mantle}, {1, mantle_length * 3 * 4, &core}})});
  }
  return sets;
}

constexpr int kWrfGrid[] = {2, 3, 4, 5, 8};
constexpr std::int64_t kWrfRun[] = {23, 19, 16, 14, 11};
constexpr std::int64_t kLevels = 65, kHalo = 3;

// Four 2-D, three 3-D and two 4-D arrays, their j-halo rows packed as one struct.
Datatype wrf_y(std::int64_t run) {
  using Dims = std::vector<std::int64_t>;
  const std::int64_t extent = run + 2 * kHalo;
  const Datatype two =
      Datatype::subarray({extent, extent}, {run, kHalo}, {kHalo, kHalo}, Datatype::Order::fortran, kFloat);
  const Datatype three = Datatype::subarray(Dims{extent, kLevels, extent}, Dims{run, kLevels, kHalo},
                                            Dims{kHalo, 0, kHalo}, Datatype::Order::fortran, kFloat);
  const Datatype four = Datatype::subarray(Dims{extent, kLevels, extent, 1}, Dims{run, kLevels, kHalo, 1},
                                           Dims{kHalo, 0, kHalo, 0}, Datatype::Order::fortran, kFloat);
  std::vector<Datatype::Member> members;
  Bytes address = 0;
  const std::pair<const Datatype*, int> arrays[] = {{&two, 4}, {&three, 3}, {&four, 2}};
  for (const auto& [type, count] : arrays)
    for (int i = 0; i < count; ++i, address += type->extent()) members.push_back({1, address, type});
  return Datatype::structure(members);
}

std::vector<DdtbenchSet> wrf_y_sa() {
  std::vector<DdtbenchSet> sets;
  for (std::size_t i = std::size(kWrfGrid); i-- > 0;)  // the smallest message (largest grid) first
    sets.push_back({std::to_string(kWrfGrid[i]) + "x" + std::to_string(kWrfGrid[i]), wrf_y(kWrfRun[i])});
  return sets;
}

}  // namespace

const std::vector<std::string_view>& ddtbench_names() {
  static const std::vector<std::string_view> names{"SPECFEM3D_oc", "SPECFEM3D_cm", "WRF_y_sa"};
  return names;
}

std::vector<DdtbenchSet> ddtbench_sets(std::string_view name, Rng& rng) {
  if (name == "SPECFEM3D_oc") return specfem_oc(rng);
  if (name == "SPECFEM3D_cm") return specfem_cm(rng);
  if (name == "WRF_y_sa") return wrf_y_sa();
  throw std::logic_error("unknown DDTBench test " + std::string(name));
}

}  // namespace torsim::apps
