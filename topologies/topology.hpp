// Topologies build the machine's graph (routers, nodes, directed links) and answer "which
// links, in which order" between two nodes. They never compute a time: that is the network
// models' job (models/network/).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <nlohmann/json.hpp>

#include "sim/config/params.hpp"
#include "sim/core/time.hpp"

namespace torsim::topo {

using NodeId = std::int32_t;
using RouterId = std::int32_t;
using LinkId = std::int32_t;
inline constexpr LinkId kNoLink = -1;

enum class LinkKind : std::uint8_t { injection, ejection, network };

/// One directed link. Vertices: routers are 0..R-1, node n is vertex R+n.
struct LinkInfo {
  std::int32_t from = 0;  // vertex
  std::int32_t to = 0;    // vertex
  Rate bandwidth = 0;     // bytes per second, this direction
  Time latency = 0;       // head latency across the link, including the router it enters
  LinkKind kind = LinkKind::network;
  std::int16_t dim = -1;      // torus dimension, or fat-tree level; -1 for injection/ejection
  std::int8_t direction = 0;  // +1 / -1 along a torus dimension, 0 otherwise
  std::uint8_t lane = 0;      // index among parallel links (multiplicity, rails)
};

/// Per-node link parameters, from the machine's node section.
struct NodeLinks {
  Rate injection_bandwidth = 0;
  Rate ejection_bandwidth = 0;
};

struct EdgeProps {
  LinkId link = kNoLink;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property, EdgeProps>;

/// Routing choice for topologies that have one.
enum class Routing : std::uint8_t { dimension_order, minimal_adaptive };

/// Summary figures for `torsim describe` (all derived from the graph or closed forms).
struct Summary {
  std::int64_t nodes = 0, routers = 0, network_links = 0;
  int diameter = 0;              // router-to-router hops, maximum over node pairs
  double average_hops = 0;       // mean over ordered pairs of distinct nodes
  Rate bisection_bandwidth = 0;  // one direction, across the weakest balanced cut
};

class Topology {
 public:
  virtual ~Topology() = default;
  virtual std::string_view type() const = 0;

  std::int32_t node_count() const { return node_count_; }
  std::int32_t router_count() const { return router_count_; }
  std::int32_t link_count() const { return static_cast<std::int32_t>(links_.size()); }
  const LinkInfo& link(LinkId id) const { return links_[static_cast<std::size_t>(id)]; }
  const std::vector<LinkInfo>& links() const { return links_; }
  const Graph& graph() const { return graph_; }

  virtual RouterId router_of(NodeId n) const = 0;
  /// The network links out of router `r`, in the graph's order, one per neighbour direction
  /// (lane 0 where links run in parallel).
  std::vector<LinkId> network_links_from(RouterId r) const;
  /// Independent copies of the fabric (fat tree rails); a node has one injection and one
  /// ejection link per rail. 1 for every other topology.
  int rail_count() const { return rails_; }
  /// The router node `n`'s link on `rail` attaches to; rail 0's is router_of(n).
  virtual RouterId rail_router(NodeId n, int /*rail*/) const { return router_of(n); }
  LinkId injection_link(NodeId n, int rail = 0) const { return injection_base_ + rail * node_count_ + n; }
  LinkId ejection_link(NodeId n, int rail = 0) const { return ejection_base_ + rail * node_count_ + n; }

  /// The deterministic route: injection link, network links, ejection link. Empty when
  /// src == dst (the intra-node path is not in the graph). Appends to `out` after clearing it.
  virtual void route(NodeId src, NodeId dst, std::vector<LinkId>& out) const = 0;
  /// The route on a given rail (a multi-rail fabric's HCA chosen by the caller); topologies
  /// with one rail ignore `rail`.
  virtual void route_on_rail(NodeId src, NodeId dst, int /*rail*/, std::vector<LinkId>& out) const {
    route(src, dst, out);
  }
  /// Whether a message's route depends on random choices of its own (a torus that breaks
  /// half-way ties at random per message): the network models then route each message with
  /// route_drawn() and a draw of its own.
  virtual bool draws_routes() const { return false; }
  /// The route of one message whose random choices take bits of `draw`. route() is the same
  /// with a draw fixed per (src, dst) pair, for callers that route no particular message.
  virtual void route_drawn(NodeId src, NodeId dst, std::uint64_t /*draw*/, std::vector<LinkId>& out) const {
    route(src, dst, out);
  }
  /// Candidate next network links from router `at` towards router `dst` under the topology's
  /// routing: one for deterministic routing, every minimal productive link for adaptive.
  /// Empty when at == dst.
  virtual void next_hops(RouterId at, RouterId dst, std::vector<LinkId>& out) const = 0;
  /// Parallel links that may carry what `id` carries (same endpoints, multiplicity): id itself
  /// and its lanes, as [first, first + count).
  virtual std::pair<LinkId, int> lanes(LinkId id) const { return {id, 1}; }
  /// Whether any link has parallel lanes (lets the network models skip lane choice).
  virtual bool has_lanes() const { return false; }
  virtual Routing routing() const { return Routing::dimension_order; }
  /// Whether `id` is a ring's wrap-around link (the dateline that flow control's virtual
  /// channels break cycles at). False on topologies without rings.
  virtual bool crosses_dateline(LinkId /*id*/) const { return false; }

  /// Router-to-router hops between two nodes on the deterministic route.
  virtual int hops(NodeId a, NodeId b) const = 0;
  virtual Summary summary() const = 0;
  /// Human-readable location, e.g. "(3,0,12)/1" for a torus node.
  virtual std::string node_label(NodeId n) const = 0;
  /// Type-specific description for `torsim describe --json` (dimensions, bandwidths, ...).
  virtual nlohmann::json describe() const = 0;

 protected:
  /// Adds a directed link to links_ and to the graph; returns its id.
  LinkId add_link(const LinkInfo& info);
  /// Creates the graph's vertices; call once before add_link.
  void init_graph(std::int32_t routers, std::int32_t nodes);
  /// Adds one injection and one ejection link per node and rail (all injection links rail by
  /// rail, then all ejection links), rail_router(n, rail) on the router side, lane = rail. The
  /// injection link carries `injection_latency`: the traversal of the switch it enters, where
  /// that switch has no network link of its own to carry it. Set rails_ first.
  void add_node_links(const NodeLinks& node_links, Time injection_latency = 0);

  std::int32_t node_count_ = 0;
  std::int32_t router_count_ = 0;
  int rails_ = 1;
  LinkId injection_base_ = 0;
  LinkId ejection_base_ = 0;
  std::vector<LinkInfo> links_;
  Graph graph_;
};

/// Builds the topology described by a machine's "topology" object.
std::unique_ptr<Topology> make_topology(const Json& spec, const Where& where, const NodeLinks& node_links);

/// One entry per topology type, for error messages and the generated docs.
struct TopologyEntry {
  std::string_view type;
  std::string_view description;
  const ParamTable* params;
};
const std::vector<TopologyEntry>& topology_types();

}  // namespace torsim::topo
