// One simulation: a sweep point of a scenario built into a machine, network model, job,
// messaging layer and workload, run to completion on a fresh kernel.
#pragma once

#include <functional>
#include <memory>

#include "models/apps/replay/recorder.hpp"
#include "models/apps/workload.hpp"
#include "models/runtime/registry.hpp"
#include "run/trace.hpp"
#include "sim/config/results.hpp"

namespace torsim {

struct PointResult {
  RunOutput output;
  Json counters = Json::object();
  Json job = Json::object();
  Time simulated_time = 0;
  std::uint64_t events = 0;
  std::size_t blocked_processes = 0;  // processes still waiting when no event was left
  std::vector<Time> link_busy;        // per link, for links.csv
  Json trace;                         // the trace fragment's summary, when the point was traced
};

/// A point's result as JSON and back, exactly (for results computed in child processes).
Json point_result_json(const PointResult& result);
PointResult point_result_from_json(const Json& json);

class Simulation {
 public:
  /// Builds every object of the point; input errors surface here, before anything runs.
  Simulation(const Json& doc, const Where& where, std::uint64_t seed);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Runs to completion. `progress` (optional) is called now and then with the kernel.
  PointResult run(const std::function<void(const Kernel&)>& progress = {});

  const Machine& machine() const { return machine_; }
  Kernel& kernel() { return *kernel_; }
  rt::MessagingLayer* layer() { return layer_.get(); }
  const rt::Job& job() const { return *job_; }
  /// Records the run's MPI calls as a time-independent trace into `sink`, whose index is
  /// `index_name` (call before run()); input errors name `where` (--record-mpi).
  void record_mpi(replay::TiSink& sink, const std::string& index_name, const Where& where);
  /// Records the run into a trace fragment (call before run()).
  void trace(const TraceSettings& settings, std::size_t point, const std::string& label,
             const std::string& fragment_path);

 private:
  Json counters_json() const;
  PointResult run_here(const std::function<void(const Kernel&)>& progress);
  PointResult run_in_child(const std::function<void(const Kernel&)>& progress);

  std::unique_ptr<Kernel> kernel_;
  Machine machine_;
  std::unique_ptr<net::NetworkModel> network_;
  std::unique_ptr<rt::Job> job_;
  std::unique_ptr<rt::MessagingLayer> layer_;
  std::unique_ptr<apps::Workload> workload_;
  std::unique_ptr<TraceRecorder> trace_;
  std::unique_ptr<replay::TiWriter> mpi_writer_;
  std::unique_ptr<replay::MpiRecorder> mpi_recorder_;
};

/// Machine summary for results.json and `torsim describe`.
Json machine_summary(const Machine& machine);

}  // namespace torsim
