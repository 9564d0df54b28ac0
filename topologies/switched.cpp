#include "topologies/switched.hpp"

#include <algorithm>

namespace torsim::topo {

namespace {

constexpr ParamSpec kCrossbarSpecs[] = {
    {"type", ParamKind::text, kRequired, "", "", "", "crossbar", "-"},
    {"nodes", ParamKind::integer, kRequired, "", "1", "65536", "ports of the switch (one node each)", "preset"},
    {"link_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms", "traversal latency of the switch", "preset"},
};

}  // namespace

const ParamTable kCrossbarParams{"machine.topology (type: crossbar)",
                                 "One switch; port bandwidth is the node's injection/ejection bandwidth.",
                                 kCrossbarSpecs};

// ---- Crossbar

Crossbar::Crossbar(int nodes, Time switch_latency, const NodeLinks& node_links) : switch_latency_(switch_latency) {
  init_graph(1, nodes);
  add_node_links(node_links, switch_latency);  // no network links: the injection link enters the switch
}

void Crossbar::route(NodeId src, NodeId dst, std::vector<LinkId>& out) const {
  out.clear();
  if (src == dst) return;
  out.push_back(injection_link(src));
  out.push_back(ejection_link(dst));
}

Summary Crossbar::summary() const {
  Summary s;
  s.nodes = node_count_;
  s.routers = 1;
  const Rate port = std::min(link(injection_link(0)).bandwidth, link(ejection_link(0)).bandwidth);
  s.bisection_bandwidth = static_cast<Rate>(node_count_ / 2) * port;
  return s;
}

nlohmann::json Crossbar::describe() const {
  return {{"type", "crossbar"}, {"nodes", node_count_}, {"switch_latency_ps", switch_latency_}};
}

std::unique_ptr<Topology> make_crossbar(const ParamReader& r, const NodeLinks& node_links) {
  return std::make_unique<Crossbar>(static_cast<int>(r.integer("nodes")), r.time("link_latency"), node_links);
}

}  // namespace torsim::topo
