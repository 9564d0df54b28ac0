// The SimGrid flow-level backend. The only file of the project that includes SimGrid headers.
#include "models/network/simgrid.hpp"

#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <utility>

#include <xbt/log.h>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>

#include "sim/config/fields.hpp"

namespace torsim::net {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using simgrid::kernel::routing::NetZoneImpl;
using simgrid::kernel::routing::Route;

namespace {
using O = SimgridOptions;
constexpr Field<O> kFields[] = {
    unbound<O>(kNetworkModelKey),
    bind<&O::sharing>(
        {"sharing", ParamKind::choice, "LV08", "", "", "",
         "SimGrid's flow-level sharing model (network/model): LV08 (max-min, RTT-weighted) or CM02 (plain max-min)",
         "Velho and Legrand, SIMUTools 2009 (LV08); Casanova and Marchal, 2002 (CM02)", "LV08|CM02"}),
    bind<&O::crosstraffic>(
        {"crosstraffic", ParamKind::boolean, "false", "", "", "",
         "SimGrid's network/crosstraffic: each transfer also loads the reverse route with 5 % of its size (TCP acks)",
         "assumption: off, because the packet model does not model acknowledgements either (like for like)"}),
    bind<&O::bandwidth_factor>(
        {"bandwidth_factor", ParamKind::number, "1", "", "0.001", "1000",
         "SimGrid's network/bandwidth-factor: multiplies every link bandwidth available to a flow",
         "assumption: 1 for a like-for-like cross-check (LV08's default 0.97 models TCP/IP header overhead; our "
         "wire bytes already include the packet headers)"}),
};
constexpr auto kSpecs = specs_of(kFields);

constexpr double kSecondsPerPicosecond = 1e-12;
double seconds(Time ps) { return static_cast<double>(ps) * kSecondsPerPicosecond; }
// Deterministic rounding of a SimGrid duration to our integer picoseconds.
Time picoseconds(double s) { return static_cast<Time>(std::llround(s * 1e12)); }

std::string fixed(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// A SimGrid zone holding one host per node and one SimGrid link per topology link (injection,
// network, ejection), routed on demand by our Topology: O(hops) per route, no table.
class TopologyZone final : public NetZoneImpl {
 public:
  TopologyZone(const topo::Topology& topology) : NetZoneImpl("torsim"), topology_(topology) {}

  void populate() {
    for (NodeId n = 0; n < topology_.node_count(); ++n) {
      auto* host = create_host("n" + std::to_string(n), {1e9});
      host->seal();
      if (host->get_netpoint()->id() != static_cast<unsigned long>(n))
        throw std::logic_error("SimGrid host ids do not follow node ids");
      hosts_.push_back(host);
    }
    for (LinkId l = 0; l < topology_.link_count(); ++l) {
      const auto& info = topology_.link(l);
      // No latency here: SimGrid shares the bandwidth, our kernel adds the propagation latency.
      auto* link = create_link("l" + std::to_string(l), {static_cast<double>(info.bandwidth)});
      link->seal();
      links_.push_back(link);
    }
    seal();
  }

  sg4::Host* host(NodeId n) const { return hosts_[static_cast<std::size_t>(n)]; }

 protected:
  // Route latency stays 0: see drive() for why the propagation latency is added by our kernel.
  void get_local_route(const NetPoint* src, const NetPoint* dst, Route* into, double* /*latency*/) override {
    topology_.route(static_cast<NodeId>(src->id()), static_cast<NodeId>(dst->id()), route_);
    for (LinkId l : route_) into->link_list_.push_back(links_[static_cast<std::size_t>(l)]->get_impl());
  }

 private:
  const topo::Topology& topology_;
  std::vector<sg4::Host*> hosts_;
  std::vector<sg4::Link*> links_;
  std::vector<LinkId> route_;
};

}  // namespace

const ParamTable kSimgridModelParams{
    "network (model: simgrid)",
    "SimGrid 3.32's flow-level model on the same machine, for cross-checks (one simulation per child process).",
    kSpecs};

// The engine and the zone are never destroyed: SimGrid cannot run a second simulation in a
// process anyway, and the child process that runs this one exits without unwinding.
struct SimgridModel::Platform {
  sg4::Engine* engine = nullptr;
  TopologyZone* zone = nullptr;
  std::vector<sg4::CommPtr> comms;  // in flight; flights[i] describes comms[i]
  std::vector<Flight> flights;
  std::exception_ptr failure;
};

SimgridModel::SimgridModel(Kernel& kernel, const Machine& machine, SimgridOptions options)
    : NetworkModel(kernel, machine),
      options_(std::move(options)),
      memory_(static_cast<std::size_t>(topology_.node_count())) {}

SimgridModel::~SimgridModel() = default;

void SimgridModel::start(const TransferRequest& request) {
  ++counters_.messages;
  counters_.payload_bytes += request.bytes;
  // Intra-node transfers never reach SimGrid: the same copy engine as the packet model.
  if (request.src == request.dst) return copy_within_node(memory_[static_cast<std::size_t>(request.src)], request);
  const PacketFormat& format = format_of(request);
  const Bytes wire = format.wire_bytes(request.bytes);
  counters_.wire_bytes += wire;
  ++counters_.trains;
  const std::uint64_t index = pending_.add(request);
  // SimGrid starts the flow from a kernel event inside the driver actor, now: the NIC's latency
  // is a pipeline, which delays the bytes (added after the flow, with the route's latency) and
  // does not hold the flow back.
  kernel_.after(0, member_callback<SimgridModel, &SimgridModel::launch>(this, index));
}

// Runs as a kernel event inside the driver actor, so SimGrid's clock is at our kernel's time.
void SimgridModel::launch(std::uint64_t pending_index) {
  const auto index = static_cast<SlotPool<TransferRequest>::Index>(pending_index);
  const TransferRequest request = pending_[index];
  pending_.release(index);
  const PacketFormat& format = format_of(request);
  const auto wire = static_cast<std::uint64_t>(format.wire_bytes(request.bytes));
  // Busy time = bytes carried / link rate, the same definition as the packet model's bookings.
  topology_.route(request.src, request.dst, route_);
  Time propagation = machine_.node.nic_latency;
  for (LinkId l : route_) {
    link_busy_[static_cast<std::size_t>(l)] += transfer_time(static_cast<Bytes>(wire), topology_.link(l).bandwidth);
    propagation += topology_.link(l).latency;
  }
  auto& p = *platform_;
  p.comms.push_back(sg4::Comm::sendto_async(p.zone->host(request.src), p.zone->host(request.dst), wire));
  p.flights.push_back({request, kernel_.now(), sg4::Engine::get_clock(), propagation});
}

namespace {

void configure(const SimgridOptions& o) {
  sg4::Engine::set_config("network/model:" + o.sharing);
  sg4::Engine::set_config("network/crosstraffic:" + std::string(o.crosstraffic ? "1" : "0"));
  // Routes carry no latency in SimGrid (our kernel adds it exactly); neutral for clarity.
  sg4::Engine::set_config("network/latency-factor:1");
  sg4::Engine::set_config("network/bandwidth-factor:" + fixed(o.bandwidth_factor));
  // SimGrid's default timing precision is 1 ns; ours is 1 ps.
  sg4::Engine::set_config("surf/precision:1e-12");
}

// Completes in-flight transfer `i`: its callbacks run at SimGrid's current time, measured from
// the transfer's start so that rounding never accumulates over the run.
void complete(Kernel& kernel, std::vector<sg4::CommPtr>& comms, std::vector<SimgridModel::Flight>& flights,
              std::size_t i) {
  const SimgridModel::Flight flight = flights[i];
  comms[i] = comms.back();
  comms.pop_back();
  flights[i] = flights.back();
  flights.pop_back();
  const Time elapsed = picoseconds(sg4::Engine::get_clock() - flight.start_seconds);
  const Time injected = std::max(kernel.now(), flight.start_ps + elapsed);
  // The flow's bytes crossed every link of the route at its shared rate: the NIC has taken the
  // tail now, and it reaches the destination nic_latency and the route's latency later.
  if (flight.request.on_injected.fn) kernel.at(injected, flight.request.on_injected);
  if (flight.request.on_delivered.fn) kernel.at(injected + flight.propagation, flight.request.on_delivered);
  kernel.run_until(injected);
}

// The driver: our kernel's event loop, interleaved with SimGrid's clock.
void drive_loop(Kernel& kernel, std::vector<sg4::CommPtr>& comms, std::vector<SimgridModel::Flight>& flights) {
  for (;;) {
    const Time next = kernel.next_event_time();
    if (next != kNever && seconds(next) <= sg4::Engine::get_clock()) {
      kernel.run_until(next);
    } else if (comms.empty()) {
      if (next == kNever) return;
      sg4::this_actor::sleep_until(seconds(next));
      kernel.run_until(next);
    } else {
      const double timeout = next == kNever ? -1.0 : seconds(next) - sg4::Engine::get_clock();
      const auto finished = sg4::Comm::wait_any_for(comms, timeout);
      if (finished < 0)
        kernel.run_until(next);
      else
        complete(kernel, comms, flights, static_cast<std::size_t>(finished));
    }
    if (kernel.stopped()) return;
  }
}

}  // namespace

// SimGrid computes each transfer's bandwidth phase (wire bytes at the max-min shared rate over
// its route's links); our kernel adds the NIC latency before it and the route's propagation
// latency after it, exactly. SimGrid's own order (latency, then bytes) would put the moment the
// tail leaves the source at the very end, which a sender waiting for local completion cannot
// learn in time; and the TCP window bound (gamma / 2 latency) vanishes with a zero latency.
void SimgridModel::drive(Kernel& kernel) {
  static bool engine_used = false;  // a second engine in one process would abort
  if (std::exchange(engine_used, true))
    throw std::logic_error("SimGrid runs one simulation per process: run it through Simulation, which forks");
  xbt_log_control_set("root.thres:critical");
  platform_ = std::make_unique<Platform>();
  auto& p = *platform_;
  p.engine = new sg4::Engine("torsim");
  configure(options_);
  p.zone = new TopologyZone(topology_);
  p.zone->populate();
  sg4::Engine::on_deadlock_cb([&p] {
    p.failure = std::make_exception_ptr(std::runtime_error("SimGrid reported a deadlock in the driver actor"));
  });
  // An exception escaping an actor aborts SimGrid: keep it and rethrow after the run.
  sg4::Actor::create("driver", p.zone->host(0), [&kernel, &p] {
    try {
      drive_loop(kernel, p.comms, p.flights);
    } catch (...) {
      p.failure = std::current_exception();
    }
  });
  p.engine->run();
  if (p.failure) std::rethrow_exception(p.failure);
}

std::unique_ptr<NetworkModel> make_simgrid_model(const ParamReader& r, Kernel& kernel, const Machine& machine) {
  return std::make_unique<SimgridModel>(kernel, machine, parse_fields(r, kFields));
}

}  // namespace torsim::net
