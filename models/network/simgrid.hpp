// The SimGrid backend: the same transfers on SimGrid's flow-level model (LV08 or CM02 max-min
// sharing), for cross-checking the packet model. Every SimGrid call lives in simgrid.cpp; this
// header exposes none of SimGrid's types.
//
// Our kernel keeps running the ranks (coroutines, messaging layers, workloads). SimGrid runs
// one "driver" actor that owns our kernel's event loop and interleaves it with SimGrid's clock:
// while transfers are in flight it waits for the first to finish or for our next event,
// whichever comes first (see docs/models/network.md, "SimGrid backend").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/network/link_timeline.hpp"
#include "models/network/network_model.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::net {

extern const ParamTable kSimgridModelParams;

/// Defaults, ranges and meanings: kSimgridModelParams.
struct SimgridOptions {
  std::string sharing;          // SimGrid's network/model: LV08 or CM02
  bool crosstraffic = false;    // network/crosstraffic
  double bandwidth_factor = 0;  // network/bandwidth-factor
};

class SimgridModel final : public NetworkModel {
 public:
  SimgridModel(Kernel& kernel, const Machine& machine, SimgridOptions options);
  ~SimgridModel() override;
  std::string_view name() const override { return "simgrid"; }
  void start(const TransferRequest& request) override;
  /// SimGrid allows one simulation per process: Simulation runs each point in a child.
  bool needs_own_process() const override { return true; }
  /// Builds the SimGrid platform and runs our kernel inside SimGrid's driver actor.
  void drive(Kernel& kernel) override;

  struct Flight {
    TransferRequest request;
    Time start_ps = 0;         // our kernel's time when SimGrid started the transfer
    double start_seconds = 0;  // SimGrid's clock then
    Time propagation = 0;      // nic_latency + the route's link latencies
  };

 private:
  void launch(std::uint64_t pending_index);

  SimgridOptions options_;
  std::vector<LinkTimeline> memory_;   // per node copy engine, as in the packet model
  SlotPool<TransferRequest> pending_;  // started by SimGrid from the driver actor
  struct Platform;                     // SimGrid engine, zone, hosts, in-flight comms
  std::unique_ptr<Platform> platform_;
  std::vector<LinkId> route_;
};

}  // namespace torsim::net
