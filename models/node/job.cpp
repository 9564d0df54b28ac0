#include "models/node/job.hpp"

#include <set>
#include <string_view>
#include <vector>

#include "sim/config/fields.hpp"
#include "sim/config/registry.hpp"

namespace torsim::node {

namespace {
constexpr ChoiceName<bool> kOrderNames[] = {{"block", false}, {"round_robin", true}};

// The placement's keys: the placement itself, and the allocation parse_placement makes of
// nodes, node_list and mode (which depend on the machine). from_trace is read by the trace
// replay workload (docs/replay.md).
struct PlacementKeys : Placement {
  std::int64_t node_count = 0;  // 0: not given, every node
  std::vector<std::int64_t> node_list;
  std::string mode;
};
using K = PlacementKeys;
constexpr Field<K> kFields[] = {
    bind<&K::node_count>({"nodes", ParamKind::integer, kUnset, "", "1", "",
                          "number of nodes allocated, from node 0 (default: all)", "-"}),
    bind<&K::node_list>({"node_list", ParamKind::integer_list, kUnset, "", "0", "",
                         "explicit node ids to allocate, in rank order (instead of 'nodes')", "-"}),
    bind<&Placement::ranks_per_node, K>({"ranks_per_node", ParamKind::integer, "1", "", "1", "4096",
                                         "ranks on each allocated node (<= cores x threads_per_core)", "-"}),
    bind<&K::mode>({"mode", ParamKind::text, "", "", "", "",
                    "a node mode of the machine (machine.node.modes, e.g. Blue Gene/P's "
                    "SMP, DUAL or VN), instead of 'ranks_per_node'",
                    "-"}),
    bind_choice<&Placement::round_robin, kOrderNames, K>({"order", ParamKind::choice, "block", "", "", "",
                                                          "block: consecutive ranks share a node; round_robin: "
                                                          "consecutive ranks go to consecutive nodes",
                                                          "-", "block|round_robin"}),
    unbound<K>({"from_trace", ParamKind::boolean, "false", "", "", "",
                "a trace replay's ranks where the trace says they ran: its DUMPI mesh coordinates "
                "on a torus, else its host names (workload trace only, with no other placement key; docs/replay.md)",
                "-"}),
};
constexpr auto kSpecs = specs_of(kFields);

// Processes per node of one of the machine's named node modes.
int ranks_of_mode(const Machine& machine, const std::string& mode, const Where& where) {
  const Json& modes = machine.node.modes;
  if (modes.contains(mode)) return modes[mode].get<int>();
  if (modes.empty()) where.fail("machine '" + machine.name + "' names no node modes; give ranks_per_node");
  std::vector<std::string_view> valid;
  for (auto it = modes.begin(); it != modes.end(); ++it) valid.push_back(it.key());
  where.fail("machine '" + machine.name + "': " + unknown_name_message("node mode", mode, valid));
}

// The allocated nodes, in rank order: node_list's, else the first `nodes` (default: all).
std::vector<NodeId> allocated_nodes(const PlacementKeys& k, const ParamReader& r, std::int64_t machine_nodes) {
  std::vector<NodeId> nodes;
  if (r.has("node_list")) {
    std::set<std::int64_t> seen;
    for (std::size_t i = 0; i < k.node_list.size(); ++i) {
      const std::int64_t node = k.node_list[i];
      if (node >= machine_nodes)
        (r.where("node_list") / i)
            .fail("node " + std::to_string(node) + " does not exist; the machine has " + std::to_string(machine_nodes) +
                  " nodes");
      if (!seen.insert(node).second) (r.where("node_list") / i).fail("node listed twice");
      nodes.push_back(static_cast<NodeId>(node));
    }
    if (nodes.empty()) r.where("node_list").fail("expected at least one node");
    return nodes;
  }
  const std::int64_t count = r.has("nodes") ? k.node_count : machine_nodes;
  if (count > machine_nodes)
    r.where("nodes").fail("the job asks for " + std::to_string(count) + " nodes; the machine has " +
                          std::to_string(machine_nodes));
  for (NodeId n = 0; n < count; ++n) nodes.push_back(n);
  return nodes;
}

}  // namespace

const ParamTable kPlacementParams{"placement", "Where the job's ranks run.", kSpecs};

Placement parse_placement(const Json& spec, const Where& where, const Machine& machine) {
  ParamReader r(spec, where, kPlacementParams);
  if (r.has("nodes") && r.has("node_list")) where.fail("give either 'nodes' or 'node_list', not both");
  const PlacementKeys k = parse_fields(r, kFields);
  Placement p = k;
  p.nodes = allocated_nodes(k, r, machine.node_count());
  if (!k.mode.empty()) {
    if (r.has("ranks_per_node")) where.fail("give either 'mode' or 'ranks_per_node', not both");
    p.ranks_per_node = ranks_of_mode(machine, k.mode, r.where("mode"));
  }
  const int slots = machine.node.cores * machine.node.threads_per_core;
  if (p.ranks_per_node > slots)
    r.where("ranks_per_node")
        .fail("at most " + std::to_string(slots) + " ranks per node (" + std::to_string(machine.node.cores) +
              " cores x " + std::to_string(machine.node.threads_per_core) + " hardware threads)");
  if (r.has("from_trace"))
    r.where("from_trace").fail("\"from_trace\" places a trace replay's ranks; this workload does not read it");
  return p;
}

}  // namespace torsim::node
