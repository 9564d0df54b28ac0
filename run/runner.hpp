// Runs the sweep points of a scenario: used by `torsim run` and `torsim validate`. Points may run
// in parallel child processes (--jobs) and a run may take one shard of them (--shard K/N, for
// Slurm arrays); either way each point's results are what a serial run computes.
#pragma once

#include <functional>

#include "run/output.hpp"
#include "run/trace.hpp"
#include "run/trace_recording.hpp"

namespace torsim {

/// The points a shard runs: K of N takes the points whose index is K modulo N (round robin, so
/// that sweeps over growing sizes spread their long points over the shards).
struct Shard {
  std::size_t index = 0;
  std::size_t count = 1;
  bool contains(std::size_t point) const { return point % count == index; }
  bool whole() const { return count == 1; }
};
/// Parses --shard's "K/N" (0 <= K < N); an InputError naming the command line otherwise.
Shard parse_shard(const std::string& text);

struct RunOptions {
  std::size_t jobs = 1;  // sweep points run at once, each in a child process when more than one
  Shard shard;
  const TraceSettings* trace = nullptr;
  /// --record-mpi: the recording the run's MPI calls go into (one point, run here).
  TraceRecording* record_mpi = nullptr;
  Where record_mpi_where;
  /// Called now and then while a point runs in this process: (index, count, kernel).
  std::function<void(std::size_t, std::size_t, const Kernel&)> progress;
  /// Called as each point run in a child process finishes: (points done, points to run).
  std::function<void(std::size_t, std::size_t)> points_done;
};

struct ScenarioRun {
  std::vector<std::size_t> indices;  // the points run (the shard's), in index order
  std::size_t total_points = 0;      // in the whole sweep
  Json machine;                      // summary of the first point's machine
  std::unique_ptr<Machine> first;    // the first point's machine (for links.csv)
  double wall_seconds = 0;
  std::unique_ptr<TraceFragments> trace;  // the traced points' fragments, when tracing
};

/// Where finished points go, one at a time and in index order, so that a sweep's results need
/// not be held in memory: start() once every point was checked (the run's machine and indices
/// are known), then point() for each.
class PointSink {
 public:
  virtual ~PointSink() = default;
  virtual void start(const ScenarioRun& run) = 0;
  virtual void point(CompletedPoint&& point) = 0;
};

/// Builds every point of the sweep first (so that bad input anywhere fails before anything runs,
/// in every shard alike), then runs the shard's points, handing each to `sink` as it finishes.
/// Input errors are attributed to the file that gave the value.
ScenarioRun run_scenario(const Scenario& scenario, PointSink& sink, const RunOptions& options = {});

}  // namespace torsim
