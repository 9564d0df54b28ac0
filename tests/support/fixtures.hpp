// Small machines and helpers shared by the unit tests.
#pragma once

#include <algorithm>
#include <string>

#include "models/machine.hpp"
#include "models/network/network_model.hpp"

namespace torsim::test {

/// A machine object around a topology object, with round numbers that make closed forms easy.
inline Json machine_json(const Json& topology, const std::string& injection = "10GB/s",
                         const std::string& nic_latency = "500ns") {
  return Json{{"name", "test"},
              {"topology", topology},
              {"node",
               {{"cores", 4},
                {"injection_bandwidth", injection},
                {"ejection_bandwidth", injection},
                {"nic_latency", nic_latency},
                {"memcpy_bandwidth", "8GB/s"},
                {"memcpy_latency", "100ns"}}},
              {"packet", {{"payload", "64B"}, {"header", "32B"}}}};
}

inline Json torus_json(const std::vector<int>& sizes, const std::vector<std::string>& bandwidths, int concentration = 1,
                       const std::string& routing = "dimension_order", bool wrap = true) {
  Json dims = Json::array();
  for (std::size_t i = 0; i < sizes.size(); ++i)
    dims.push_back({{"size", sizes[i]}, {"wrap", wrap}, {"link_bandwidth", bandwidths[i]}, {"link_latency", "100ns"}});
  return {{"type", "torus"}, {"dims", dims}, {"concentration", concentration}, {"routing", routing}};
}

inline Machine make_machine(const Json& machine) { return parse_machine(machine, Where("test")); }

/// The closed form of an uncontended transfer between two nodes: NIC latency + link latencies
/// + wire bytes over the bottleneck bandwidth.
inline Time closed_form(const Machine& m, topo::NodeId src, topo::NodeId dst, Bytes bytes) {
  std::vector<topo::LinkId> route;
  m.topology->route(src, dst, route);
  Time latency = m.node.nic_latency;
  Rate bottleneck = INT64_MAX;
  for (auto l : route) {
    latency += m.topology->link(l).latency;
    bottleneck = std::min(bottleneck, m.topology->link(l).bandwidth);
  }
  return latency + transfer_time(m.packet.wire_bytes(bytes), bottleneck);
}

/// Records when a transfer's callbacks fire.
struct Completion {
  Time injected = -1;
  Time delivered = -1;
  Kernel* kernel = nullptr;
  static void on_injected(void* c, std::uint64_t) {
    auto* self = static_cast<Completion*>(c);
    self->injected = self->kernel->now();
  }
  static void on_delivered(void* c, std::uint64_t) {
    auto* self = static_cast<Completion*>(c);
    self->delivered = self->kernel->now();
  }
  net::TransferRequest request(topo::NodeId src, topo::NodeId dst, Bytes bytes) {
    return {src, dst, bytes, {on_injected, this, 0}, {on_delivered, this, 0}};
  }
};

}  // namespace torsim::test
