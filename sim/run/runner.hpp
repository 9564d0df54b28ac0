// Runs every sweep point of a scenario: used by `torsim run` and `torsim validate`.
#pragma once

#include <functional>

#include "sim/run/output.hpp"

namespace torsim {

struct ScenarioRun {
  std::vector<CompletedPoint> points;
  Json machine;                    // summary of the first point's machine
  std::unique_ptr<Machine> first;  // the first point's machine (for links.csv)
  double wall_seconds = 0;
};

/// Builds every point first (so bad input anywhere fails before anything runs), then runs
/// them in order. Input errors are attributed to the file that gave the value.
/// `progress(index, count, kernel)` is called now and then while a point runs.
ScenarioRun run_scenario(const Scenario& scenario,
                         const std::function<void(std::size_t, std::size_t, const Kernel&)>& progress = {});

}  // namespace torsim
