// Workloads: the programs ranks run, written only against the messaging-layer interface
// (models/messaging/messaging.hpp), so each runs over every layer a machine offers.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "models/messaging/messaging.hpp"
#include "sim/config/results.hpp"

namespace torsim::apps {

using rt::Comm;
using rt::Envelope;
using rt::Rank;
using topo::NodeId;

class Workload {
 public:
  virtual ~Workload() = default;
  /// Checks the job can run the workload (enough ranks, a torus, ...), and reads the machine's
  /// compute costs it needs (so that they count as read when the run is built); errors name `where`.
  virtual void check(const rt::Job& job, const Where& where) const;
  /// Registers handlers and spawns the rank programs.
  virtual void start(rt::MessagingLayer& layer) = 0;
  /// After the simulation ran dry: metrics and series.
  virtual void finish(RunOutput& out) const = 0;
  /// Ranks needed at least.
  virtual int minimum_ranks() const { return 1; }
  /// For traces: a workload whose ranks run named regions (a trace replay's MPI calls) reports
  /// each, with its rank and simulated span, once it is over. Call before start().
  using RegionObserver = std::function<void(Rank, std::string_view name, Time start, Time end)>;
  virtual void set_region_observer(RegionObserver) {}
  /// Where the ranks run, for a workload that decides it (a trace replay: as many ranks as the
  /// trace has, or where it says they ran); nullopt: the scenario's "placement" (`spec`), read
  /// by rt::parse_placement as for every workload.
  virtual std::optional<rt::Placement> placement(const Json& /*spec*/, const Where& /*where*/,
                                                 const Machine& /*machine*/) const {
    return std::nullopt;
  }
};

struct WorkloadEntry {
  std::string_view name;
  std::string_view description;
  const ParamTable* params;
  std::unique_ptr<Workload> (*make)(const ParamReader&);
};
const std::vector<WorkloadEntry>& workloads();

/// An entry's `make` for a workload constructed from its parameters: `&make_from<PingPong>`.
template <class W>
std::unique_ptr<Workload> make_from(const ParamReader& r) {
  return std::make_unique<W>(r);
}

/// The scenario's "workload" object: {"name": "pingpong", ...parameters}.
std::unique_ptr<Workload> make_workload(const Json& spec, const Where& where);

/// Spawns `program(Comm(layer, r))` for every rank r.
template <class Program>
void spawn_all(rt::MessagingLayer& layer, Program program) {
  for (Rank r = 0; r < layer.size(); ++r) layer.kernel().spawn(program(Comm(layer, r)));
}

}  // namespace torsim::apps
