#include "topologies/torus.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>

#include "sim/config/fields.hpp"
#include "topologies/memory_estimate.hpp"

namespace torsim::topo {

namespace {

constexpr ChoiceName<Routing> kRoutingNames[] = {{"dimension_order", Routing::dimension_order},
                                                 {"minimal_adaptive", Routing::minimal_adaptive}};
constexpr ChoiceName<TieBreak> kTieNames[] = {{"plus", TieBreak::plus},
                                              {"random", TieBreak::random},
                                              {"coordinate_parity", TieBreak::coordinate_parity},
                                              {"coordinate_sum_parity", TieBreak::coordinate_sum_parity}};

// The torus-wide parameters; type and dims shape the graph (make_torus reads them).
struct TorusOptions {
  int concentration = 0;
  Routing routing{};
  TieBreak ties{};
};
using O = TorusOptions;
constexpr Field<O> kFields[] = {
    unbound<O>({"type", ParamKind::text, kRequired, "", "", "",
                "torus (wrap-around by default) or mesh (no wrap by default)", "-"}),
    unbound<O>({"dims", ParamKind::object_list, kRequired, "", "", "",
                "one object per dimension, dimension 0 first; see "
                "topology.dims",
                "-"}),
    bind<&O::concentration>(
        {"concentration", ParamKind::integer, "1", "", "1", "64", "nodes per router (Gemini: 2)", "preset"}),
    bind_choice<&O::routing, kRoutingNames>({"routing", ParamKind::choice, "dimension_order", "", "", "",
                                             "dimension_order: deterministic, ties as `ties` says; minimal_adaptive: "
                                             "any minimal path, the least busy link at "
                                             "each router",
                                             "preset", "dimension_order|minimal_adaptive"}),
    bind_choice<&O::ties, kTieNames>(
        {"ties", ParamKind::choice, "plus", "", "", "",
         "dimension order, a destination exactly half-way round a ring of even size: plus: go +; random: + or - at "
         "random "
         "per message and dimension (BookSim's dim_order_torus); coordinate_parity: + from a source whose coordinate "
         "along the dimension is even, - from an odd one; coordinate_sum_parity: + from a source whose coordinates sum "
         "to an even number, - otherwise",
         "preset", "plus|random|coordinate_parity|coordinate_sum_parity"}),
};
constexpr auto kSpecs = specs_of(kFields);
using D = TorusDim;
// name and wrap have defaults that depend on the dimension's place and the topology's type.
constexpr Field<D> kDimFields[] = {
    unbound<D>({"name", ParamKind::text, "", "", "", "", "label, e.g. \"X\" (default d0, d1, ...)", "-"}),
    bind<&D::size>({"size", ParamKind::integer, kRequired, "", "1", "4096", "routers along the dimension", "preset"}),
    unbound<D>({"wrap", ParamKind::boolean, kUnset, "", "", "",
                "wrap-around links (default: true on a torus, false on a mesh)", "preset"}),
    bind<&D::bandwidth>({"link_bandwidth", ParamKind::rate, kRequired, "GB/s", "1MB/s", "10000GB/s",
                         "bandwidth of one link in one direction, wire bytes per second", "preset"}),
    bind<&D::latency>({"link_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                       "head latency of one hop, router pipeline and wire included", "preset"}),
    bind<&D::links>(
        {"links", ParamKind::integer, "1", "", "1", "16", "parallel links per direction between neighbours", "preset"}),
};
constexpr auto kDimSpecs = specs_of(kDimFields);

}  // namespace

const ParamTable kTorusParams{"machine.topology (type: torus)", "n-dimensional torus of routers.", kSpecs};
const ParamTable kMeshParams{"machine.topology (type: mesh)",
                             "n-dimensional mesh (a torus without wrap-around "
                             "by default).",
                             kSpecs};
const ParamTable kTorusDimParams{"machine.topology.dims[i] (torus and mesh)", "One dimension.", kDimSpecs};

Torus::Torus(std::string type, std::vector<TorusDim> dims, int concentration, Routing routing,
             const NodeLinks& node_links, TieBreak ties)
    : type_(std::move(type)), dims_(std::move(dims)), concentration_(concentration), routing_(routing), ties_(ties) {
  has_ties_ = std::any_of(dims_.begin(), dims_.end(), [](const TorusDim& d) { return d.wrap && d.size % 2 == 0; });
  RouterId routers = 1;
  for (const auto& d : dims_) {
    stride_.push_back(routers);
    routers *= d.size;
  }
  init_graph(routers, routers * concentration_);
  coords_.resize(static_cast<std::size_t>(routers) * dims_.size());
  for (RouterId r = 0; r < routers; ++r)
    for (std::size_t d = 0; d < dims_.size(); ++d)
      coords_[static_cast<std::size_t>(r) * dims_.size() + d] =
          static_cast<std::int16_t>((r / stride_[d]) % dims_[d].size);
  build_links();
  build_rings();
  add_node_links(node_links);
}

void Torus::build_rings() {
  const std::size_t dims = dims_.size();
  ring_ports_.assign(dims, {});
  ring_base_.assign(static_cast<std::size_t>(router_count_) * dims, 0);
  for (std::size_t d = 0; d < dims; ++d) {
    const int k = dims_[d].size;
    auto& table = ring_ports_[d];
    for (RouterId r = 0; r < router_count_; ++r) {
      if (coordinate(r, d) != 0) continue;  // one ring per router at coordinate 0
      const auto base = static_cast<std::int32_t>(table.size());
      for (int j = 0; j < 2 * k; ++j) table.push_back(port(r + (j % k) * stride_[d], d, +1));
      for (int j = 0; j < 2 * k; ++j) table.push_back(port(r + (k - 1 - j % k) * stride_[d], d, -1));
      for (int c = 0; c < k; ++c) ring_base_[static_cast<std::size_t>(r + c * stride_[d]) * dims + d] = base;
    }
    table.resize(table.size() + kRunBlock, kNoLink);
  }
}

void Torus::build_links() {
  ports_.assign(static_cast<std::size_t>(router_count_) * dims_.size() * 2, kNoLink);
  for (RouterId r = 0; r < router_count_; ++r) {
    for (std::size_t d = 0; d < dims_.size(); ++d) {
      const TorusDim& dim = dims_[d];
      const int c = coordinate(r, d);
      for (int direction : {+1, -1}) {
        const int next = c + direction;
        if (dim.size < 2 || (!dim.wrap && (next < 0 || next >= dim.size))) continue;
        const RouterId to = r + ((next + dim.size) % dim.size - c) * stride_[d];
        auto& port = ports_[(static_cast<std::size_t>(r) * dims_.size() + d) * 2 + (direction < 0 ? 1 : 0)];
        for (int lane = 0; lane < dim.links; ++lane) {
          const LinkId id =
              add_link({r, to, dim.bandwidth, dim.latency, LinkKind::network, static_cast<std::int16_t>(d),
                        static_cast<std::int8_t>(direction), static_cast<std::uint8_t>(lane)});
          if (lane == 0) port = id;
        }
      }
    }
  }
}

// Inline: called per dimension of every route, and as a call its 12-byte result went
// through the stack (a store-forwarding stall, 6 % of the packet model's time).
inline Torus::Step Torus::step(std::size_t dim, int from, int to) const {
  const int k = dims_[dim].size;
  if (from == to) return {0, 0, false};
  if (!dims_[dim].wrap) return {to > from ? +1 : -1, std::abs(to - from), false};
  const int forward = to >= from ? to - from : to - from + k;
  if (2 * forward < k) return {+1, forward, false};
  if (2 * forward > k) return {-1, k - forward, false};
  return {+1, forward, true};  // the tie: exactly half-way round, go +
}

bool Torus::plus_on_tie(RouterId src, std::size_t dim, std::uint64_t draw) const {
  switch (ties_) {
    case TieBreak::plus:
      return true;
    case TieBreak::random:
      return (draw >> (dim % 64)) & 1;
    case TieBreak::coordinate_parity:
      return coordinate(src, dim) % 2 == 0;
    case TieBreak::coordinate_sum_parity:
      break;
  }
  int sum = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d) sum += coordinate(src, d);
  return sum % 2 == 0;
}

namespace {
// A fixed draw per (src, dst) pair (SplitMix64's finaliser): route() of a torus with random
// ties, for callers that route no particular message.
std::uint64_t pair_draw(NodeId src, NodeId dst) {
  std::uint64_t z =
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) | static_cast<std::uint32_t>(dst);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

void Torus::route(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  route_drawn(src, dst, ties_ == TieBreak::random ? pair_draw(src, dst) : 0, out);
}

// Per dimension, the hops are a contiguous run of that dimension's ring table, copied in
// blocks (no branch per hop, nor at a wrap); the router reached is computed, not walked to.
void Torus::route_drawn(NodeId src, NodeId dst, std::uint64_t draw, std::vector<LinkId>& out) const {
  if (src == dst) return out.clear();
  RouterId at = router_of(src);
  const RouterId target = router_of(dst);
  Step steps[6];  // at most 6 dimensions (make_torus)
  std::size_t hops = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    steps[d] = step(d, coordinate(at, d), coordinate(target, d));
    if (steps[d].tie && !plus_on_tie(at, d, draw)) steps[d].direction = -1;
    hops += static_cast<std::size_t>(steps[d].count);
  }
  out.resize(hops + 2 + kRunBlock);  // a block copy may write past the last hop
  LinkId* next_link = out.data();
  *next_link++ = injection_link(src);
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    const int count = steps[d].count;
    if (count == 0) continue;
    const int size = dims_[d].size;
    const int from = coordinate(at, d);
    const LinkId* run = ring_ports_[d].data() + ring_base_[static_cast<std::size_t>(at) * dims_.size() + d] +
                        (steps[d].direction > 0 ? from : 3 * size - 1 - from);
    for (int i = 0; i < count; i += kRunBlock) std::memcpy(next_link + i, run + i, kRunBlock * sizeof(LinkId));
    next_link += count;
    at += (coordinate(target, d) - from) * stride_[d];
  }
  *next_link = ejection_link(dst);
  out.resize(hops + 2);
}

void Torus::next_hops(RouterId at, RouterId dst, std::vector<LinkId>& out) const {
  out.clear();
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    const Step s = step(d, coordinate(at, d), coordinate(dst, d));
    if (s.count == 0) continue;
    out.push_back(port(at, d, s.direction));
    if (routing_ == Routing::dimension_order) return;
    if (s.tie) out.push_back(port(at, d, -s.direction));
  }
}

std::pair<LinkId, int> Torus::lanes(LinkId id) const {
  const LinkInfo& l = links_[static_cast<std::size_t>(id)];
  if (l.kind != LinkKind::network) return {id, 1};
  return {id - l.lane, dims_[static_cast<std::size_t>(l.dim)].links};
}

bool Torus::has_lanes() const {
  return std::any_of(dims_.begin(), dims_.end(), [](const TorusDim& d) { return d.links > 1; });
}

int Torus::offset(std::size_t dim, RouterId from, RouterId to) const {
  const Step s = step(dim, coordinate(from, dim), coordinate(to, dim));
  return s.direction * s.count;
}

// The + link from the last coordinate to 0, and the - link from 0 to the last.
bool Torus::crosses_dateline(LinkId id) const {
  const LinkInfo& l = links_[static_cast<std::size_t>(id)];
  if (l.kind != LinkKind::network) return false;
  const TorusDim& d = dims_[static_cast<std::size_t>(l.dim)];
  const int c = coordinate(l.from, static_cast<std::size_t>(l.dim));
  return d.wrap && (l.direction > 0 ? c == d.size - 1 : c == 0);
}

int Torus::hops(NodeId a, NodeId b) const {
  int total = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d)
    total += step(d, coordinate(router_of(a), d), coordinate(router_of(b), d)).count;
  return total;
}

namespace {

// Mean and maximum hops along one dimension over all ordered coordinate pairs.
std::pair<double, int> ring_distances(const TorusDim& d) {
  std::int64_t sum = 0;
  int max = 0;
  for (int delta = 0; delta < d.size; ++delta) {
    // For a mesh, delta counts pairs (i, i + delta) in both orders: 2 (k - delta) pairs.
    const int distance = d.wrap ? std::min(delta, d.size - delta) : delta;
    sum += d.wrap ? std::int64_t{d.size} * distance : (delta == 0 ? 0 : 2 * std::int64_t{d.size - delta} * distance);
    max = std::max(max, distance);
  }
  return {static_cast<double>(sum) / (static_cast<double>(d.size) * d.size), max};
}

// One direction across the weakest of the cuts that halve one dimension d (size >= 2): each of
// the routers / size_d lines along d crosses the cut once, or twice when it wraps (a size-2
// wrap ring too: its + and - links are distinct wires). 0 when no dimension has two routers.
// 128 bits so that parsing can reject shapes whose figure does not fit a Rate.
Int128 torus_bisection(const std::vector<TorusDim>& dims) {
  Int128 routers = 1;
  for (const auto& d : dims) routers *= d.size;
  Int128 weakest = 0;
  for (const auto& d : dims) {
    if (d.size < 2) continue;
    const Int128 cut = routers / d.size * (d.wrap ? 2 : 1) * d.links * d.bandwidth;
    weakest = weakest == 0 ? cut : std::min(weakest, cut);
  }
  return weakest;
}

}  // namespace

Summary Torus::summary() const {
  Summary s;
  s.nodes = node_count_;
  s.routers = router_count_;
  s.network_links =
      std::count_if(links_.begin(), links_.end(), [](const LinkInfo& l) { return l.kind == LinkKind::network; });
  double mean_router_distance = 0;
  for (const auto& d : dims_) {
    const auto [mean, max] = ring_distances(d);
    mean_router_distance += mean;
    s.diameter += max;
  }
  // Over ordered pairs of distinct nodes: all router pairs weighted by concentration^2, the
  // zero-hop pairs of a node with itself left out.
  const double n = static_cast<double>(node_count_);
  s.average_hops = n > 1 ? mean_router_distance * n * n / (n * (n - 1)) : 0.0;
  s.bisection_bandwidth = static_cast<Rate>(torus_bisection(dims_));
  return s;
}

std::string Torus::node_label(NodeId n) const {
  std::string label = "(";
  for (std::size_t d = 0; d < dims_.size(); ++d) label += (d ? "," : "") + std::to_string(coordinate(router_of(n), d));
  return label + ")/" + std::to_string(n % concentration_);
}

nlohmann::json Torus::describe() const {
  nlohmann::json dims = nlohmann::json::array();
  for (const auto& d : dims_)
    dims.push_back({{"name", d.name},
                    {"size", d.size},
                    {"wrap", d.wrap},
                    {"links", d.links},
                    {"link_bandwidth_Bps", d.bandwidth},
                    {"link_latency_ps", d.latency}});
  return {{"type", type_},
          {"dims", dims},
          {"concentration", concentration_},
          {"routing", name_of(kRoutingNames, routing_)},
          {"ties", name_of(kTieNames, ties_)}};
}

namespace {

TorusDim parse_dim(const ParamReader& r, std::size_t index, bool wrap_default) {
  TorusDim d = parse_fields(r, kDimFields);
  d.name = r.has("name") ? r.text("name") : "d" + std::to_string(index);
  if (d.name.empty()) r.where("name").fail("expected a non-empty dimension name such as \"X\"");
  d.wrap = r.has("wrap") ? r.boolean("wrap") : wrap_default;
  return d;
}

}  // namespace

std::unique_ptr<Topology> make_torus(const ParamReader& r, const NodeLinks& node_links) {
  const std::string type = r.text("type");
  const Json& list = r.nested("dims");
  if (list.empty() || list.size() > 6)
    r.where("dims").fail("expected 1 to 6 dimensions, got " + std::to_string(list.size()));
  std::vector<TorusDim> dims;
  std::set<std::string> names;
  std::int64_t routers = 1;
  for (std::size_t i = 0; i < list.size(); ++i) {
    dims.push_back(parse_dim(ParamReader(list[i], r.where("dims") / i, kTorusDimParams), i, type == "torus"));
    if (!names.insert(dims.back().name).second)
      (r.where("dims") / i / "name").fail("dimension name '" + dims.back().name + "' is used twice");
    routers *= dims.back().size;
    if (routers > (1 << 22)) r.where("dims").fail("at most 4,194,304 routers (2^22) are supported");
  }
  if (torus_bisection(dims) > INT64_MAX)
    r.where("dims").fail(
        "the bisection bandwidth of this shape does not fit a 64-bit rate (9.2e18 B/s); use "
        "smaller dimensions, fewer links or a lower link_bandwidth");
  const TorusOptions options = parse_fields(r, kFields);
  const int concentration = options.concentration;
  std::int64_t network_links = 0;
  for (const auto& d : dims)
    if (d.size > 1) network_links += routers * 2 * d.links;
  check_fits_in_memory("a " + type + " of " + std::to_string(routers) + " routers", network_links,
                       routers * concentration, r.where("dims"));
  return std::make_unique<Torus>(type, std::move(dims), concentration, options.routing, node_links, options.ties);
}

}  // namespace torsim::topo
