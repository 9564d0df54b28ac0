#include "cli/run_command.hpp"

#include <filesystem>
#include <iostream>
#include <optional>

#include "run/output.hpp"
#include "run/progress.hpp"
#include "run/run_outputs.hpp"
#include "run/runner.hpp"

namespace torsim {

namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::vector<std::string> sets;
  std::string out;
  bool quiet = false;
  double progress_interval = -1;  // --progress SECONDS; -1: the default
  std::size_t jobs = 1;
  Shard shard;
  std::string trace;
  std::string record_mpi;
};

double parse_progress_interval(const std::string& text) {
  std::size_t used = 0;
  double seconds = -1;
  try {
    seconds = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || !(seconds >= 0 && seconds <= 86400))
    Where("command line", "--progress " + text).fail("expected seconds between progress lines, 0 to 86400");
  return seconds;
}

RunArgs run_args(const Args& args) {
  RunArgs o;
  o.sets = args.values("--set");
  o.out = args.value("--out");
  o.quiet = args.given("--quiet");
  if (args.given("--progress")) o.progress_interval = parse_progress_interval(args.value("--progress"));
  if (args.given("--jobs")) o.jobs = parse_jobs(args.value("--jobs"));
  if (args.given("--shard")) o.shard = parse_shard(args.value("--shard"));
  o.trace = args.value("--trace");
  o.record_mpi = args.value("--record-mpi");
  return o;
}

// --out, else the scenario's output.dir, else results/<scenario name>; errors name whichever gave it.
OutputDir output_dir(const Scenario& scenario, const RunArgs& o) {
  if (!o.out.empty()) return OutputDir(o.out, Where("command line", "--out " + o.out));
  const Where where = Where(scenario.file()) / "output";
  const std::string dir = parse_output(scenario.doc().value("output", Json::object()), where).dir;
  return OutputDir(dir.empty() ? "results/" + scenario.name() : dir, where / "dir");
}

void say_trace_warnings(const TraceFragments& fragments, const TraceSettings& trace,
                        std::vector<std::string>& warnings) {
  for (const auto& [point, summary] : fragments.summaries)
    if (!summary["stopped_at_us"].is_null())
      warnings.push_back("the trace of sweep point " + std::to_string(point) + " stops at " +
                         format_number(summary["stopped_at_us"].get<double>()) +
                         " us of simulated time: it reached max_size (" + format_size(trace.max_size) +
                         "); trace fewer ranks or a shorter window (output.trace.ranks, from, to), "
                         "or raise output.trace.max_size");
}

// The trace goes into the output directory, or (--trace FILE) to a file of its own published with it.
std::unique_ptr<AtomicFile> stage_trace(OutputDir& out, const ScenarioRun& run, const TraceSettings& trace,
                                        std::vector<std::string>& warnings) {
  std::unique_ptr<AtomicFile> own;
  std::unique_ptr<FileWriter> staged;
  FileWriter* writer = nullptr;
  if (trace.file_from_command_line) {
    own = std::make_unique<AtomicFile>(trace.file, Where("command line", "--trace " + trace.file));
    writer = &own->writer();
  } else {
    staged = out.open(trace.file);
    writer = staged.get();
  }
  const TraceFragments& fragments = *run.trace;
  write_trace(
      *writer, fragments.points(),
      [&](std::size_t point) { return read_text_file(fragments.path(point), trace.where); }, trace.max_size, warnings);
  say_trace_warnings(fragments, trace, warnings);
  if (staged) staged->close();
  return own;
}

fs::path normal(const std::string& path) {
  fs::path p = fs::absolute(path).lexically_normal();
  return p.filename().empty() ? p.parent_path() : p;
}

// --trace FILE is a file of its own, checked now; one directly in the output directory is
// staged there with the run's other files (the directory may not exist yet).
std::optional<TraceSettings> place_trace(std::optional<TraceSettings> trace, const OutputDir& out) {
  if (!trace || !trace->file_from_command_line) return trace;
  const Where where("command line", "--trace " + trace->file);
  std::error_code ec;
  if (fs::is_directory(trace->file, ec)) where.fail("cannot write the trace to " + trace->file + ": it is a directory");
  const fs::path file = normal(trace->file);
  if (file.parent_path() != normal(out.dir())) {
    AtomicFile probe(trace->file, where);  // fails now if unwritable
    return trace;
  }
  const std::string name = file.filename().string();
  if (name == "results.json" || name == kManifestName || name.ends_with(".csv"))
    where.fail("expected a trace file name that is not one of the run's own files (results.json, *.csv)");
  trace->file = name;
  trace->file_from_command_line = false;
  return trace;
}

// The trace file of its own first: if moving the results in fails, it is removed again.
void publish(OutputDir& out, AtomicFile* trace_file, const std::string& trace_path) {
  if (!trace_file) return out.publish();
  trace_file->publish();
  try {
    out.publish();
  } catch (...) {
    std::error_code ec;
    fs::remove(trace_path, ec);
    throw;
  }
}

RunOptions run_options(const RunArgs& o, const TraceSettings* trace, TraceRecording* recording, Progress& progress) {
  RunOptions options;
  options.record_mpi = recording;
  options.record_mpi_where = Where("command line", "--record-mpi " + o.record_mpi);
  options.jobs = o.jobs;
  options.shard = o.shard;
  options.trace = trace;
  options.progress = [&progress](std::size_t i, std::size_t n, const Kernel& k) { progress.update(i, n, k); };
  options.points_done = [&progress](std::size_t done, std::size_t n) { progress.points(done, n); };
  return options;
}

Json shard_json(const RunArgs& o, const ScenarioRun& run) {
  Json indices = Json::array();
  for (const auto i : run.indices) indices.push_back(i);
  return {{"index", o.shard.index}, {"count", o.shard.count}, {"points", indices}, {"total_points", run.total_points}};
}

int run_and_write(const Scenario& scenario, const RunArgs& o) {
  const Json output_spec = scenario.doc().value("output", Json::object());
  const OutputOptions output = parse_output(output_spec, Where(scenario.file()) / "output");
  OutputDir out = output_dir(scenario, o);
  out.check_writable();
  const auto trace = place_trace(trace_settings(output_spec, Where(scenario.file()) / "output", o.trace), out);
  std::unique_ptr<TraceRecording> recording;  // staged beside FILE: fails now if it cannot be written
  if (!o.record_mpi.empty())
    recording = std::make_unique<TraceRecording>(o.record_mpi, Where("command line", "--record-mpi " + o.record_mpi));
  Progress progress(!o.quiet, o.progress_interval);
  RunOutputs outputs(out, scenario, output.csv, output.link_stats);
  const auto options = run_options(o, trace ? &*trace : nullptr, recording.get(), progress);
  const auto run = run_scenario(scenario, outputs, options);
  progress.finish();
  outputs.finish(run, o.shard.whole() ? Json() : shard_json(o, run));
  std::vector<std::string> warnings;
  auto trace_file = trace ? stage_trace(out, run, *trace, warnings) : nullptr;
  if (recording) recording->publish();
  publish(out, trace_file.get(), trace ? trace->file : "");
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  if (!o.quiet) {
    print_summary(std::cout, outputs.summary());
    std::cout << "\nwrote " << out.dir() << "/results.json (wall time " << format_number(run.wall_seconds) << " s)\n";
    if (trace)
      std::cout << "wrote the trace " << (trace->file_from_command_line ? trace->file : out.dir() + "/" + trace->file)
                << "\n";
    if (recording) std::cout << "wrote the MPI recording " << o.record_mpi << " (and " << o.record_mpi << "_files/)\n";
  }
  return 0;
}

int command_run(const Args& args) {
  const RunArgs o = run_args(args);
  const Scenario scenario(args.operands().front(), o.sets);
  try {
    return run_and_write(scenario, o);
  } catch (const InputError& e) {
    scenario.reraise(e);  // a value --set gave (output.trace.points, output.dir, ...) is the command line's
  }
}

}  // namespace

std::size_t parse_jobs(const std::string& text) {
  std::size_t used = 0;
  unsigned long jobs = 0;
  try {
    jobs = std::stoul(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || jobs < 1 || jobs > 4096 || text[0] == '-')
    Where("command line", "--jobs " + text).fail("expected a number of sweep points to run at once, 1 to 4096");
  return jobs;
}

const CommandSpec& run_command() {
  static const CommandSpec spec{
      "run",
      "FILE",
      1,
      1,
      "run a scenario",
      "Runs the scenario FILE: every point of its sweep, each as its own simulation. Writes results.json and\n"
      "one CSV per series into the output directory (--out, else the scenario's output.dir, else\n"
      "results/<scenario name>), all at once when the run ends, and prints a summary.",
      {{"--set", "path=value", "change a key of the scenario: a dotted path, and a JSON or unit value", true},
       {"--out", "DIR", "the output directory"},
       {"--quiet", "", "print nothing but errors and warnings (no progress lines)"},
       {"--progress", "SECONDS",
        "when stderr is not a terminal (a batch job's log, a pipe), a progress line every SECONDS (default 30; 0: as "
        "often as the run reports)"},
       {"--jobs", "N", "sweep points run at once, each in a process of its own (1 to 4096)", false, "-j"},
       {"--shard", "K/N", "only the points whose index is K modulo N (0 <= K < N: a Slurm array task)"},
       {"--trace", "FILE", "also write a trace for ui.perfetto.dev (docs/traces.md)"},
       {"--record-mpi", "FILE",
        "also record the run's MPI calls as a time-independent trace: FILE, the index, and FILE_files/ "
        "(docs/replay.md)"}},
      command_run};
  return spec;
}

}  // namespace torsim
