// The `trace` workload: replays a recorded MPI trace (DUMPI, OTF2 or SimGrid time-independent)
// on the scenario's machine and messaging layer (models/apps/replay/engine.hpp) and reports the
// replay against the recording: the time of the whole run and per call type, per rank.
#include "models/apps/replay/replay.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "models/apps/micro.hpp"
#include "models/apps/replay/clocks.hpp"
#include "models/apps/replay/engine.hpp"
#include "sim/config/unused.hpp"

namespace torsim::apps {
namespace {

using namespace replay;

using Compute = ReplaySettings::Compute;
constexpr ChoiceName<Compute> kComputeNames[] = {
    {"recorded", Compute::recorded}, {"none", Compute::none}, {"compute_scale", Compute::scaled}};
constexpr ChoiceName<bool> kClockNames[] = {{"aligned", true}, {"recorded", false}};

// The trace itself (path, format) and flop_rate, which only some traces read, are read by the
// constructor.
struct ReplayParams {
  Compute compute{};
  double compute_scale = 0;
  bool aligned_clocks = false;
};
using P = ReplayParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    unbound<P>(
        {"path", ParamKind::text, kRequired, "", "", "",
         "the trace: a time-independent index or action file, a DUMPI .meta (or .bin), an OTF2 anchor (traces.otf2), "
         "or a folder holding one; a relative path is relative to the scenario file (on the command line: to the "
         "current folder)",
         "-"}),
    unbound<P>({"format", ParamKind::choice, "auto", "", "", "", "the trace's format; auto: detected from the path",
                "-", "auto|ti|dumpi|otf2"}),
    bind_choice<&P::compute, kComputeNames>(
        {"compute", ParamKind::choice, "recorded", "", "", "",
         "recorded: the gaps between calls (from the recorded wall times) and compute actions run on the rank's "
         "core; none: no computation, communication only; compute_scale: recorded, times compute_scale",
         "-", "recorded|none|compute_scale"}),
    bind<&P::compute_scale>(
        {"compute_scale", ParamKind::number, "1", "", "0", "1000",
         "with compute: compute_scale, the factor on every computation (0.5: a processor twice as fast)", "-"}),
    bind_choice<&P::aligned_clocks, kClockNames>(
        {"clocks", ParamKind::choice, "aligned", "", "", "",
         "aligned: each host's recorded times moved by the smallest offset under which every message between hosts "
         "was sent before its receive completed (hosts' clocks disagree; models/apps/replay/clocks.hpp); recorded: "
         "as recorded",
         "-", "aligned|recorded"}),
    unbound<P>({"flop_rate", ParamKind::number, kUnset, "", "1", "1e18",
                "flops per second of a compute action (time-independent traces); unset: the machine's compute.flop",
                "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: trace)",
                         "Replays a recorded MPI trace and compares the replay with the recording (docs/replay.md).",
                         kSpecs};

// A relative path names a file beside the scenario that gave it.
std::string resolve(const std::string& path, const Where& where) {
  namespace fs = std::filesystem;
  if (fs::path(path).is_absolute() || !fs::is_regular_file(where.file())) return path;
  return (fs::path(where.file()).parent_path() / path).lexically_normal().string();
}

class TraceReplay final : public Workload {
 public:
  explicit TraceReplay(const ParamReader& r) : where_(r.where()) {
    trace_ = open_trace(resolve(r.text("path"), r.where("path")), parse_format(r.text("format"), r.where("format")),
                        r.where("path"));
    const ReplayParams p = parse_fields(r, kFields);
    settings_.compute = p.compute;
    settings_.scale = p.compute_scale;
    if (r.has("compute_scale") && settings_.compute != Compute::scaled)
      not_used(r.where("compute_scale"), "compute_scale is read only with \"compute\": \"compute_scale\"");
    if (p.aligned_clocks) {
      clocks_ = align_clocks(*trace_);
      settings_.clock_offset = clocks_.offset;
      settings_.clock_origin = clocks_.origin;
    }
    if (!r.has("flop_rate")) return;
    if (settings_.compute == Compute::none)
      not_used(r.where("flop_rate"),
               "flop_rate is read only when the replay computes (\"compute\": \"recorded\" or "
               "\"compute_scale\"); this run's compute is none");
    else if (trace_->format() == Format::time_independent)
      settings_.flop_time = 1e12 / r.number("flop_rate");
    else  // a sweep over traces may read it at another point
      not_used(r.where("flop_rate"),
               "flop_rate is read only for time-independent traces (their compute actions); this trace is " +
                   std::string(format_name(trace_->format())));
  }

  std::optional<rt::Placement> placement(const Json& spec, const Where& where, const Machine& machine) const override {
    return trace_placement(*trace_, spec, where, where_ / "path", machine);
  }

  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    if (trace_->format() == Format::time_independent && settings_.flop_time == 0) {
      const Time flop = job.machine.compute_cost("flop", where / "flop_rate");
      settings_.flop_time = static_cast<double>(flop);
    }
  }

  void set_region_observer(RegionObserver observer) override { regions_ = std::move(observer); }

  void start(rt::MessagingLayer& layer) override {
    replayer_ = std::make_unique<Replayer>(*trace_, settings_, layer);
    if (regions_)
      replayer_->set_call_observer(
          [this](Rank r, CallType type, Time start, Time end) { regions_(r, call_type_name(type), start, end); });
    replayer_->start();
  }

  void finish(RunOutput& out) const override {
    write_metrics(out);
    write_calls(out);
    write_ranks(out);
  }

 private:
  bool timed() const { return trace_->format() != Format::time_independent; }

  void write_metrics(RunOutput& out) const {
    Time recorded = 0, simulated = 0;
    std::int64_t calls = 0;
    for (const RankSummary& s : replayer_->ranks()) {
      calls += s.calls;
      if (s.calls == 0) continue;
      simulated = std::max(simulated, s.simulated_last - s.simulated_first);
      if (s.recorded_first != kNoTime && s.recorded_last != kNoTime)
        recorded = std::max(recorded, s.recorded_last - s.recorded_first);
    }
    if (timed()) out.metrics["recorded_us"] = microseconds(recorded);
    out.metrics["simulated_us"] = microseconds(simulated);
    out.metrics["ranks"] = trace_->ranks();
    out.metrics["calls"] = static_cast<double>(calls);
    const ReplayCounts& counts = replayer_->counts();
    out.metrics["unsupported_calls"] = static_cast<double>(counts.unsupported);
    out.metrics["unresolved_calls"] = static_cast<double>(counts.unresolved);
    out.metrics["unknown_requests"] = static_cast<double>(counts.unknown_requests);
    out.metrics["shared_contexts"] = static_cast<double>(replayer_->communicators().shared_contexts());
    if (!timed()) return;
    const auto& offsets = clocks_.offset;
    out.metrics["clock_offset_max_us"] =
        microseconds(offsets.empty() ? 0 : *std::max_element(offsets.begin(), offsets.end()));
    out.metrics["clock_messages"] = static_cast<double>(clocks_.messages);
    out.metrics["clocks_consistent"] = clocks_.consistent ? 1 : 0;
  }

  void write_calls(RunOutput& out) const {
    Series& s = out.add_series(
        "calls", {"count", "recorded_total_us", "simulated_total_us", "recorded_median_us", "simulated_median_us"});
    s.label_column = "call";
    for (int t = 0; t < kCallTypes; ++t) {
      const CallTypeStats& c = replayer_->calls().of(static_cast<CallType>(t));
      if (c.count == 0) continue;
      s.add(std::string(call_type_name(static_cast<CallType>(t))),
            {static_cast<double>(c.count), microseconds(c.recorded_total), microseconds(c.simulated_total),
             microseconds(c.recorded.median()), microseconds(c.simulated.median())});
    }
  }

  void write_ranks(RunOutput& out) const {
    Series& s =
        out.add_series("ranks", {"rank", "calls", "recorded_start_us", "simulated_start_us", "recorded_us",
                                 "simulated_us", "recorded_in_calls_us", "simulated_in_calls_us", "compute_us"});
    const auto& ranks = replayer_->ranks();
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      const RankSummary& x = ranks[r];
      const Time recorded =
          x.recorded_first != kNoTime && x.recorded_last != kNoTime ? x.recorded_last - x.recorded_first : 0;
      const Time simulated = x.calls > 0 ? x.simulated_last - x.simulated_first : 0;
      s.add({static_cast<double>(r), static_cast<double>(x.calls),
             microseconds(x.recorded_first == kNoTime ? 0 : x.recorded_first),
             microseconds(std::max<Time>(x.simulated_first, 0)), microseconds(recorded), microseconds(simulated),
             microseconds(x.recorded_in_calls), microseconds(x.simulated_in_calls), microseconds(x.compute)});
    }
  }

  Where where_;
  std::unique_ptr<Trace> trace_;
  ClockAlignment clocks_;
  mutable ReplaySettings settings_;  // the flop time is the machine's, found in check()
  std::unique_ptr<Replayer> replayer_;
  RegionObserver regions_;
};

}  // namespace

const WorkloadEntry kTraceWorkload{"trace", "replays a recorded MPI trace (DUMPI, OTF2, SimGrid time-independent)",
                                   &kParams, &make_from<TraceReplay>};

}  // namespace torsim::apps
