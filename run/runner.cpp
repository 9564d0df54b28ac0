#include "run/runner.hpp"

#include <chrono>
#include <iostream>
#include <map>

#include "models/runtime/registry.hpp"
#include "run/child_process.hpp"
#include "sim/config/provenance.hpp"
#include "sim/config/unused.hpp"

namespace torsim {

Shard parse_shard(const std::string& text) {
  const Where where("command line", "--shard " + text);
  const auto slash = text.find('/');
  Shard shard;
  try {
    std::size_t used_index = 0, used_count = 0;
    if (slash == std::string::npos || slash == 0) throw std::invalid_argument("no K/");
    shard.index = std::stoul(text.substr(0, slash), &used_index);
    shard.count = std::stoul(text.substr(slash + 1), &used_count);
    if (used_index != slash || used_count != text.size() - slash - 1 || text[0] == '-' || text[slash + 1] == '-')
      throw std::invalid_argument("trailing text");
  } catch (const std::exception&) {
    where.fail("expected K/N with 0 <= K < N, e.g. --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT");
  }
  if (shard.count == 0 || shard.index >= shard.count)
    where.fail("expected K/N with 0 <= K < N (shards are numbered from 0), got " + text);
  return shard;
}

namespace {

std::unique_ptr<Simulation> build_point(const Scenario& scenario, const SweepPoint& point) {
  try {
    return std::make_unique<Simulation>(point.doc, Where(scenario.file()), point.seed);
  } catch (const InputError& e) {
    scenario.reraise(e);
  }
}

// Whether a read was noted at `pointer` or inside it.
bool read_at_or_under(const std::map<std::string, ParamRead>& reads, const std::string& pointer) {
  for (auto it = reads.lower_bound(pointer); it != reads.end() && it->first.starts_with(pointer); ++it)
    if (it->first.size() == pointer.size() || it->first[pointer.size()] == '/') return true;
  return false;
}

// The machine's sections that a point reads in part, each when it builds what they describe (its
// NIC, its GPUs, the calibrations of its messaging layer and of those it builds on, the compute
// costs of its workload): a key of theirs that building the point did not read changes nothing.
// It is reported as unused input (dropped unless the scenario, the command line or the sweep
// gave it: a machine description calibrates more than one run takes). The chosen layer's
// calibration is read through the scenario's "runtime" section, which it underlies; a recording
// (--record-mpi) reads compute.flop. (The router's keys have their own report,
// net::make_network_model.)
void note_unread_machine_input(const Json& doc, const Where& where, const std::map<std::string, ParamRead>& reads,
                               bool recording) {
  const Json& machine = doc.at("machine");
  const std::string layer = rt::layer_name(doc.value("runtime", Json::object()));
  const std::string run = "workload '" + doc.value("workload", Json::object()).value("name", std::string()) +
                          "' over messaging layer '" + layer + "'";
  const auto unread = [&](const Where& at, const std::string& dotted, const std::string& also) {
    if (read_at_or_under(reads, at.pointer()) || (!also.empty() && read_at_or_under(reads, also))) return;
    not_used_unless_preset(at, "machine." + dotted + " is not read by this run (" + run + "): it would change nothing");
  };
  for (const char* section : {"nic", "gpu", "compute"}) {
    const Json given = machine.value(section, Json::object());
    for (const auto& [key, value] : given.items()) {
      if (recording && std::string_view(section) == "compute" && key == "flop") continue;
      // A NIC's "model" chooses the table its reads come from.
      unread(where / "machine" / section / key, std::string(section) + "." + key,
             key == "model" ? (where / "machine" / section).pointer() : "");
    }
  }
  const Json runtimes = machine.value("runtimes", Json::object());
  for (const auto& [name, calibration] : runtimes.items())
    if (calibration.is_object())
      for (const auto& [key, value] : calibration.items())
        unread(where / "machine" / "runtimes" / name / key, "runtimes." + name + "." + key,
               name == layer ? (where / "runtime" / key).pointer() : "");
}

void check_trace(const Scenario& scenario, const TraceSettings& trace, const Simulation& sim) {
  try {
    trace.check(sim.job());
  } catch (const InputError& e) {
    scenario.reraise(e);
  }
}

std::string point_label(const Scenario& scenario, std::size_t index, const SweepPoint& point) {
  std::string label = scenario.name() + ", point " + std::to_string(index);
  const char* separator = ": ";
  for (const auto& [key, value] : point.values.items()) {
    label += separator + key + "=" + value.dump();
    separator = ", ";
  }
  return label;
}

struct Plan {
  const Scenario& scenario;
  const RunOptions& options;
  std::size_t count = 0;              // points in the whole sweep
  std::vector<std::size_t> selected;  // indices of the points this run runs
  TraceFragments* fragments = nullptr;

  bool traced(std::size_t index) const { return options.trace && options.trace->traces_point(index); }

  // Builds and runs point `index` in this process.
  PointResult run_point(const SweepPoint& point, std::size_t index, std::unique_ptr<Simulation> sim,
                        std::size_t position) const {
    if (!sim) {
      const UnusedInputLog checked_by_check_points;
      sim = build_point(scenario, point);
    }
    if (traced(index)) sim->trace(*options.trace, index, point_label(scenario, index, point), fragments->path(index));
    std::function<void(const Kernel&)> hook;
    if (options.progress) hook = [&](const Kernel& k) { options.progress(position, selected.size(), k); };
    return sim->run(hook);
  }
};

// The input a point does not use that the scenario gave (not only its machine preset), by path.
std::map<std::string, UnusedInput> unused_input(const Scenario& scenario, const UnusedInputLog& log) {
  std::map<std::string, UnusedInput> out;
  for (const UnusedInput& u : log.entries())
    if (!u.preset_may_give || !scenario.only_machine_description_gives(u.where.pointer()))
      out.emplace(u.where.pointer(), u);
  return out;
}

// Input some point of a sweep uses is read; input no point uses is an error.
void check_unused(const Scenario& scenario, const std::map<std::string, UnusedInput>& unused_by_all) {
  if (unused_by_all.empty()) return;
  const UnusedInput& first = unused_by_all.begin()->second;
  try {
    first.where.fail(first.message);
  } catch (const InputError& e) {
    scenario.reraise(e);
  }
}

// Builds every point once: bad input fails here. Returns the first point's simulation when it
// is the only one, to run it without building it again.
std::unique_ptr<Simulation> check_points(Plan& plan, ScenarioRun& run) {
  std::unique_ptr<Simulation> only;
  if (plan.options.trace) plan.options.trace->check_points(plan.count);
  if (plan.options.record_mpi && (plan.count != 1 || !plan.options.shard.whole()))
    plan.options.record_mpi_where.fail("a recording holds one run; the scenario has " + std::to_string(plan.count) +
                                       " sweep points (choose one with --set) or --shard takes a part of it");
  std::map<std::string, UnusedInput> unused_by_all;
  for (std::size_t i = 0; i < plan.count; ++i) {
    const SweepPoint point = plan.scenario.point(i);
    const UnusedInputLog unused;
    std::unique_ptr<Simulation> sim;
    {
      const ReadLog reads;
      sim = build_point(plan.scenario, point);
      note_unread_machine_input(point.doc, Where(plan.scenario.file()), reads.reads(),
                                plan.options.record_mpi != nullptr);
    }
    auto unused_here = unused_input(plan.scenario, unused);
    if (i > 0) std::erase_if(unused_here, [&](const auto& u) { return !unused_by_all.contains(u.first); });
    unused_by_all = std::move(unused_here);
    if (i == 0) {
      run.machine = machine_summary(sim->machine());
      run.first =
          std::make_unique<Machine>(parse_machine(point.doc.at("machine"), Where(plan.scenario.file()) / "machine"));
    }
    if (plan.traced(i) && plan.options.shard.contains(i)) check_trace(plan.scenario, *plan.options.trace, *sim);
    if (plan.count == 1) only = std::move(sim);
  }
  check_unused(plan.scenario, unused_by_all);
  if (plan.options.record_mpi)
    only->record_mpi(*plan.options.record_mpi, plan.options.record_mpi->index_name(), plan.options.record_mpi_where);
  return only;
}

// Hands finished points to the sink in index order; a point finished early (in parallel runs)
// waits here for the ones before it.
class InOrder {
 public:
  InOrder(const Plan& plan, ScenarioRun& run, PointSink& sink) : plan_(plan), run_(run), sink_(sink) {}

  void finished(std::size_t position, SweepPoint point, PointResult result) {
    waiting_.emplace(position, CompletedPoint{plan_.selected[position], std::move(point), std::move(result)});
    for (auto it = waiting_.begin(); it != waiting_.end() && it->first == next_; it = waiting_.erase(it), ++next_)
      hand_over(std::move(it->second));
  }

 private:
  void hand_over(CompletedPoint p) {
    if (p.result.blocked_processes)
      std::cerr << "warning: " << plan_.scenario.name() << ": point " << p.index << ": " << p.result.blocked_processes
                << " processes were still blocked when the simulation ran out of events "
                << "(a receive that no message matched?)\n";
    if (run_.trace && !p.result.trace.is_null()) run_.trace->summaries.emplace_back(p.index, p.result.trace);
    sink_.point(std::move(p));
  }

  const Plan& plan_;
  ScenarioRun& run_;
  PointSink& sink_;
  std::map<std::size_t, CompletedPoint> waiting_;
  std::size_t next_ = 0;
};

void run_in_parallel(const Plan& plan, InOrder& in_order) {
  std::size_t done = 0;
  run_in_children(
      plan.selected.size(), plan.options.jobs,
      [&](std::size_t k) {
        const std::size_t i = plan.selected[k];
        return point_result_json(plan.run_point(plan.scenario.point(i), i, nullptr, k));
      },
      [&](std::size_t k, Json json) {
        in_order.finished(k, plan.scenario.point(plan.selected[k]), point_result_from_json(json));
        if (plan.options.points_done) plan.options.points_done(++done, plan.selected.size());
      },
      "a sweep point");
}

}  // namespace

ScenarioRun run_scenario(const Scenario& scenario, PointSink& sink, const RunOptions& options) {
  ScenarioRun run;
  Plan plan{scenario, options, scenario.point_count(), {}, nullptr};
  run.total_points = plan.count;
  for (std::size_t i = 0; i < plan.count; ++i)
    if (options.shard.contains(i)) plan.selected.push_back(i);
  run.indices = plan.selected;
  auto only = check_points(plan, run);
  if (options.trace) {
    run.trace = std::make_unique<TraceFragments>();
    plan.fragments = run.trace.get();
    for (const auto i : plan.selected)
      if (plan.traced(i)) run.trace->add(i);
  }
  sink.start(run);
  const auto start = std::chrono::steady_clock::now();
  InOrder in_order(plan, run, sink);
  if (options.jobs > 1 && plan.selected.size() > 1) {
    run_in_parallel(plan, in_order);
  } else {
    for (std::size_t k = 0; k < plan.selected.size(); ++k) {
      SweepPoint point = scenario.point(plan.selected[k]);
      PointResult result = plan.run_point(point, plan.selected[k], std::move(only), k);
      in_order.finished(k, std::move(point), std::move(result));
      if (options.points_done) options.points_done(k + 1, plan.selected.size());
    }
  }
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace torsim
