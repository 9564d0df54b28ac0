#include "models/apps/cosmo_halo.hpp"

#include <stdexcept>

namespace torsim::apps {

ProcessGrid ProcessGrid::of(int ranks) {
  if (ranks < 1) throw std::logic_error("a process grid has at least one rank");
  int y = 1;
  for (int f = 1; f * f <= ranks; ++f)
    if (ranks % f == 0) y = f;
  return {ranks / y, y};
}

std::int64_t share(std::int64_t points, int n, int p) { return points / n + (p < points % n ? 1 : 0); }

namespace {

// Along one dimension with `interior` points and `halo` lines each side: the range a message
// toward direction d (-1, 0, +1) sends (the interior lines next to that side) or receives
// into (the halo lines on that side); d = 0 is the whole interior.
struct Range {
  std::int64_t start = 0, size = 0;
};
Range range(std::int64_t interior, std::int64_t halo, int d, bool send) {
  if (d == 0) return {halo, interior};
  if (d < 0) return {send ? halo : 0, halo};
  return {send ? interior : interior + halo, halo};
}

Datatype region(std::int64_t ie, std::int64_t je, const CosmoDomain& dom, int di, int dj, bool send) {
  const Range ri = range(ie, dom.halo, di, send), rj = range(je, dom.halo, dj, send);
  return Datatype::subarray({ie + 2 * dom.halo, je + 2 * dom.halo, dom.levels}, {ri.size, rj.size, dom.levels},
                            {ri.start, rj.start, 0}, Datatype::Order::fortran, Datatype::basic(dom.element));
}

}  // namespace

std::vector<HaloNeighbour> halo_neighbours(const CosmoDomain& dom, const ProcessGrid& grid, Rank self) {
  const int px = self % grid.x, py = self / grid.x;
  const std::int64_t ie = share(dom.points_i, grid.x, px), je = share(dom.points_j, grid.y, py);
  if (ie < dom.halo || je < dom.halo) throw std::logic_error("a subdomain is at least as wide as its halo");
  std::vector<HaloNeighbour> out;
  for (int dj = -1; dj <= 1; ++dj)
    for (int di = -1; di <= 1; ++di) {
      const int nx = px + di, ny = py + dj;
      if ((di == 0 && dj == 0) || nx < 0 || ny < 0 || nx >= grid.x || ny >= grid.y) continue;
      out.push_back({grid.rank(nx, ny), di, dj, region(ie, je, dom, di, dj, true), region(ie, je, dom, di, dj, false)});
    }
  return out;
}

}  // namespace torsim::apps
