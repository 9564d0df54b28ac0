#include "models/network/network_model.hpp"

#include "models/network/analytic.hpp"
#include "models/network/flow_control.hpp"
#include "models/network/link_timeline.hpp"
#include "models/network/packet.hpp"
#include "models/network/simgrid.hpp"
#include "sim/config/registry.hpp"

namespace torsim::net {

NetworkModel::NetworkModel(Kernel& kernel, const Machine& machine)
    : kernel_(kernel),
      machine_(machine),
      topology_(*machine.topology),
      link_busy_(static_cast<std::size_t>(topology_.link_count()), 0),
      memory_busy_(static_cast<std::size_t>(topology_.node_count()), 0) {}

Time NetworkModel::memcpy_time(Bytes bytes) const {
  return machine_.node.memcpy_latency + transfer_time(bytes, machine_.node.memcpy_bandwidth);
}

void NetworkModel::copy_within_node(LinkTimeline& copy_engine, const TransferRequest& request) {
  ++counters_.intra_node_messages;
  const Time now = kernel_.now();
  copy_engine.forget_before(now);
  const Time duration = transfer_time(request.bytes, machine_.node.memcpy_bandwidth);
  const auto plan = copy_engine.plan(now, duration);
  copy_engine.book(plan);
  memory_busy_[static_cast<std::size_t>(request.src)] += duration;
  const Time done = plan.end + machine_.node.memcpy_latency;
  notify(done, request.on_injected);
  notify(done, request.on_delivered);
}

namespace {

std::unique_ptr<NetworkModel> make_packet(const ParamReader& r, Kernel& kernel, const Machine& machine) {
  const PacketModelParams p = parse_packet_model(r);
  if (p.credit_flow_control) return std::make_unique<CreditModel>(kernel, machine, p.train_bytes);
  return std::make_unique<PacketModel>(kernel, machine, p.train_bytes);
}

std::unique_ptr<NetworkModel> make_analytic(const ParamReader&, Kernel& kernel, const Machine& machine) {
  return std::make_unique<AnalyticModel>(kernel, machine);
}

}  // namespace

const std::vector<NetworkModelEntry>& network_models() {
  static const std::vector<NetworkModelEntry> entries{
      {"packet", "packet trains, cut-through timing, per-link contention, credit flow control (default)",
       &kPacketModelParams, make_packet},
      {"analytic", "contention-free latency + size / bandwidth, for very large runs", &kAnalyticModelParams,
       make_analytic},
      {"simgrid", "SimGrid 3.32 flow-level max-min sharing (LV08 or CM02), for cross-checks", &kSimgridModelParams,
       make_simgrid_model},
  };
  return entries;
}

std::unique_ptr<NetworkModel> make_network_model(const Json& spec, const Where& where, Kernel& kernel,
                                                 const Machine& machine) {
  if (!spec.is_object()) where.fail("expected an object such as {\"model\": \"packet\"}, got " + preview(spec));
  if (spec.contains("model") && !spec["model"].is_string())
    (where / "model").fail("expected a model name string, got " + preview(spec["model"]));
  const std::string model = spec.value("model", std::string("packet"));
  const auto& entry = find_entry(network_models(), model, "network model", where / "model");
  auto built = entry.make(ParamReader(spec, where, *entry.params), kernel, machine);
  // Credit flow control is the router section's only reader.
  if (dynamic_cast<const CreditModel*>(built.get()))
    note_router_read(machine);
  else
    router_not_used(machine, "this run's network model (" + model +
                                 (model == "packet" ? ", network.flow_control: none" : "") + ") has no router buffers");
  return built;
}

}  // namespace torsim::net
