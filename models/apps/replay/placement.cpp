#include <algorithm>
#include <map>

#include "models/apps/replay/replay.hpp"

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

// Hosts in order of first appearance; each rank's host's index.
std::vector<std::int32_t> host_indices(const Trace& trace, std::int32_t& hosts) {
  std::map<std::string, std::int32_t> seen;
  std::vector<std::int32_t> index;
  for (std::int32_t r = 0; r < trace.ranks(); ++r)
    index.push_back(seen.try_emplace(trace.rank(r).host, static_cast<std::int32_t>(seen.size())).first->second);
  hosts = static_cast<std::int32_t>(seen.size());
  return index;
}

// The trace's hosts as consecutive nodes, when its ranks sit on them in blocks or round robin
// (the orders a placement expresses).
rt::Placement from_hosts(const Trace& trace, const Where& where, const Machine& machine) {
  for (std::int32_t r = 0; r < trace.ranks(); ++r)
    if (trace.rank(r).host.empty())
      where.fail("\"from_trace\" needs the host each rank ran on; the trace records none for rank " +
                 std::to_string(r) + " (" + trace.path() + ")");
  std::int32_t hosts = 0;
  const auto host = host_indices(trace, hosts);
  const std::int32_t n = trace.ranks();
  const std::int32_t per_host = static_cast<std::int32_t>(std::count(host.begin(), host.end(), 0));
  bool block = true, round_robin = true;
  for (std::int32_t r = 0; r < n; ++r) {
    block = block && host[static_cast<std::size_t>(r)] == r / per_host;
    round_robin = round_robin && host[static_cast<std::size_t>(r)] == r % hosts;
  }
  if (!block && !round_robin)
    where.fail("the trace's ranks sit on its " + std::to_string(hosts) +
               " hosts neither in blocks nor round robin, which a placement cannot express (" + trace.path() + ")");
  if (hosts > machine.node_count() || per_host > slots_per_node(machine))
    where.fail("the trace ran " + std::to_string(per_host) + " ranks on each of " + std::to_string(hosts) +
               " hosts; machine '" + machine.name + "' has " + std::to_string(machine.node_count()) + " nodes of " +
               std::to_string(slots_per_node(machine)) + " hardware threads");
  rt::Placement p;
  p.ranks_per_node = block ? per_host : (n + hosts - 1) / hosts;
  p.round_robin = !block;
  for (NodeId node = 0; node < hosts; ++node) p.nodes.push_back(node);
  return p;
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
    if (!rest["from_trace"].is_boolean())
      (where / "from_trace").fail("expected true or false, got " + preview(rest["from_trace"]));
    const bool from_trace = rest["from_trace"].get<bool>();
    rest.erase("from_trace");
    if (from_trace && !rest.empty())
      (where / rest.begin().key()).fail("\"from_trace\" places every rank: give no other placement key");
    if (from_trace) return from_hosts(trace, where / "from_trace", machine);
  }
  if (rest.empty() && spec.is_object()) return packed(trace.ranks(), machine);
  rt::Placement p = rt::parse_placement(spec.is_object() ? rest : spec, where, machine);
  if (p.size() < trace.ranks())
    where.fail("the placement gives " + std::to_string(p.size()) + " ranks; the trace has " +
               std::to_string(trace.ranks()));
  return p;
}

}  // namespace torsim::replay
