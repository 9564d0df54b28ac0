#include "cli/cli.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/bench.hpp"
#include "cli/merge.hpp"
#include "cli/schema.hpp"
#include "run/output.hpp"
#include "run/progress.hpp"
#include "cli/reference.hpp"
#include "run/runner.hpp"
#include "cli/validate.hpp"

namespace torsim {

namespace {

const char* kUsage =
    "torsim " TORSIM_VERSION " - a discrete-event simulator of HPC interconnects\n"
    "\n"
    "usage:\n"
    "  torsim run FILE [--set path=value]... [--out DIR] [--quiet] [--jobs N] [--shard K/N] [--trace FILE]\n"
    "      run a scenario; writes DIR/results.json and one CSV per series. --jobs: sweep points run at\n"
    "      once; --shard K/N: only the points whose index is K modulo N (0 <= K < N, a Slurm array task);\n"
    "      --trace: a trace for ui.perfetto.dev (docs/traces.md)\n"
    "  torsim merge DIR... [--out DIR] [--quiet]\n"
    "      combine the output directories of every shard of a run into the single run's outputs\n"
    "  torsim schema [--out FILE]\n"
    "      the JSON Schema of scenario files (and machine presets), for editors and validators\n"
    "  torsim describe FILE|PRESET [--json] [--route SRC DST]\n"
    "      the derived machine: nodes, cores, routers, links, diameter, hops, bisection, a route\n"
    "  torsim reference [--out FILE]\n"
    "      the scenario reference (every parameter, unit, default, range and source)\n"
    "  torsim validate [--only C1,C2] [--report DIR] [--quick] [--no-plots] [--check-status FILE]\n"
    "                  [--record-status FILE] [--sensitivity] [--set path=value]...\n"
    "      run the claims' scenarios, print claim | paper | simulated | tolerance | status, write the report\n"
    "      (a full run: docs/validation/; --only, --quick or --set: results/validation/ unless --report);\n"
    "      --sensitivity: each claim's listed parameters at 0.5x and 2x (claims marked 'always': every full run);\n"
    "      --set: a what-if on every claim's runs, reported as such and never recorded as a status\n"
    "  torsim bench [--quick] [--simgrid] [--nqueens] [--fft] [--markdown] [--json FILE]\n"
    "      speed: kernel events/s, random 4 KiB messages/s on a 16x16x16 torus, bytes per idle rank;\n"
    "      --simgrid: the same scenarios on the packet model and the SimGrid backend, side by side;\n"
    "      --nqueens: N-Queens at 15,360 cores on both Charm++ layers; --fft: NAS FT class D at 16,384\n"
    "      cores in its three variants; --markdown: the figures as rows of docs/performance.md's tables\n";

struct Options {
  std::vector<std::string> positional;
  std::vector<std::string> sets;
  std::string out;
  bool quiet = false, json = false;
  std::vector<std::string> route;
  std::size_t jobs = 1;
  Shard shard;
  std::string trace;
};

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

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) {
      if (i + 1 >= args.size()) throw UsageError(std::string(flag) + " needs a value");
      return args[++i];
    };
    if (a == "--set") o.sets.push_back(value("--set"));
    else if (a.rfind("--set=", 0) == 0) o.sets.push_back(a.substr(6));
    else if (a == "--out") o.out = value("--out");
    else if (a == "--jobs" || a == "-j") o.jobs = parse_jobs(value("--jobs"));
    else if (a == "--shard") o.shard = parse_shard(value("--shard"));
    else if (a == "--trace") o.trace = value("--trace");
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--json") o.json = true;
    else if (a == "--route") {
      o.route.push_back(value("--route"));
      o.route.push_back(value("--route"));
    } else if (a.rfind("--", 0) == 0) throw UsageError("unknown option " + a);
    else o.positional.push_back(a);
  }
  return o;
}

std::string single_file(const Options& o, const char* command) {
  if (o.positional.size() != 1) throw UsageError(std::string(command) + " takes exactly one scenario file");
  return o.positional.front();
}

// --out, else the scenario's output.dir, else results/<scenario name>; errors name whichever gave it.
OutputDir output_dir(const Scenario& scenario, const Options& o) {
  if (!o.out.empty()) return OutputDir(o.out, Where("command line", "--out " + o.out));
  const Where where = Where(scenario.file()) / "output";
  const Json spec = scenario.doc().value("output", Json::object());  // the reader refers to it
  const ParamReader output(spec, where, kOutputParams);
  const std::string dir = output.text("dir");
  return OutputDir(dir.empty() ? "results/" + scenario.name() : dir, where / "dir");
}

void say_trace_warnings(const TraceFragments& fragments, const TraceSettings& trace, std::vector<std::string>& warnings) {
  for (const auto& [point, summary] : fragments.summaries)
    if (!summary["stopped_at_us"].is_null())
      warnings.push_back("the trace of sweep point " + std::to_string(point) + " stops at " +
                         format_number(summary["stopped_at_us"].get<double>()) + " us of simulated time: it reached max_size (" +
                         format_size(trace.max_size) + "); trace fewer ranks or a shorter window (output.trace.ranks, from, to), "
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
  write_trace(*writer, fragments.points(), [&](std::size_t point) { return read_text_file(fragments.path(point), trace.where); },
              trace.max_size, warnings);
  say_trace_warnings(fragments, trace, warnings);
  if (staged) staged->close();
  return own;
}

RunOptions run_options(const Options& o, const TraceSettings* trace, Progress& progress) {
  RunOptions options;
  options.jobs = o.jobs;
  options.shard = o.shard;
  options.trace = trace;
  options.progress = [&progress](std::size_t i, std::size_t n, const Kernel& k) { progress.update(i, n, k); };
  options.points_done = [&progress](std::size_t done, std::size_t n) { progress.points(done, n); };
  return options;
}

Json shard_json(const Options& o, const ScenarioRun& run) {
  Json indices = Json::array();
  for (const auto& p : run.points) indices.push_back(p.index);
  return {{"index", o.shard.index}, {"count", o.shard.count}, {"points", indices}, {"total_points", run.total_points}};
}

int command_run(const std::vector<std::string>& args) {
  const Options o = parse_options(args);
  const Scenario scenario(single_file(o, "run"), o.sets);
  const Json output_spec = scenario.doc().value("output", Json::object());
  const ParamReader output(output_spec, Where(scenario.file()) / "output", kOutputParams);
  OutputDir out = output_dir(scenario, o);
  const auto trace = trace_settings(output_spec, Where(scenario.file()) / "output", o.trace);
  out.check_writable();
  if (trace && trace->file_from_command_line) {
    AtomicFile probe(trace->file, Where("command line", "--trace " + trace->file));  // fails now if unwritable
  }
  Progress progress(!o.quiet);
  const auto run = run_scenario(scenario, run_options(o, trace ? &*trace : nullptr, progress));
  progress.finish();
  Json results = results_document(scenario, run.machine, run.points, run.wall_seconds);
  if (!o.shard.whole()) results["shard"] = shard_json(o, run);
  write_outputs(out, results, run.points, *run.first, output.boolean("csv"), output.boolean("link_stats"));
  std::vector<std::string> warnings;
  auto trace_file = trace ? stage_trace(out, run, *trace, warnings) : nullptr;
  out.publish();
  if (trace_file) trace_file->publish();
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  if (!o.quiet) {
    print_summary(std::cout, results);
    std::cout << "\nwrote " << out.dir() << "/results.json (wall time " << format_number(run.wall_seconds) << " s)\n";
    if (trace) std::cout << "wrote the trace " << (trace->file_from_command_line ? trace->file : out.dir() + "/" + trace->file) << "\n";
  }
  return 0;
}

// A scenario file, a machine file, or a preset name.
Machine load_machine_for_describe(const std::string& what) {
  if (what.size() > 5 && what.ends_with(".json")) {
    const Json doc = read_json_file(what);
    if (doc.is_object() && doc.contains("workload")) {
      const Scenario scenario(what, {});
      try {
        return parse_machine(scenario.doc().at("machine"), Where(scenario.file()) / "machine");
      } catch (const InputError& e) {
        scenario.reraise(e);
      }
    }
    return parse_machine(doc, Where(what));
  }
  const ExpandedPreset preset = load_preset(what, Where("command line", "describe " + what));
  try {
    return parse_machine(preset.machine, Where(preset.layers.front().first));
  } catch (const InputError& e) {
    if (e.file() != preset.layers.front().first) throw;
    throw InputError(preset.file_of(e.path()), e.path(), e.message());
  }
}

Json route_json(const Machine& m, topo::NodeId src, topo::NodeId dst) {
  const auto& t = *m.topology;
  std::vector<topo::LinkId> route;
  t.route(src, dst, route);
  Json hops = Json::array();
  Time latency = m.node.nic_latency;
  Rate bottleneck = 0;
  auto vertex_label = [&](std::int32_t v) {
    return v < t.router_count() ? "router " + std::to_string(v) : "node " + t.node_label(v - t.router_count());
  };
  for (auto l : route) {
    const auto& link = t.link(l);
    latency += link.latency;
    bottleneck = bottleneck == 0 ? link.bandwidth : std::min(bottleneck, link.bandwidth);
    hops.push_back({{"link", l}, {"from", vertex_label(link.from)}, {"to", vertex_label(link.to)},
                    {"dim", link.dim}, {"direction", link.direction}, {"bandwidth", format_rate(link.bandwidth)},
                    {"latency", format_time(link.latency)}});
  }
  return {{"src", src}, {"dst", dst}, {"router_hops", t.hops(src, dst)}, {"links", hops},
          {"zero_load_latency_ns", static_cast<double>(latency) / kNanosecond},
          {"bottleneck_bandwidth", bottleneck ? format_rate(bottleneck) : "memcpy"}};
}

topo::NodeId node_argument(const std::string& text, const Machine& m) {
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || value < 0 || value >= m.node_count())
    throw UsageError("--route expects node ids in 0.." + std::to_string(m.node_count() - 1) + ", got '" + text + "'");
  return static_cast<topo::NodeId>(value);
}

void print_describe(const Json& summary, const Json& route) {
  std::cout << summary["name"].get<std::string>() << ": " << summary["description"].get<std::string>() << "\n";
  for (const char* key : {"nodes", "cores", "routers", "network_links", "diameter_hops", "average_hops",
                          "bisection_bandwidth_GBps"})
    std::cout << "  " << key << ": " << summary[key].dump() << "\n";
  std::cout << "  topology: " << summary["topology"].dump() << "\n";
  if (route.is_null()) return;
  std::cout << "route " << route["src"] << " -> " << route["dst"] << ": " << route["router_hops"] << " router hops, "
            << "zero-load latency " << route["zero_load_latency_ns"] << " ns + bytes / "
            << route["bottleneck_bandwidth"].get<std::string>() << "\n";
  for (const auto& hop : route["links"])
    std::cout << "  link " << hop["link"] << ": " << hop["from"].get<std::string>() << " -> "
              << hop["to"].get<std::string>() << "  dim " << hop["dim"] << " dir " << hop["direction"] << "  "
              << hop["bandwidth"].get<std::string>() << ", " << hop["latency"].get<std::string>() << "\n";
}

int command_describe(const std::vector<std::string>& args) {
  const Options o = parse_options(args);
  const Machine m = load_machine_for_describe(single_file(o, "describe"));
  const Json summary = machine_summary(m);
  Json route;
  if (!o.route.empty()) route = route_json(m, node_argument(o.route[0], m), node_argument(o.route[1], m));
  if (o.json) {
    Json doc = summary;
    if (!route.is_null()) doc["route"] = route;
    std::cout << doc.dump(2) << "\n";
  } else {
    print_describe(summary, route);
  }
  return 0;
}

int command_reference(const std::vector<std::string>& args) {
  const Options o = parse_options(args);
  if (!o.positional.empty()) throw UsageError("reference takes no file argument (use --out FILE)");
  const std::string text = scenario_reference();
  if (o.out.empty()) {
    std::cout << text;
    return 0;
  }
  write_file_atomically(o.out, text, Where("command line", "--out " + o.out));
  return 0;
}

std::vector<Command> builtin_commands() {
  return {{"run", "run a scenario", command_run},
          {"merge", "merge the outputs of a run's shards", command_merge},
          {"schema", "print the JSON Schema of scenario files", command_schema},
          {"describe", "describe a machine", command_describe},
          {"reference", "print the scenario reference", command_reference},
          {"bench", "speed benchmark", command_bench},
          {"validate", "compare with the papers' claims", command_validate}};
}

// What a command printed must have reached its destination (a full disk behind a redirection).
int checked_stdout(int status) {
  if (!std::cout.flush()) throw InputError("standard output", "", "cannot write: " + std::string(std::strerror(errno)));
  return status;
}

}  // namespace

std::vector<Command>& extra_commands() {
  static std::vector<Command> commands;
  return commands;
}

int run_cli(const std::vector<std::string>& args) {
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      std::cout << kUsage;
      for (const auto& c : extra_commands()) std::cout << "  torsim " << c.name << "\n      " << c.summary << "\n";
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::cout << "torsim " TORSIM_VERSION "\n";
      return 0;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const auto& c : builtin_commands())
      if (c.name == args[0]) return checked_stdout(c.main(rest));
    for (const auto& c : extra_commands())
      if (c.name == args[0]) return checked_stdout(c.main(rest));
    throw UsageError("unknown command '" + args[0] + "' (try torsim --help)");
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace torsim
