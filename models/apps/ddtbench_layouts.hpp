// The DDTBench datatypes (Schneider, Gerstenberger and Hoefler, "Micro-applications for
// communication data access patterns and MPI datatypes", EuroMPI 2012; benchmark code
// src_c/ddtbench.c and timing_*.c) that the GPU datatype claim uses, with every parameter set
// the benchmark runs, all of MPI_FLOAT (4 B):
//  - SPECFEM3D_oc: the outer core's halo: an indexed_block of single floats at irregular
//    positions of one array. Sets (points, array length): (493, 3697), (877, 12857),
//    (1897, 38585), (3225, 88881).
//  - SPECFEM3D_cm: the crust-mantle and inner-core halos together: a struct of two
//    indexed_block types of 3-float points (a displacement vector per mesh point). Sets
//    (crust-mantle points, inner-core points): (1957, 245), (3801, 801), (7125, 1729),
//    (11797, 3009).
//  - WRF_y_sa: WRF's halo in y as a struct of subarrays: 4 two-dimensional (i, j), 3
//    three-dimensional (i, k, j) and 2 four-dimensional (i, k, j, n) arrays, 65 vertical
//    levels, a 3-row halo in j: 987 contiguous runs along i per message. Sets by process grid
//    (run length in floats): 2x2 (23), 3x3 (19), 4x4 (16), 5x5 (14), 8x8 (11).
// What the benchmark fixes is kept (counts, block lengths, run lengths, bytes). What is not
// known is an assumption, stated where it is made: the SPECFEM3D positions are drawn
// uniformly without repetition and sorted (DDTBench takes them from mesh data); the
// SPECFEM3D_cm arrays are as much longer than their point counts as the outer core's at the
// same set; WRF's arrays are the tile plus a 3-point halo on each side in i and j, square
// tiles, one component in n, Fortran order, allocated one after another.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/messaging/datatype.hpp"
#include "sim/core/random.hpp"

namespace torsim::apps {

using rt::Datatype;

struct DdtbenchSet {
  std::string label;  // as the benchmark prints it ("c=1", "2x2")
  Datatype type;
};

/// The DDTBench tests modelled.
const std::vector<std::string_view>& ddtbench_names();
/// The datatype of test `name` for each of its parameter sets, smallest message first;
/// positions DDTBench reads from application data are drawn from `rng`. An unknown name is a
/// logic error (callers check it against ddtbench_names()).
std::vector<DdtbenchSet> ddtbench_sets(std::string_view name, Rng& rng);

}  // namespace torsim::apps
