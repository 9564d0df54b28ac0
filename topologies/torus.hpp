// n-dimensional torus or mesh of routers, with `concentration` nodes per router.
//
// Routing. Dimension order: dimension 0 first until its coordinate matches, then 1, and so on.
// In each dimension the direction is the minimal one. Tie rule: on a wrap-around ring of even
// size k, an offset of exactly k/2 goes in the + direction (so a size-2 ring always uses its +
// link). On a mesh the direction is the sign of the offset. Minimal adaptive: at each router,
// any productive link of any unfinished dimension (both directions on a tie); the network
// model picks among them.
#pragma once

#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace torsim::topo {

extern const ParamTable kTorusParams;
extern const ParamTable kMeshParams;
extern const ParamTable kTorusDimParams;

struct TorusDim {
  std::string name;
  int size = 1;
  bool wrap = true;
  Rate bandwidth = 0;
  Time latency = 0;
  int links = 1;  // parallel links per direction (multiplicity)
};

class Torus final : public Topology {
 public:
  Torus(std::string type, std::vector<TorusDim> dims, int concentration, Routing routing, const NodeLinks& node_links);

  std::string_view type() const override { return type_; }
  RouterId router_of(NodeId n) const override { return n / concentration_; }
  void route(NodeId src, NodeId dst, std::vector<LinkId>& out) const override;
  void next_hops(RouterId at, RouterId dst, std::vector<LinkId>& out) const override;
  std::pair<LinkId, int> lanes(LinkId id) const override;
  bool has_lanes() const override;
  Routing routing() const override { return routing_; }
  bool crosses_dateline(LinkId id) const override;
  int hops(NodeId a, NodeId b) const override;
  Summary summary() const override;
  std::string node_label(NodeId n) const override;
  nlohmann::json describe() const override;

  const std::vector<TorusDim>& dims() const { return dims_; }
  int concentration() const { return concentration_; }
  int coordinate(RouterId r, std::size_t dim) const {
    return coords_[static_cast<std::size_t>(r) * dims_.size() + dim];
  }
  /// Signed hops along `dim` from router `from` to router `to` on the route taken (the minimal
  /// direction; half-way round a ring goes +).
  int offset(std::size_t dim, RouterId from, RouterId to) const;
  /// First lane of the link leaving `r` along `dim` in `direction` (+1/-1), or kNoLink.
  LinkId port(RouterId r, std::size_t dim, int direction) const {
    return ports_[(static_cast<std::size_t>(r) * dims_.size() + dim) * 2 + (direction < 0 ? 1 : 0)];
  }

 private:
  struct Step {
    int direction;  // +1, -1, or 0 when the coordinates match
    int count;      // hops along the dimension
    bool tie;       // exactly half-way round a wrap ring
  };
  Step step(std::size_t dim, int from, int to) const;
  void build_links();
  void build_rings();

  std::string type_;
  std::vector<TorusDim> dims_;
  std::vector<RouterId> stride_;
  int concentration_;
  Routing routing_;
  std::vector<LinkId> ports_;         // per router, dimension and direction: first lane
  std::vector<std::int16_t> coords_;  // per router and dimension: routes need no division
  // Per dimension, each ring's ports (first lanes) in the order a route meets them, twice
  // round so that a route's hops along the dimension are one contiguous run, wrap or not:
  // + direction from coordinate 0, then - direction from coordinate size - 1 (4 x size
  // entries a ring; kNoLink where a mesh has no link). route() copies runs in blocks of
  // kRunBlock links, so each table has that many entries of padding.
  static constexpr int kRunBlock = 8;
  std::vector<std::vector<LinkId>> ring_ports_;
  std::vector<std::int32_t> ring_base_;  // per router and dimension: its ring's first entry
};

std::unique_ptr<Topology> make_torus(const ParamReader& r, const NodeLinks& node_links);

}  // namespace torsim::topo
