#include <algorithm>
#include <map>

#include "models/apps/replay/replay.hpp"
#include "topologies/torus.hpp"

namespace torsim::replay {

using rt::NodeId;

namespace {

std::int64_t slots_per_node(const Machine& m) { return std::int64_t{m.node.cores} * m.node.threads_per_core; }

// The ranks fill each node's cores in turn (hardware threads too when the cores run out).
rt::Placement packed(std::int32_t ranks, const Machine& machine) {
  const std::int64_t per_node = std::min<std::int64_t>(ranks, machine.node.cores);
  const std::int64_t nodes = (ranks + per_node - 1) / per_node;
  rt::Placement p;
  p.ranks_per_node = static_cast<int>(
      nodes <= machine.node_count() ? per_node : (ranks + machine.node_count() - 1) / machine.node_count());
  for (NodeId n = 0; n < (ranks + p.ranks_per_node - 1) / p.ranks_per_node; ++n) p.nodes.push_back(n);
  return p;
}

// Each rank's group as an index in order of first appearance, from any key.
template <class Key>
std::vector<std::int32_t> first_appearance(const std::vector<Key>& keys, std::int32_t& groups) {
  std::map<Key, std::int32_t> seen;
  std::vector<std::int32_t> index;
  for (const Key& key : keys)
    index.push_back(seen.try_emplace(key, static_cast<std::int32_t>(seen.size())).first->second);
  groups = static_cast<std::int32_t>(seen.size());
  return index;
}

// Rank r on node nodes[group[r]], when the ranks sit on their nodes in blocks or round robin
// (the orders a placement expresses).
rt::Placement grouped(const Trace& trace, const std::vector<std::int32_t>& group, std::vector<NodeId> nodes,
                      const char* what, const Where& where, const Machine& machine) {
  const std::int32_t n = trace.ranks();
  const auto groups = static_cast<std::int32_t>(nodes.size());
  const std::int32_t per_group = static_cast<std::int32_t>(std::count(group.begin(), group.end(), 0));
  bool block = true, round_robin = true;
  for (std::int32_t r = 0; r < n; ++r) {
    block = block && group[static_cast<std::size_t>(r)] == r / per_group;
    round_robin = round_robin && group[static_cast<std::size_t>(r)] == r % groups;
  }
  if (!block && !round_robin)
    where.fail("the trace's ranks sit on its " + std::to_string(groups) + " " + what +
               " neither in blocks nor round robin, which a placement cannot express (" + trace.path() + ")");
  if (per_group > slots_per_node(machine))
    where.fail("the trace ran " + std::to_string(per_group) + " ranks on each of its " + std::to_string(groups) + " " +
               what + "; machine '" + machine.name + "' has " + std::to_string(slots_per_node(machine)) +
               " hardware threads a node");
  rt::Placement p;
  p.ranks_per_node = block ? per_group : (n + groups - 1) / groups;
  p.round_robin = !block;
  p.nodes = std::move(nodes);
  return p;
}

// The trace's hosts as consecutive nodes, in order of first appearance.
rt::Placement from_hosts(const Trace& trace, const Where& where, const Machine& machine) {
  std::vector<std::string> hosts;
  for (std::int32_t r = 0; r < trace.ranks(); ++r) {
    if (trace.rank(r).host.empty())
      where.fail(
          "\"from_trace\" needs the host each rank ran on (or, on a torus, its mesh coordinates); the trace "
          "records none for rank " +
          std::to_string(r) + " (" + trace.rank(r).file + ")");
    hosts.push_back(trace.rank(r).host);
  }
  std::int32_t count = 0;
  const auto group = first_appearance(hosts, count);
  if (count > machine.node_count())
    where.fail("the trace ran on " + std::to_string(count) + " hosts; machine '" + machine.name + "' has " +
               std::to_string(machine.node_count()) + " nodes");
  std::vector<NodeId> nodes;
  for (NodeId node = 0; node < count; ++node) nodes.push_back(node);
  return grouped(trace, group, std::move(nodes), "hosts", where, machine);
}

bool has_coordinates(const Trace& trace) {
  for (std::int32_t r = 0; r < trace.ranks(); ++r)
    if (trace.rank(r).coords.empty()) return false;
  return trace.ranks() > 0;
}

std::string listed(const std::vector<std::int32_t>& values) {
  std::string s;
  for (const std::int32_t v : values) s += (s.empty() ? "" : ",") + std::to_string(v);
  return "(" + s + ")";
}

// Each rank's router, from its mesh coordinates; coordinates outside the machine are an error.
std::vector<topo::RouterId> routers_of(const Trace& trace, const topo::Torus& torus, const Where& where,
                                       const Machine& machine) {
  const auto& dims = torus.dims();
  std::string shape;
  for (const auto& d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d.size);
  // The router at each coordinate tuple, by a linear index of our own (whatever the
  // topology's numbering).
  std::vector<topo::RouterId> at(static_cast<std::size_t>(torus.router_count()));
  const auto linear = [&](auto coordinate) {
    std::int64_t index = 0;
    for (std::size_t d = dims.size(); d-- > 0;) index = index * dims[d].size + coordinate(d);
    return static_cast<std::size_t>(index);
  };
  for (topo::RouterId r = 0; r < torus.router_count(); ++r)
    at[linear([&](std::size_t d) { return torus.coordinate(r, d); })] = r;
  std::vector<topo::RouterId> routers;
  for (std::int32_t r = 0; r < trace.ranks(); ++r) {
    const auto& c = trace.rank(r).coords;
    bool fits = c.size() == dims.size();
    for (std::size_t d = 0; fits && d < dims.size(); ++d) fits = c[d] >= 0 && c[d] < dims[d].size;
    if (!fits)
      where.fail("rank " + std::to_string(r) + " ran at mesh coordinates " + listed(c) + " (" + trace.rank(r).file +
                 "); machine '" + machine.name + "' is a " + std::to_string(dims.size()) + "-dimensional " +
                 std::string(torus.type()) + " of " + shape + " routers: expected " + std::to_string(dims.size()) +
                 " coordinates, each from 0 to its dimension's size - 1");
    routers.push_back(at[linear([&](std::size_t d) { return c[d]; })]);
  }
  return routers;
}

// Ranks at a router's coordinates go to its nodes (a Gemini router serves two): with host
// names, the router's hosts in order of first appearance take its nodes in turn; without,
// the ranks fill its first node's cores, then the next node's.
rt::Placement from_coordinates(const Trace& trace, const topo::Torus& torus, const Where& where,
                               const Machine& machine) {
  const auto routers = routers_of(trace, torus, where, machine);
  const int concentration = torus.concentration();
  bool named = true;
  for (std::int32_t r = 0; r < trace.ranks(); ++r) named = named && !trace.rank(r).host.empty();
  std::map<topo::RouterId, std::int32_t> ranks_at;
  for (const auto router : routers) ++ranks_at[router];
  std::map<topo::RouterId, std::vector<std::string>> hosts_at;  // by first appearance
  std::map<topo::RouterId, std::int32_t> placed;
  std::vector<NodeId> node_of_rank;
  for (std::int32_t r = 0; r < trace.ranks(); ++r) {
    const auto router = routers[static_cast<std::size_t>(r)];
    std::int64_t slot = 0;
    if (named) {
      auto& hosts = hosts_at[router];
      const auto it = std::find(hosts.begin(), hosts.end(), trace.rank(r).host);
      slot = it - hosts.begin();
      if (it == hosts.end()) hosts.push_back(trace.rank(r).host);
    } else {
      const std::int64_t per_node =
          std::max<std::int64_t>(machine.node.cores, (ranks_at[router] + concentration - 1) / concentration);
      slot = placed[router]++ / per_node;
    }
    if (slot >= concentration)
      where.fail("rank " + std::to_string(r) + " (" + trace.rank(r).file + ") needs node " + std::to_string(slot + 1) +
                 " at mesh coordinates " + listed(trace.rank(r).coords) + " (" +
                 (named ? "its host is the coordinates' " + std::to_string(slot + 1) + "-th" : "no host names") +
                 "); machine '" + machine.name + "' has " + std::to_string(concentration) + " node(s) a router");
    node_of_rank.push_back(static_cast<NodeId>(std::int64_t{router} * concentration + slot));
  }
  std::int32_t count = 0;
  const auto group = first_appearance(node_of_rank, count);
  std::vector<NodeId> nodes(static_cast<std::size_t>(count));
  for (std::size_t r = 0; r < group.size(); ++r) nodes[static_cast<std::size_t>(group[r])] = node_of_rank[r];
  return grouped(trace, group, std::move(nodes), "nodes", where, machine);
}

// From the trace's mesh coordinates on a torus or mesh machine when every rank has them,
// else from its host names.
rt::Placement as_recorded(const Trace& trace, const Where& where, const Machine& machine) {
  const auto* torus = dynamic_cast<const topo::Torus*>(machine.topology.get());
  if (torus != nullptr && has_coordinates(trace)) return from_coordinates(trace, *torus, where, machine);
  return from_hosts(trace, where, machine);
}

}  // namespace

rt::Placement trace_placement(const Trace& trace, const Json& spec, const Where& where, const Where& trace_where,
                              const Machine& machine) {
  const std::int64_t slots = machine.node_count() * slots_per_node(machine);
  if (trace.ranks() > slots)
    trace_where.fail("the trace has " + std::to_string(trace.ranks()) + " ranks; machine '" + machine.name + "' has " +
                     std::to_string(slots) + " cores (" + std::to_string(machine.node_count()) + " nodes x " +
                     std::to_string(slots_per_node(machine)) + " hardware threads)");
  Json rest = spec.is_object() ? spec : Json::object();
  if (rest.contains("from_trace")) {
    const bool from_trace = ParamReader(spec, where, node::kPlacementParams).boolean("from_trace");
    rest.erase("from_trace");
    if (from_trace && !rest.empty())
      (where / rest.begin().key()).fail("\"from_trace\" places every rank: give no other placement key");
    if (from_trace) return as_recorded(trace, where / "from_trace", machine);
  }
  if (rest.empty() && spec.is_object()) return packed(trace.ranks(), machine);
  rt::Placement p = rt::parse_placement(spec.is_object() ? rest : spec, where, machine);
  if (p.size() < trace.ranks())
    where.fail("the placement gives " + std::to_string(p.size()) + " ranks; the trace has " +
               std::to_string(trace.ranks()));
  return p;
}

}  // namespace torsim::replay
