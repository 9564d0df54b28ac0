// Each figure is measured next to a baseline run in the same benchmark, so ratios stay
// meaningful on a loaded or different machine. Every measurement runs in a child process of
// its own, forked from a parent that has simulated nothing: one measurement's heap (freed
// frames, fragmented bins) would otherwise slow the next one down, and then the order of
// the measurements would decide the figures.
//  - kernel events/s vs a bare std::priority_queue doing the same pushes and pops;
//  - random 4 KiB messages/s on a 16x16x16 torus, packet model vs the analytic model (the
//    median of three runs each);
//  - bytes per idle rank at 1 M ranks, from the resident set before and after spawning them;
//  - with --nqueens, the 15,360-core N-Queens run of claim C2 on both Charm++ layers;
//  - with --fft, one iteration of NAS FT class D at 16,384 cores (claim C15) in each variant,
//    the network messages per second set against UPC slabs' (the variant C15 is about);
//  - with --simgrid, the same scenarios on the packet model and on the SimGrid backend.
// --markdown prints the measured figures as rows of docs/performance.md's tables.
// The timed figures also report the share of a core they had (CPU time over wall time): below
// one, the host time-shared the measurement, and every wall-clock rate fell with it.
#include "cli/bench.hpp"

#include <sys/resource.h>
#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "cli/bench_table.hpp"
#include "cli/trace_reader_bench.hpp"
#include "run/child_process.hpp"
#include "run/output.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"
#include "run/trace_recording.hpp"
#include "sim/config/error.hpp"
#include "sim/core/random.hpp"

namespace torsim {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// CPU time, user and system, of this (single-threaded) process and of the children it has
// waited for (the SimGrid backend runs in one).
double cpu_seconds() {
  double seconds = 0;
  for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    getrusage(who, &usage);
    for (const timeval& t : {usage.ru_utime, usage.ru_stime})
      seconds += static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  }
  return seconds;
}

// Wall and CPU time since construction.
struct Stopwatch {
  Clock::time_point wall_start = Clock::now();
  double cpu_start = cpu_seconds();
  double wall_s() const { return seconds_since(wall_start); }
  double cpu_s() const { return cpu_seconds() - cpu_start; }
};

long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long pages_total = 0, pages_resident = 0;
  statm >> pages_total >> pages_resident;
  return pages_resident * sysconf(_SC_PAGESIZE);
}

long peak_resident_bytes(int who) {
  rusage usage{};
  getrusage(who, &usage);
  return usage.ru_maxrss * 1024L;
}

// The largest peak of this process and the measurements' child processes.
long peak_resident_bytes() { return std::max(peak_resident_bytes(RUSAGE_SELF), peak_resident_bytes(RUSAGE_CHILDREN)); }

Json in_child(const std::function<Json()>& measurement) { return run_in_child_process(measurement, "the benchmark"); }

Task<> hop_forever(Kernel& k, std::uint64_t seed, std::int64_t steps) {
  Rng rng(seed);
  for (std::int64_t i = 0; i < steps; ++i) co_await k.sleep(1 + static_cast<Time>(rng.below(1000)));
}

Json kernel_events(std::int64_t events) {
  const int processes = 10000;
  Kernel k;
  for (int p = 0; p < processes; ++p) k.spawn(hop_forever(k, static_cast<std::uint64_t>(p), events / processes));
  const Stopwatch run_time;
  k.run();
  const double wall = run_time.wall_s();
  const double core_share = run_time.cpu_s() / wall;
  // Baseline: the same number of pushes and pops on a bare heap of (time, sequence) pairs.
  std::priority_queue<std::pair<Time, std::uint64_t>, std::vector<std::pair<Time, std::uint64_t>>, std::greater<>> heap;
  Rng rng(1);
  std::uint64_t seq = 0;
  for (int p = 0; p < processes; ++p) heap.push({static_cast<Time>(rng.below(1000)), seq++});
  const auto start = Clock::now();
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(k.events_processed()); ++i) {
    const auto top = heap.top();
    heap.pop();
    heap.push({top.first + 1 + static_cast<Time>(rng.below(1000)), seq++});
  }
  const double baseline = seconds_since(start);
  const double rate = static_cast<double>(k.events_processed()) / wall;
  const double baseline_rate = static_cast<double>(k.events_processed()) / baseline;
  return {{"events", k.events_processed()},
          {"processes", processes},
          {"wall_s", wall},
          {"events_per_s", rate},
          {"baseline_heap_ops_per_s", baseline_rate},
          {"ratio_to_baseline", rate / baseline_rate},
          {"core_share", core_share}};
}

// The packet model's router buffers are the Hopper preset's (assumed 8 KiB per port and channel).
Json random_traffic_scenario(const Json& network, std::int64_t messages_per_rank) {
  Json doc = Json::parse(R"({
    "machine": {"name": "bench-torus", "topology": {"type": "torus", "concentration": 1, "dims": [
        {"size": 16, "link_bandwidth": "9.375GB/s", "link_latency": "105ns"},
        {"size": 16, "link_bandwidth": "4.68GB/s", "link_latency": "105ns"},
        {"size": 16, "link_bandwidth": "9.375GB/s", "link_latency": "105ns"}]},
      "node": {"cores": 24, "injection_bandwidth": "12.48GB/s", "ejection_bandwidth": "12.48GB/s",
               "nic_latency": "595ns", "memcpy_bandwidth": "9.6GB/s"},
      "packet": {"payload": "64B", "header": "32B"},
      "router": {"buffer_per_vc": "8KiB", "injection_buffer": "8KiB"}},
    "workload": {"name": "traffic", "pattern": "uniform_random", "size": "4KiB", "window": 4}
  })");
  doc["network"] = network;
  doc["workload"]["messages"] = messages_per_rank;
  return doc;
}

// Runs `doc` in a child process of its own and times it, building the machine included;
// `count_messages` picks the result's message count.
template <class CountMessages>
Json timed_run(const Json& doc, CountMessages count_messages, std::uint64_t seed = 1) {
  return in_child([&] {
    const Stopwatch run_time;
    Simulation sim(doc, Where("bench"), seed);
    const auto result = sim.run();
    const double wall = run_time.wall_s();
    const double messages = count_messages(result);
    return Json{{"messages", messages},
                {"wall_s", wall},
                {"messages_per_s", messages / wall},
                {"core_share", run_time.cpu_s() / wall},
                {"events", result.events},
                {"events_per_s", static_cast<double>(result.events) / wall},
                {"simulated_time_us", to_microseconds(result.simulated_time)},
                {"ranks", result.job["ranks"]},
                {"peak_resident_MB", static_cast<double>(peak_resident_bytes(RUSAGE_SELF)) / 1e6}};
  });
}

double message_counter(const PointResult& result) { return result.counters["messages"].get<double>(); }

// One run of the random traffic on `network`.
Json random_messages_run(const Json& network, std::int64_t messages_per_rank) {
  return timed_run(random_traffic_scenario(network, messages_per_rank), [](const auto& result) {
    return result.output.metrics["messages_delivered"].template get<double>();
  });
}

// Each model runs kRuns times, the two models alternately (so that a busy spell of the
// host's other tenants slows both), and reports its median run with every run's rate: one
// run on a shared host is one draw of its neighbours' load.
constexpr int kRuns = 3;

// The packet model without flow control (the default), with credit flow control, and the
// analytic model.
constexpr const char* kModels[] = {"packet", "credit", "analytic"};
constexpr int kModelCount = 3;

Json random_messages(std::int64_t messages_per_rank) {
  std::vector<Json> runs[kModelCount];
  const Json networks[kModelCount] = {{{"model", "packet"}, {"flow_control", "none"}},
                                      {{"model", "packet"}, {"flow_control", "credit"}},
                                      {{"model", "analytic"}}};
  for (int run = 0; run < kRuns; ++run)
    for (int m = 0; m < kModelCount; ++m) runs[m].push_back(random_messages_run(networks[m], messages_per_rank));
  Json out;
  const auto& models = kModels;
  for (int m = 0; m < kModelCount; ++m) {
    auto by_rate = runs[m];
    std::sort(by_rate.begin(), by_rate.end(), [](const Json& a, const Json& b) {
      return a["messages_per_s"].get<double>() < b["messages_per_s"].get<double>();
    });
    Json median = by_rate[kRuns / 2];
    median["runs_messages_per_s"] = Json::array();
    for (const Json& run : runs[m]) median["runs_messages_per_s"].push_back(run["messages_per_s"]);
    out[models[m]] = median;
  }
  out["ratio_packet_to_analytic"] =
      out["packet"]["messages_per_s"].get<double>() / out["analytic"]["messages_per_s"].get<double>();
  out["ratio_credit_to_packet"] =
      out["credit"]["messages_per_s"].get<double>() / out["packet"]["messages_per_s"].get<double>();
  return out;
}

// One scenario on the packet model and on the SimGrid backend: wall time and messages/s of each.
Json side_by_side(const std::string& label, Json doc) {
  Json out{{"case", label}};
  for (const char* model : {"packet", "simgrid"}) {
    doc["network"] = {{"model", model}};
    out[model] = timed_run(doc, message_counter);
  }
  out["speedup_packet_over_simgrid"] = out["simgrid"]["wall_s"].get<double>() / out["packet"]["wall_s"].get<double>();
  return out;
}

Json with_torus(Json doc, int side, const Json& workload) {
  for (auto& dim : doc["machine"]["topology"]["dims"]) dim["size"] = side;
  doc["workload"] = workload;
  return doc;
}

// The same scenarios on both backends (docs/performance.md, "Packet model vs SimGrid backend").
Json simgrid_comparison(bool quick) {
  const Json random = random_traffic_scenario({{"model", "packet"}}, 1);
  Json cases = Json::array();
  auto traffic = [](const char* pattern, const char* size, int messages) {
    return Json{{"name", "traffic"}, {"pattern", pattern}, {"size", size}, {"messages", messages}, {"window", 4}};
  };
  cases.push_back(side_by_side("uniform random 4 KiB, 8x8x8, 16 per node",
                               with_torus(random, 8, traffic("uniform_random", "4KiB", 16))));
  cases.push_back(
      side_by_side("shift +1 256 KiB, 8x8x8, 4 per node", with_torus(random, 8, traffic("shift", "256KiB", 4))));
  if (!quick)
    cases.push_back(side_by_side("uniform random 4 KiB, 16x16x16, 4 per node",
                                 with_torus(random, 16, traffic("uniform_random", "4KiB", 4))));
  return cases;
}

// Claim C2's largest point, scenarios/scale/xe6-nqueens.json at 640 nodes x 24 ranks, on
// `layer`, as `torsim run` would run it; --quick: 12 queens on 16 nodes.
Json nqueens_run(const std::string& layer, bool quick) {
  const auto path = std::filesystem::path(presets_directory()).parent_path() / "scale" / "xe6-nqueens.json";
  std::vector<std::string> assignments{"sweep={}", "runtime.layer=" + layer};
  assignments.push_back(quick ? "placement.nodes=16" : "placement.nodes=640");
  if (quick) assignments.push_back("workload.board=12");
  const Scenario scenario(path.string(), assignments);
  const SweepPoint point = scenario.points().front();
  const Json& doc = point.doc;
  Json out = timed_run(doc, message_counter, point.seed);
  out["layer"] = layer;
  out["board"] = doc["workload"]["board"];
  return out;
}

Json nqueens(bool quick) {
  Json runs = Json::array();
  for (const char* layer : {"charm_ugni", "charm_mpi"}) runs.push_back(nqueens_run(layer, quick));
  return runs;
}

// Claim C15's largest point: NAS FT class D on intrepid-4096 (16,384 cores in VN mode), one
// variant, as `torsim run` would run it; --quick: intrepid-128 (512 cores) with 128 planes.
Json fft_run(const std::string& variant, bool quick) {
  const auto scale = std::filesystem::path(presets_directory()).parent_path() / "bgp" / "scale";
  const bool upc = variant == "upc_slabs";
  std::vector<std::string> assignments{"workload.variant=" + variant};
  assignments.push_back(std::string("sweep={\"machine\": [\"") + (quick ? "intrepid-128" : "intrepid-4096") + "\"]}");
  assignments.push_back(quick ? "workload.nz=128" : "workload.nz=1024");  // the Z planes, named in the figures
  const Scenario scenario((scale / (upc ? "fft-upc.json" : "fft-mpi.json")).string(), assignments);
  const SweepPoint point = scenario.points().front();
  Json out = timed_run(point.doc, message_counter, point.seed);
  out["variant"] = variant;
  out["planes"] = point.doc["workload"]["nz"];
  return out;
}

Json fft(bool quick) {
  Json runs = Json::array();
  for (const char* variant : {"upc_slabs", "mpi_packed_slabs", "mpi_slabs"}) runs.push_back(fft_run(variant, quick));
  const double baseline = runs[0]["messages_per_s"].get<double>();
  for (auto& run : runs) run["rate_vs_upc_slabs"] = run["messages_per_s"].get<double>() / baseline;
  return runs;
}

std::string three_digits(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

void print_nqueens(const Json& runs) {
  for (const auto& n : runs)
    std::cout << "N-Queens, " << n["board"] << " queens on " << n["ranks"] << " ranks, "
              << n["layer"].get<std::string>() << ": " << three_digits(n["wall_s"].get<double>()) << " s, peak "
              << three_digits(n["peak_resident_MB"].get<double>()) << " MB, simulated "
              << three_digits(n["simulated_time_us"].get<double>()) << " us, "
              << three_digits(n["events"].get<double>() / 1e6) << " M events ("
              << three_digits(n["events_per_s"].get<double>() / 1e6) << " M/s), "
              << three_digits(n["messages"].get<double>() / 1e6) << " M messages; "
              << percent_of_a_core(n["core_share"]) << "\n";
}

void print_fft(const Json& runs) {
  for (const auto& f : runs)
    std::cout << "NAS FT, " << f["planes"] << " planes on " << f["ranks"] << " ranks, "
              << f["variant"].get<std::string>() << ": " << three_digits(f["wall_s"].get<double>()) << " s, peak "
              << three_digits(f["peak_resident_MB"].get<double>()) << " MB, "
              << three_digits(f["events"].get<double>() / 1e6) << " M events, "
              << three_digits(f["messages"].get<double>() / 1e6) << " M network messages ("
              << three_digits(f["messages_per_s"].get<double>() / 1e6) << " M/s, "
              << three_digits(f["rate_vs_upc_slabs"].get<double>()) << "x UPC slabs' rate); "
              << percent_of_a_core(f["core_share"]) << "\n";
}

// --trace: a replay's speed, records replayed per second on one core on the packet model (the
// halo trace of trace_reader_speed() on a QDR fat tree over MVAPICH2), against the
// time-independent reader's on the same trace; and a recorded trace of 16,384 ranks (claim
// C15's largest point, NAS FT's MPI packed slabs on intrepid-4096, `torsim run --record-mpi`)
// replayed whole. --quick: 16 ranks for the first, intrepid-128 with 128 planes for the second.
Json replay_run(const Json& doc) {
  return in_child([&] {
    const Stopwatch whole;  // opening the trace included
    Simulation sim(doc, Where("bench"), 1);
    const Stopwatch run_time;
    const auto result = sim.run();
    const double run_s = run_time.wall_s(), run_cpu_s = run_time.cpu_s();
    const double records = result.output.metrics["calls"].get<double>();
    return Json{{"records", records},
                {"run_s", run_s},
                {"run_cpu_s", run_cpu_s},
                {"records_per_s", records / run_s},
                // The target's "on one core": a machine shared with other work gives the
                // process only part of a core, so wall-clock rates understate it.
                {"records_per_cpu_s", records / run_cpu_s},
                {"wall_s", whole.wall_s()},
                {"cpu_s", whole.cpu_s()},
                {"core_share", whole.cpu_s() / whole.wall_s()},
                {"events", result.events},
                {"ranks", result.job["ranks"]},
                {"simulated_time_us", to_microseconds(result.simulated_time)},
                {"peak_resident_MB", static_cast<double>(peak_resident_bytes(RUSAGE_SELF)) / 1e6}};
  });
}

Json replay_doc(const std::string& trace, Json doc) {
  doc["workload"] = {{"name", "trace"}, {"path", trace}};
  return doc;
}

Json halo_replay(const std::filesystem::path& dir, bool quick) {
  const std::string trace = write_halo_trace(dir / "halo", quick ? 16 : 64, quick ? 500 : 2000);
  const Json spec = {{"machine", "qdr-cluster"},
                     {"network", {{"model", "packet"}}},
                     {"runtime", {{"layer", "mpi"}}},
                     {"workload", {{"name", "trace"}, {"path", trace}}}};
  Json out = replay_run(Scenario(spec, "bench-replay").points().front().doc);
  const Json reader = trace_reader_speed(quick)[0];  // the time-independent reader, on the same trace
  out["reader_records_per_s"] = reader["records_per_s"];
  out["replay_to_reader"] = out["records_per_s"].get<double>() / reader["records_per_s"].get<double>();
  return out;
}

Json recorded_fft_replay(const std::filesystem::path& dir, bool quick) {
  const auto scale = std::filesystem::path(presets_directory()).parent_path() / "bgp" / "scale";
  const Scenario scenario(
      (scale / "fft-mpi.json").string(),
      {"workload.variant=mpi_packed_slabs", quick ? "workload.nz=128" : "workload.nz=1024",
       std::string("sweep={\"machine\": [\"") + (quick ? "intrepid-128" : "intrepid-4096") + "\"]}"});
  const SweepPoint point = scenario.points().front();
  const std::string trace = (dir / "fft.txt").string();
  Json recorded = in_child([&] {
    const Stopwatch whole;
    Simulation sim(point.doc, Where("bench"), point.seed);
    TraceRecording recording(trace, Where("bench"));
    sim.record_mpi(recording, recording.index_name(), Where("bench"));
    const auto result = sim.run();
    recording.publish();
    return Json{{"wall_s", whole.wall_s()}, {"simulated_time_us", to_microseconds(result.simulated_time)}};
  });
  Json out = replay_run(replay_doc(trace, point.doc));
  out["recording_wall_s"] = recorded["wall_s"];
  out["recorded_run_simulated_time_us"] = recorded["simulated_time_us"];
  out["planes"] = point.doc["workload"]["nz"];
  return out;
}

Json trace_figures(bool quick) {
  const auto dir = std::filesystem::temp_directory_path() / ("torsim-bench-replay-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Json r = {{"readers", trace_reader_speed(quick)},
            {"replay", halo_replay(dir, quick)},
            {"recorded_16k", recorded_fft_replay(dir, quick)}};
  std::filesystem::remove_all(dir);
  return r;
}

void print_trace_figures(const Json& r) {
  print_trace_reader_speed(std::cout, r["readers"]);
  const Json& h = r["replay"];
  std::cout << "replay, packet model: " << three_digits(h["records_per_cpu_s"].get<double>() / 1e6)
            << " M records per CPU second, " << three_digits(h["records_per_s"].get<double>() / 1e6) << " M/s wall ("
            << three_digits(h["records"].get<double>() / 1e6) << " M records of " << h["ranks"] << " ranks in "
            << three_digits(h["run_cpu_s"].get<double>()) << " s CPU, " << three_digits(h["run_s"].get<double>())
            << " s wall; " << three_digits(h["replay_to_reader"].get<double>())
            << "x the time-independent reader's rate on the same trace; " << percent_of_a_core(h["core_share"])
            << ")\n";
  const Json& f = r["recorded_16k"];
  std::cout << "recorded NAS FT (MPI packed slabs, " << f["planes"] << " planes) on " << f["ranks"]
            << " ranks, replayed: " << three_digits(f["wall_s"].get<double>()) << " s ("
            << three_digits(f["cpu_s"].get<double>()) << " s CPU), peak "
            << three_digits(f["peak_resident_MB"].get<double>()) << " MB, "
            << three_digits(f["records"].get<double>() / 1e6) << " M records ("
            << three_digits(f["records_per_s"].get<double>() / 1e6) << " M/s); simulated "
            << three_digits(f["simulated_time_us"].get<double>()) << " us, the recorded run "
            << three_digits(f["recorded_run_simulated_time_us"].get<double>()) << " us; "
            << percent_of_a_core(f["core_share"]) << "\n";
}

void print_simgrid(const Json& cases) {
  for (const auto& c : cases) {
    std::cout << c["case"].get<std::string>() << ":\n";
    for (const char* model : {"packet", "simgrid"})
      std::cout << "  " << model << ": " << c[model]["messages"].get<double>() << " messages in "
                << three_digits(c[model]["wall_s"].get<double>()) << " s, "
                << three_digits(c[model]["messages_per_s"].get<double>()) << " messages/s, simulated "
                << three_digits(c[model]["simulated_time_us"].get<double>()) << " us, "
                << percent_of_a_core(c[model]["core_share"]) << "\n";
    std::cout << "  packet model " << three_digits(c["speedup_packet_over_simgrid"].get<double>())
              << "x faster (wall time ratio)\n";
  }
}

// Nanoseconds per dependent load over a working set of `bytes`, in random order: where this
// machine's caches end. The packet model touches a few megabytes at random per 4,096 nodes,
// so its speed depends on which side of that edge a run falls.
double dependent_load_ns(std::size_t bytes) {
  struct alignas(64) Line {
    std::size_t next;
  };
  const std::size_t lines = bytes / sizeof(Line);
  std::vector<std::size_t> order(lines);
  for (std::size_t i = 0; i < lines; ++i) order[i] = i;
  Rng rng(7);
  for (std::size_t i = lines - 1; i > 1; --i) std::swap(order[i], order[1 + rng.below(i)]);  // one cycle
  std::vector<Line> chain(lines);
  for (std::size_t i = 0; i < lines; ++i) chain[order[i]].next = order[(i + 1) % lines];
  const std::size_t loads = 4'000'000;
  std::size_t at = 0;
  const auto start = Clock::now();
  for (std::size_t i = 0; i < loads; ++i) at = chain[at].next;
  const double ns = seconds_since(start) * 1e9 / static_cast<double>(loads);
  return at == lines ? -1 : ns;  // `at` is used, so the loop is not optimised away
}

Json memory_latency() {
  Json out = Json::array();
  for (const std::size_t megabytes : {1, 2, 4, 8, 16, 64})
    out.push_back({{"working_set_MiB", megabytes}, {"ns_per_load", dependent_load_ns(megabytes << 20)}});
  return out;
}

Task<> idle_rank(rt::MessagingLayer& layer, rt::Rank r) { co_await layer.irecv(r, rt::kAnySource, rt::kAnyTag); }

Json idle_rank_memory(std::int64_t ranks) {
  // 64x64x16 nodes x 16 ranks per node = 1,048,576 ranks; scaled down for --quick.
  const std::int64_t nodes = ranks / 16;
  Json doc = Json::parse(R"({
    "machine": {"name": "bench-big", "topology": {"type": "torus", "dims": [
        {"size": 64, "link_bandwidth": "2GB/s", "link_latency": "40ns"},
        {"size": 64, "link_bandwidth": "2GB/s", "link_latency": "40ns"},
        {"size": 16, "link_bandwidth": "2GB/s", "link_latency": "40ns"}]},
      "node": {"cores": 16, "injection_bandwidth": "20GB/s", "ejection_bandwidth": "20GB/s",
               "memcpy_bandwidth": "14GB/s"},
      "packet": {"payload": "512B", "header": "40B"}},
    "placement": {"ranks_per_node": 16},
    "workload": {"name": "pingpong", "sizes": [8], "iterations": 1}
  })");
  doc["placement"]["nodes"] = nodes;
  Simulation sim(doc, Where("bench"), 1);
  // The machine, network and layer exist; measure only what the idle ranks add.
  auto& layer_kernel = sim.kernel();
  const long before = resident_bytes();
  rt::MessagingLayer* layer = sim.layer();
  for (rt::Rank r = 0; r < layer->size(); ++r) layer_kernel.spawn(idle_rank(*layer, r));
  layer_kernel.run();
  const long after = resident_bytes();
  const double per_rank = static_cast<double>(after - before) / static_cast<double>(layer->size());
  return {{"ranks", layer->size()},
          {"resident_before_MB", before / 1e6},
          {"resident_after_MB", after / 1e6},
          {"bytes_per_idle_rank", per_rank},
          {"blocked_ranks", layer_kernel.live_processes()}};
}

void print_bench(const Json& r) {
  const auto& k = r["kernel"];
  std::cout << "kernel: " << format_number(k["events_per_s"].get<double>() / 1e6) << " M events/s ("
            << format_number(k["ratio_to_baseline"].get<double>()) << "x a bare std::priority_queue at "
            << format_number(k["baseline_heap_ops_per_s"].get<double>() / 1e6) << " M ops/s; "
            << percent_of_a_core(k["core_share"]) << ")\n";
  const auto& m = r["random_4KiB_16x16x16"];
  for (const char* model : kModels) {
    std::cout << "random 4 KiB on 16x16x16, " << model
              << " model: " << format_number(m[model]["messages_per_s"].get<double>() / 1e6)
              << " M messages/s (median of " << m[model]["runs_messages_per_s"].size() << " runs:";
    const char* separator = " ";
    for (const auto& rate : m[model]["runs_messages_per_s"])
      std::cout << std::exchange(separator, ", ") << three_digits(rate.get<double>() / 1e6);
    std::cout << " M/s; " << m[model]["messages"] << " messages in " << format_number(m[model]["wall_s"].get<double>())
              << " s, " << format_number(m[model]["events_per_s"].get<double>() / 1e6) << " M events/s; "
              << percent_of_a_core(m[model]["core_share"]) << ")\n";
  }
  std::cout << "  packet / analytic speed: " << format_number(m["ratio_packet_to_analytic"].get<double>())
            << "; with credit flow control / without: " << format_number(m["ratio_credit_to_packet"].get<double>())
            << "\n";
  const auto& i = r["idle_ranks"];
  std::cout << "idle ranks: " << i["ranks"] << " ranks, " << format_number(i["bytes_per_idle_rank"].get<double>())
            << " bytes per idle rank\n";
  std::cout << "dependent load latency by working set:";
  for (const auto& point : r["memory_latency"])
    std::cout << " " << point["working_set_MiB"] << " MiB " << three_digits(point["ns_per_load"].get<double>())
              << " ns;";
  std::cout << "\n";
  std::cout << "peak resident memory: " << format_number(r["peak_resident_MB"].get<double>()) << " MB\n";
}

struct BenchOptions {
  bool quick = false, simgrid = false, nqueens = false, fft = false, trace = false, markdown = false;
  std::string json_out;
  std::string command = "build/torsim bench";  // as the --markdown rows quote it
};

BenchOptions bench_options(const Args& args) {
  BenchOptions o;
  o.quick = args.given("--quick");
  o.simgrid = args.given("--simgrid");
  o.nqueens = args.given("--nqueens");
  o.fft = args.given("--fft");
  o.trace = args.given("--trace");
  o.markdown = args.given("--markdown");
  o.json_out = args.value("--json");
  for (const auto& [name, _] : args.options())  // the options that choose what is measured, as given
    if (name != "--markdown" && name != "--json") o.command += " " + name;
  return o;
}

// The default figures: kernel, random traffic, idle ranks, and the cache probe beside them.
void measure_default_figures(bool quick, Json& r) {
  r["kernel"] = in_child([&] { return kernel_events(quick ? 1000000 : 10000000); });
  r["random_4KiB_16x16x16"] = random_messages(quick ? 16 : 256);
  r["idle_ranks"] = in_child([&] { return idle_rank_memory(quick ? 65536 : 1048576); });
  r["memory_latency"] = in_child(memory_latency);
  r["peak_resident_MB"] = static_cast<double>(peak_resident_bytes()) / 1e6;
  print_bench(r);
}

int command_bench(const Args& args) {
  const BenchOptions o = bench_options(args);
  Json r{{"quick", o.quick}};
  if (!o.simgrid && !o.nqueens && !o.fft && !o.trace) measure_default_figures(o.quick, r);
  if (o.nqueens) {
    r["nqueens"] = nqueens(o.quick);
    print_nqueens(r["nqueens"]);
  }
  if (o.fft) {
    r["fft"] = fft(o.quick);
    print_fft(r["fft"]);
  }
  if (o.trace) {
    r["trace"] = trace_figures(o.quick);
    print_trace_figures(r["trace"]);
  }
  if (o.simgrid) {
    r["packet_vs_simgrid"] = simgrid_comparison(o.quick);
    print_simgrid(r["packet_vs_simgrid"]);
  }
  if (o.markdown) print_performance_rows(r, o.command, std::cout << "\n");
  if (!o.json_out.empty()) write_file_atomically(o.json_out, r.dump(2) + "\n", args.where("--json"));
  return 0;
}

}  // namespace

const CommandSpec& bench_command() {
  static const CommandSpec spec{
      "bench",
      "",
      0,
      0,
      "speed benchmark",
      "Measures speed (the figures of docs/performance.md): kernel events/s, random 4 KiB messages/s on a\n"
      "16x16x16 torus on each network model, bytes per idle rank, memory latency; or, with --simgrid,\n"
      "--nqueens, --fft or --trace, those figures instead.",
      {{"--quick", "", "reduced sizes (seconds, for tests)"},
       {"--simgrid", "", "the same scenarios on the packet model and the SimGrid backend, side by side"},
       {"--nqueens", "", "N-Queens at 15,360 cores on both Charm++ layers"},
       {"--fft", "", "NAS FT class D at 16,384 cores in its three variants"},
       {"--trace", "", "trace readers, replay speed, and a recorded trace of 16,384 ranks replayed"},
       {"--markdown", "", "also print the figures as rows of docs/performance.md's tables"},
       {"--json", "FILE", "also write the figures as JSON"}},
      command_bench};
  return spec;
}

}  // namespace torsim
