#include "topologies/switched.hpp"

#include <algorithm>

#include "sim/config/fields.hpp"

namespace torsim::topo {

namespace {

struct CrossbarOptions {
  int nodes = 0;
  Time link_latency = 0;
};
using X = CrossbarOptions;
constexpr Field<X> kCrossbarFields[] = {
    unbound<X>({"type", ParamKind::text, kRequired, "", "", "", "crossbar", "-"}),
    bind<&X::nodes>(
        {"nodes", ParamKind::integer, kRequired, "", "1", "65536", "ports of the switch (one node each)", "preset"}),
    bind<&X::link_latency>(
        {"link_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms", "traversal latency of the switch", "preset"}),
};
constexpr auto kCrossbarSpecs = specs_of(kCrossbarFields);

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
  const CrossbarOptions o = parse_fields(r, kCrossbarFields);
  return std::make_unique<Crossbar>(o.nodes, o.link_latency, node_links);
}

}  // namespace torsim::topo
