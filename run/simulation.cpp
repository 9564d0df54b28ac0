#include "run/simulation.hpp"

#include <algorithm>
#include <stdexcept>

#include "run/child_process.hpp"

namespace torsim {

Simulation::Simulation(const Json& doc, const Where& where, std::uint64_t seed)
    : kernel_(std::make_unique<Kernel>()), machine_(parse_machine(doc.at("machine"), where / "machine")) {
  rt::check_machine_calibration(machine_);
  network_ = net::make_network_model(doc.value("network", Json::object()), where / "network", *kernel_, machine_);
  if (!doc.contains("workload")) where.fail("missing required key 'workload' (an object: {\"name\": ..., parameters})");
  workload_ = apps::make_workload(doc["workload"], where / "workload");
  const Json placement_spec = doc.value("placement", Json::object());
  auto placement = workload_->placement(placement_spec, where / "placement", machine_);
  if (!placement) placement = node::parse_placement(placement_spec, where / "placement", machine_);
  job_ = std::make_unique<node::Job>(*kernel_, machine_, *network_, std::move(*placement), seed);
  layer_ = rt::make_messaging_layer(doc.value("runtime", Json::object()), where / "runtime", *job_);
  workload_->check(*job_, where / "workload");
}

// Processes refer to the layer and the workload: destroy them first.
Simulation::~Simulation() { kernel_->shutdown(); }

PointResult Simulation::run(const std::function<void(const Kernel&)>& progress) {
  return network_->needs_own_process() ? run_in_child(progress) : run_here(progress);
}

PointResult Simulation::run_here(const std::function<void(const Kernel&)>& progress) {
  if (progress) kernel_->set_progress_hook(1 << 16, progress);
  workload_->start(*layer_);
  network_->drive(*kernel_);
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
  if (trace_) result.trace = trace_->finish(kernel_->now());
  if (mpi_recorder_) mpi_recorder_->finish();
  return result;
}

// Computation is written in flops at the machine's rate, so that a replay on the same machine
// runs it for the same time.
void Simulation::record_mpi(replay::TiSink& sink, const std::string& index_name, const Where& where) {
  if (network_->needs_own_process())
    where.fail("cannot record a run on the " + std::string(network_->name()) +
               " network model (it runs in a process of its own); record it on the packet or analytic model");
  if (!machine_.compute.contains("flop"))
    where.fail("a recording writes computation in flops at the machine's rate, machine.compute.flop, which machine '" +
               machine_.name + "' does not define");
  const double flop_time = static_cast<double>(machine_.compute_cost("flop", where));
  mpi_writer_ =
      std::make_unique<replay::TiWriter>(sink, index_name, job_->size(), replay::TiWriter::Layout::per_rank, where);
  mpi_recorder_ = std::make_unique<replay::MpiRecorder>(*mpi_writer_, job_->size(), flop_time, where);
  layer_->set_observer(mpi_recorder_.get());
}

void Simulation::trace(const TraceSettings& settings, std::size_t point, const std::string& label,
                       const std::string& fragment_path) {
  trace_ = std::make_unique<TraceRecorder>(settings, point, label, fragment_path, *job_);
  trace_->attach(*layer_, *network_, *workload_);
}

Json point_result_json(const PointResult& r) {
  Json series = Json::array();
  for (const auto& s : r.output.series) {
    Json one = s.to_json();
    one["name"] = s.name;
    series.push_back(std::move(one));
  }
  return {{"metrics", r.output.metrics},
          {"series", series},
          {"counters", r.counters},
          {"job", r.job},
          {"simulated_time", r.simulated_time},
          {"events", r.events},
          {"blocked_processes", r.blocked_processes},
          {"link_busy", r.link_busy},
          {"trace", r.trace}};
}

PointResult point_result_from_json(const Json& j) {
  PointResult r;
  r.output.metrics = j.at("metrics");
  for (const auto& s : j.at("series")) r.output.series.push_back(Series::from_json(s.at("name").get<std::string>(), s));
  r.counters = j.at("counters");
  r.job = j.at("job");
  r.simulated_time = j.at("simulated_time").get<Time>();
  r.events = j.at("events").get<std::uint64_t>();
  r.blocked_processes = j.at("blocked_processes").get<std::size_t>();
  r.link_busy = j.at("link_busy").get<std::vector<Time>>();
  r.trace = j.at("trace");
  return r;
}

// A backend that allows one simulation per process (SimGrid) runs each point in a forked
// child, which sends the result back as JSON (doubles round-trip exactly) and exits without
// unwinding. The parent never touches the backend's library, so sweeps and tests that run
// several points in one process work.
PointResult Simulation::run_in_child(const std::function<void(const Kernel&)>& progress) {
  return point_result_from_json(run_in_child_process([&] { return point_result_json(run_here(progress)); },
                                                     "the " + std::string(network_->name()) + " backend"));
}

namespace {

// Utilisation of each kind of link: mean and max of busy time / simulated time.
Json utilisation(const topo::Topology& t, const std::vector<Time>& busy, Time elapsed, topo::LinkKind kind) {
  double max = 0, sum = 0;
  std::int64_t count = 0, busiest = -1;
  for (topo::LinkId l = 0; l < t.link_count(); ++l) {
    if (t.link(l).kind != kind) continue;
    const double u =
        elapsed > 0 ? static_cast<double>(busy[static_cast<std::size_t>(l)]) / static_cast<double>(elapsed) : 0;
    if (u > max) busiest = l;
    max = std::max(max, u);
    sum += u;
    ++count;
  }
  return {{"links", count},
          {"max", max},
          {"mean", count ? sum / static_cast<double>(count) : 0.0},
          {"busiest_link", busiest}};
}

// Where the ranks' core time went: each use's total over all ranks, and the rest of ranks x
// elapsed time as idle (waiting for messages or for work). Sums to ranks x elapsed.
Json core_time(const node::CpuCharge& by_use, int ranks, Time elapsed) {
  Json out = Json::object();
  for (std::size_t i = 0; i < node::kCpuUses; ++i)
    out[std::string(node::cpu_use_name(static_cast<node::CpuUse>(i)))] = to_microseconds(by_use.parts[i]);
  out["idle"] = to_microseconds(std::max<Time>(0, static_cast<Time>(ranks) * elapsed - by_use.total()));
  return out;
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
          {"core_time_us", core_time(job_->cores.time_by_use(), job_->size(), elapsed)},
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
