// The halo exchange of the COSMO weather model (MeteoSwiss's operational model, ported to GPUs
// with the GridTools communication layer, GCL) as MPI derived datatypes:
//  - the horizontal domain is split over an nprocx x nprocy process grid, x (i) fastest in
//    rank order; the vertical is not split (C2SM/DECREMENT 20_lm_c/Defaults/lm_c_defaults.sh
//    @437cf2b7: nprocx, nprocy; nboundlines = 3 halo lines);
//  - a field is a Fortran-order array (i, j, k) of the subdomain plus `halo` lines on each
//    side in i and j, all levels in k;
//  - each process exchanges with up to 8 neighbours (4 faces, 4 corners): one receive and one
//    send per neighbour and field, each with its own subarray datatype, all posted and then
//    waited for (GridTools/gridtools include/communication/low-level/Halo_Exchange_2D_DT.hpp
//    @03798ce4). A face covers the interior range along the boundary (the corners go in
//    messages of their own). The domain is not periodic (a limited-area model): boundary
//    processes have fewer neighbours.
// With i fastest, an east or west face is je x ke runs of `halo` elements, a north or south
// face halo x ke runs of ie elements, a corner halo x ke runs of `halo` elements.
#pragma once

#include <vector>

#include "models/messaging/datatype.hpp"
#include "models/messaging/messaging.hpp"

namespace torsim::apps {

using rt::Datatype;
using rt::Rank;

/// Defaults and sources: the halo_exchange workload's table (models/apps/halo_exchange.cpp).
struct CosmoDomain {
  std::int64_t points_i = 0, points_j = 0, levels = 0;  // the whole horizontal domain, levels
  std::int64_t halo = 0;                                // nboundlines
  Bytes element = 0;
};

/// An nprocx x nprocy process grid: MPI_Dims_create's split of `ranks` into two factors as
/// close as possible, the larger along x.
struct ProcessGrid {
  int x = 1, y = 1;
  static ProcessGrid of(int ranks);
  int rank(int px, int py) const { return py * x + px; }
};

struct HaloNeighbour {
  Rank rank = 0;
  int di = 0, dj = 0;  // its direction: -1, 0 or +1 in i and j, not both 0
  Datatype send, receive;
};

/// Interior points of process p of n along a dimension of `points` (the first points % n
/// processes take one more).
std::int64_t share(std::int64_t points, int n, int p);

/// The neighbours of rank `self` and the datatypes of one field's halo to and from each, in
/// direction order (j outer, i inner, from -1 to +1).
std::vector<HaloNeighbour> halo_neighbours(const CosmoDomain& domain, const ProcessGrid& grid, Rank self);

/// Index of direction (di, dj) among the 9 (0 .. 8; 4 is no direction).
inline int direction_index(int di, int dj) { return (dj + 1) * 3 + (di + 1); }

}  // namespace torsim::apps
