// Traces of a run in the Chrome trace-event JSON format, which ui.perfetto.dev and
// chrome://tracing open (docs/traces.md). A process per sweep point, a thread per rank: the
// slices are what its core was charged with (compute, send, receive, match, copy, poll,
// registration, scheduler) and "wait" between them; counters give how many links of each kind
// (network, injection, ejection) are busy at once, and the utilisation of links named in the
// options.
//
// Each traced point streams its events into a fragment file of its own (in the system's
// temporary directory), so points traced in parallel child processes write what a serial run
// writes; trace.json is the fragments in point order.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/apps/workload.hpp"
#include "models/messaging/messaging.hpp"
#include "models/network/network_model.hpp"
#include "run/output_files.hpp"

namespace torsim {

extern const ParamTable kTraceParams;

struct TraceSettings {
  Where where;       // where the options came from (/output/trace)
  std::string file;  // relative to the output directory, or (from --trace) to the current one
  bool file_from_command_line = false;
  std::optional<std::vector<std::int64_t>> ranks;   // unset: every rank
  std::optional<std::vector<std::int64_t>> points;  // unset: every sweep point
  std::vector<std::int64_t> links;                  // links with a counter track of their own
  Time from = 0;
  Time to = kNever;
  Bytes max_size = 0;

  bool traces_point(std::size_t point) const;
  /// Input errors before anything runs: a point the sweep does not have, a rank or link the
  /// point's job does not have.
  void check_points(std::size_t point_count) const;
  void check(const rt::Job& job) const;
};

/// The trace settings of a run: /output/trace of the scenario, with --trace FILE (not empty)
/// naming the file; nullopt when neither asks for a trace.
std::optional<TraceSettings> trace_settings(const Json& output, const Where& output_where,
                                            const std::string& command_line_file);

/// Records one sweep point into its fragment file.
class TraceRecorder {
 public:
  TraceRecorder(const TraceSettings& settings, std::size_t point, const std::string& label,
                const std::string& fragment_path, const rt::Job& job);
  ~TraceRecorder();
  void attach(rt::MessagingLayer& layer, net::NetworkModel& network, apps::Workload& workload);
  /// Writes the counters and closes the fragment. Returns {"bytes", "stopped_at_us"} (null
  /// when the point was traced whole).
  Json finish(Time end);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

/// The fragment files of a run's traced points (in the system's temporary directory, named
/// after this process), removed when this is destroyed or the process is ended by a signal.
class TraceFragments {
 public:
  TraceFragments() = default;
  ~TraceFragments();
  TraceFragments(const TraceFragments&) = delete;
  TraceFragments& operator=(const TraceFragments&) = delete;
  /// The file for `point` (call in the parent, before any child is forked).
  const std::string& add(std::size_t point);
  const std::string& path(std::size_t point) const;
  std::vector<std::size_t> points() const;
  /// What each point's recorder returned (TraceRecorder::finish).
  std::vector<std::pair<std::size_t, Json>> summaries;

 private:
  std::vector<std::pair<std::size_t, std::string>> files_;
  std::vector<std::unique_ptr<RemoveOnSignal>> guards_;
};

/// Writes the trace file: the fragments of `points` (fragment(point) gives its text), in that
/// order, stopping before a fragment that would take the file past `max_size` (and saying so in
/// `warnings` and in the trace).
void write_trace(FileWriter& out, const std::vector<std::size_t>& points,
                 const std::function<std::string(std::size_t)>& fragment, Bytes max_size,
                 std::vector<std::string>& warnings);

/// The events of a trace file written by write_trace, grouped by point: one fragment text per
/// point (for torsim merge). An InputError at `where` if the file is not such a trace.
std::vector<std::pair<std::size_t, std::string>> trace_fragments(const std::string& text, const Where& where);

}  // namespace torsim
