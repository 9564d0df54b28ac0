#include "models/network/analytic.hpp"

#include <algorithm>

#include "models/network/route.hpp"

namespace torsim::net {

namespace {
constexpr ParamSpec kSpecs[] = {kNetworkModelKey};
}  // namespace

const ParamTable kAnalyticModelParams{"network (model: analytic)", "Contention-free latency + size / bandwidth.",
                                      kSpecs};

void AnalyticModel::start(const TransferRequest& request) {
  ++counters_.messages;
  counters_.payload_bytes += request.bytes;
  const Time now = kernel_.now();
  if (request.src == request.dst) {
    ++counters_.intra_node_messages;
    memory_busy_[static_cast<std::size_t>(request.src)] += memcpy_time(request.bytes) - machine_.node.memcpy_latency;
    notify(now + memcpy_time(request.bytes), request.on_injected);
    notify(now + memcpy_time(request.bytes), request.on_delivered);
    return;
  }
  const Bytes wire = format_of(request).wire_bytes(request.bytes);
  counters_.wire_bytes += wire;
  ++counters_.trains;
  if (request.rail >= 0)
    topology_.route_on_rail(request.src, request.dst, request.rail, route_);
  else
    topology_.route(request.src, request.dst, route_);
  const Time head_start = now + machine_.node.nic_latency;
  RouteCost cost;
  for (LinkId l : route_) {
    const auto& link = topology_.link(l);
    const Time busy = transfer_time(wire, link.bandwidth);
    observe_booking(l, head_start + cost.latency + busy, busy);  // from when the head reaches the link
    cost.add(link);
    link_busy_[static_cast<std::size_t>(l)] += busy;
  }
  const auto& injection = topology_.link(route_.front());
  notify(now + transfer_time(wire, injection.bandwidth), request.on_injected);  // the NIC's latency is a pipeline
  notify(head_start + cost.latency + transfer_time(wire, cost.bottleneck), request.on_delivered);
}

}  // namespace torsim::net
