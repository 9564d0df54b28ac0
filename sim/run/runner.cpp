#include "sim/run/runner.hpp"

#include <chrono>
#include <iostream>

namespace torsim {

namespace {

std::unique_ptr<Simulation> build_point(const Scenario& scenario, const SweepPoint& point) {
  try {
    return std::make_unique<Simulation>(point.doc, Where(scenario.file()), scenario.seed());
  } catch (const InputError& e) {
    scenario.reraise(e);
  }
}

}  // namespace

ScenarioRun run_scenario(const Scenario& scenario,
                         const std::function<void(std::size_t, std::size_t, const Kernel&)>& progress) {
  const auto points = scenario.points();
  if (points.size() > 1)
    for (const auto& p : points) build_point(scenario, p);
  const auto start = std::chrono::steady_clock::now();
  ScenarioRun run;
  for (std::size_t i = 0; i < points.size(); ++i) {
    auto sim = build_point(scenario, points[i]);
    if (i == 0) {
      run.machine = machine_summary(sim->machine());
      run.first = std::make_unique<Machine>(parse_machine(points[0].doc.at("machine"), Where(scenario.file()) / "machine"));
    }
    std::function<void(const Kernel&)> hook;
    if (progress) hook = [&](const Kernel& k) { progress(i, points.size(), k); };
    auto result = sim->run(hook);
    if (result.blocked_processes)
      std::cerr << "warning: " << scenario.name() << ": " << result.blocked_processes
                << " processes were still blocked when the simulation ran out of events "
                << "(a receive that no message matched?)\n";
    run.points.push_back({points[i], std::move(result)});
  }
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace torsim
