#include "sim/simulation.hpp"

#include <algorithm>

namespace torsim {

Simulation::Simulation(const Json& doc, const Where& where, std::uint64_t seed)
    : kernel_(std::make_unique<Kernel>()), machine_(parse_machine(doc.at("machine"), where / "machine")) {
  network_ = net::make_network_model(doc.value("network", Json::object()), where / "network", *kernel_, machine_);
  auto placement = rt::parse_placement(doc.value("placement", Json::object()), where / "placement", machine_);
  job_ = std::make_unique<rt::Job>(rt::Job{*kernel_, machine_, *network_, std::move(placement), seed});
  layer_ = rt::make_messaging_layer(doc.value("runtime", Json::object()), where / "runtime", *job_);
  workload_ = apps::make_workload(doc.at("workload"), where / "workload");
  workload_->check(*job_, where / "workload");
}

// Processes refer to the layer and the workload: destroy them first.
Simulation::~Simulation() { kernel_->shutdown(); }

PointResult Simulation::run(const std::function<void(const Kernel&)>& progress) {
  if (progress) kernel_->set_progress_hook(1 << 16, progress);
  workload_->start(*layer_);
  kernel_->run();
  PointResult result;
  workload_->finish(result.output);
  result.simulated_time = kernel_->now();
  result.events = kernel_->events_processed();
  result.blocked_processes = kernel_->live_processes();
  result.counters = counters_json();
  result.job = {{"nodes", job_->placement.nodes.size()},
                {"ranks", job_->size()},
                {"ranks_per_node", job_->placement.ranks_per_node},
                {"network_model", network_->name()},
                {"messaging_layer", layer_->name()}};
  result.link_busy = network_->link_busy();
  return result;
}

namespace {

// Utilisation of each kind of link: mean and max of busy time / simulated time.
Json utilisation(const topo::Topology& t, const std::vector<Time>& busy, Time elapsed, topo::LinkKind kind) {
  double max = 0, sum = 0;
  std::int64_t count = 0, busiest = -1;
  for (topo::LinkId l = 0; l < t.link_count(); ++l) {
    if (t.link(l).kind != kind) continue;
    const double u = elapsed > 0 ? static_cast<double>(busy[static_cast<std::size_t>(l)]) / static_cast<double>(elapsed) : 0;
    if (u > max) busiest = l;
    max = std::max(max, u);
    sum += u;
    ++count;
  }
  return {{"links", count}, {"max", max}, {"mean", count ? sum / static_cast<double>(count) : 0.0}, {"busiest_link", busiest}};
}

}  // namespace

Json Simulation::counters_json() const {
  const auto& c = network_->counters();
  const auto& t = *machine_.topology;
  const auto& busy = network_->link_busy();
  const Time elapsed = kernel_->now();
  return {{"events", kernel_->events_processed()},
          {"messages", c.messages},
          {"intra_node_messages", c.intra_node_messages},
          {"trains", c.trains},
          {"payload_bytes", c.payload_bytes},
          {"wire_bytes", c.wire_bytes},
          {"utilisation",
           {{"network", utilisation(t, busy, elapsed, topo::LinkKind::network)},
            {"injection", utilisation(t, busy, elapsed, topo::LinkKind::injection)},
            {"ejection", utilisation(t, busy, elapsed, topo::LinkKind::ejection)}}}};
}

Json machine_summary(const Machine& machine) {
  const auto s = machine.topology->summary();
  return {{"name", machine.name},
          {"description", machine.description},
          {"nodes", s.nodes},
          {"cores", machine.core_count()},
          {"routers", s.routers},
          {"network_links", s.network_links},
          {"diameter_hops", s.diameter},
          {"average_hops", s.average_hops},
          {"bisection_bandwidth_GBps", static_cast<double>(s.bisection_bandwidth) / 1e9},
          {"topology", machine.topology->describe()}};
}

}  // namespace torsim
