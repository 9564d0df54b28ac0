// n-dimensional torus or mesh of routers, with `concentration` nodes per router.
//
// Routing. Dimension order: dimension 0 first until its coordinate matches, then 1, and so on.
// In each dimension the direction is the minimal one. On a mesh the direction is the sign of
// the offset. Ties: on a wrap-around ring of even size k, an offset of exactly k/2 is as short
// either way; `ties` picks the direction: always + (a size-2 ring then uses its + link only),
// at random per message and dimension (BookSim's dim_order_torus), by the parity of the
// source's coordinate along the dimension (Blue Gene/Q, per its preset's source) or of the sum
// of its coordinates; each preset cites its machine's rule. Minimal adaptive: at each router,
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

/// The direction of a route to a destination exactly half-way round a ring.
enum class TieBreak : std::uint8_t {
  plus,                   // always +
  random,                 // per message and dimension, from the message's draw
  coordinate_parity,      // + when the source router's coordinate along the dimension is even
  coordinate_sum_parity,  // + when the sum of the source router's coordinates is even
};

// Read by make_torus from its declaration in torus.cpp, which holds the defaults.
struct TorusDim {
  std::string name;
  int size = 0;
  bool wrap = false;
  Rate bandwidth = 0;
  Time latency = 0;
  int links = 0;  // parallel links per direction (multiplicity)
};

class Torus final : public Topology {
 public:
  Torus(std::string type, std::vector<TorusDim> dims, int concentration, Routing routing, const NodeLinks& node_links,
        TieBreak ties = TieBreak::plus);

  std::string_view type() const override { return type_; }
  RouterId router_of(NodeId n) const override { return n / concentration_; }
  void route(NodeId src, NodeId dst, std::vector<LinkId>& out) const override;
  bool draws_routes() const override { return ties_ == TieBreak::random && has_ties_; }
  void route_drawn(NodeId src, NodeId dst, std::uint64_t draw, std::vector<LinkId>& out) const override;
  TieBreak ties() const { return ties_; }
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
  /// Signed hops along `dim` from router `from` to router `to` the minimal way, half-way round
  /// a ring going + whatever the tie rule (for software's own trees and FIFO choices).
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
  /// Whether a route from router `src` goes + at a tie along `dim`.
  bool plus_on_tie(RouterId src, std::size_t dim, std::uint64_t draw) const;
  void build_links();
  void build_rings();

  std::string type_;
  std::vector<TorusDim> dims_;
  std::vector<RouterId> stride_;
  int concentration_;
  Routing routing_;
  TieBreak ties_;
  bool has_ties_ = false;             // some wrap-around ring has an even size
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
