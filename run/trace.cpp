#include "run/trace.hpp"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <set>

#include <unistd.h>

#include "run/scenario.hpp"
#include "sim/config/fields.hpp"

namespace torsim {

namespace {
using Settings = TraceSettings;
// where and file_from_command_line come from the reader and the command line (trace_settings).
constexpr Field<Settings> kFields[] = {
    bind<&Settings::file>(
        {"file", ParamKind::text, "trace.json", "", "", "",
         "trace file, relative to the output directory (--trace FILE names one relative to the current directory)",
         "-"}),
    bind<&Settings::ranks>({"ranks", ParamKind::integer_list, kUnset, "", "0", "",
                            "ranks traced: a list, or {\"from\", \"to\", \"step\"}; default every rank", "-"}),
    bind<&Settings::points>({"points", ParamKind::integer_list, kUnset, "", "0", "",
                             "sweep points traced, by index; default every point", "-"}),
    bind<&Settings::links>(
        {"links", ParamKind::integer_list, "[]", "", "0", "",
         "links given a utilisation counter of their own (ids as in links.csv and `torsim describe --route`)", "-"}),
    bind<&Settings::from>(
        {"from", ParamKind::time, "0ns", "ns", "0ns", "", "start of the traced window of simulated time", "-"}),
    bind<&Settings::to>(
        {"to", ParamKind::time, kUnset, "ns", "0ns", "", "end of the traced window; default the end of the run", "-"}),
    bind<&Settings::max_size>(
        {"max_size", ParamKind::size, "256MiB", "B", "1KiB", "1TB",
         "largest trace file: a point's slices stop there, and points that would take the file past it are left out, "
         "with a warning",
         "-"}),
};
constexpr auto kSpecs = specs_of(kFields);

constexpr std::string_view kHeader = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
constexpr std::string_view kFooter = "\n]}\n";
constexpr std::string_view kSeparator = ",\n";
constexpr std::string_view kLinePrefix = "{\"pid\":";

// Trace timestamps are microseconds; picoseconds make them exact decimals with six places.
std::string microseconds_text(Time t) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%" PRId64 ".%06" PRId64, t / kMicrosecond, t % kMicrosecond);
  std::string text = buffer;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

const char* kind_name(topo::LinkKind kind) {
  switch (kind) {
    case topo::LinkKind::network:
      return "network";
    case topo::LinkKind::injection:
      return "injection";
    case topo::LinkKind::ejection:
      return "ejection";
  }
  return "?";
}

constexpr std::size_t kLinkKinds = 3;

}  // namespace

const ParamTable kTraceParams{"output.trace",
                              "A trace of the run for ui.perfetto.dev or chrome://tracing (docs/traces.md).", kSpecs};

// --- settings ----------------------------------------------------------------------------------

bool TraceSettings::traces_point(std::size_t point) const {
  return !points || std::find(points->begin(), points->end(), static_cast<std::int64_t>(point)) != points->end();
}

namespace {
void check_below(const std::vector<std::int64_t>& values, std::int64_t count, const Where& where, const char* what) {
  for (const auto v : values)
    if (v >= count)
      where.fail("expected " + std::string(what) + " below " + std::to_string(count) + ", got " + std::to_string(v));
}
}  // namespace

void TraceSettings::check_points(std::size_t point_count) const {
  if (points) check_below(*points, static_cast<std::int64_t>(point_count), where / "points", "sweep point indices");
}

void TraceSettings::check(const rt::Job& job) const {
  if (ranks) check_below(*ranks, job.size(), where / "ranks", "ranks of the job");
  check_below(links, job.machine.topology->link_count(), where / "links", "link ids of the machine");
}

std::optional<TraceSettings> trace_settings(const Json& output, const Where& output_where,
                                            const std::string& command_line_file) {
  const ParamReader out(output, output_where, kOutputParams);
  if (!out.has("trace") && command_line_file.empty()) return std::nullopt;
  const ParamReader r(out.nested("trace"), out.where("trace"), kTraceParams);
  TraceSettings s = parse_fields(r, kFields);
  s.where = r.where();
  if (!command_line_file.empty()) s.file = command_line_file;
  s.file_from_command_line = !command_line_file.empty();
  if (s.to <= s.from) r.where("to").fail("expected a time after 'from' (" + format_time(s.from) + ")");
  if (s.file.empty() || (!s.file_from_command_line && s.file.find('/') != std::string::npos))
    r.where("file").fail("expected a file name in the output directory (--trace PATH writes elsewhere), got '" +
                         s.file + "'");
  return s;
}

TraceFragments::~TraceFragments() {
  std::error_code ec;
  for (const auto& [_, file] : files_) std::filesystem::remove(file, ec);
}

const std::string& TraceFragments::add(std::size_t point) {
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("torsim-" + std::to_string(::getpid()) + "-point-" + std::to_string(point) + ".trace"))
                               .string();
  guards_.push_back(std::make_unique<RemoveOnSignal>(file));
  files_.emplace_back(point, file);
  return files_.back().second;
}

const std::string& TraceFragments::path(std::size_t point) const {
  for (const auto& [p, file] : files_)
    if (p == point) return file;
  throw std::logic_error("no trace fragment for point " + std::to_string(point));
}

std::vector<std::size_t> TraceFragments::points() const {
  std::vector<std::size_t> out;
  for (const auto& [p, _] : files_) out.push_back(p);
  return out;
}

// --- link counters -----------------------------------------------------------------------------

namespace {

// Busy time per bin of simulated time for a few tracks. Bins start 1 ns wide and double (pairs
// merged) whenever the run outgrows kMaxBins, so a trace has at most kMaxBins samples per
// counter, whatever the run's length.
class BusyBins {
 public:
  static constexpr std::size_t kMaxBins = 1024;

  BusyBins(Time origin, std::size_t tracks) : origin_(origin), busy_(tracks) {}

  void add(std::size_t track, Time start, Time end) {
    start = std::max(start, origin_);
    if (end <= start) return;
    cover(end);
    auto& bins = busy_[track];
    const auto last = static_cast<std::size_t>((end - 1 - origin_) / width_);
    if (bins.size() <= last) bins.resize(last + 1, 0);
    for (auto i = static_cast<std::size_t>((start - origin_) / width_); i <= last; ++i) {
      const Time lo = std::max(start, bin_start(i)), hi = std::min(end, bin_start(i + 1));
      bins[i] += hi - lo;
    }
  }
  /// Widens the bins until [origin, end) fits in kMaxBins of them.
  void cover(Time end) {
    while (end > origin_ && static_cast<std::size_t>((end - 1 - origin_) / width_) >= kMaxBins) widen();
  }
  Time bin_start(std::size_t i) const { return origin_ + static_cast<Time>(i) * width_; }
  std::size_t bins_until(Time end) const {
    return end <= origin_ ? 0 : static_cast<std::size_t>((end - origin_ + width_ - 1) / width_);
  }
  Time busy(std::size_t track, std::size_t bin) const { return bin < busy_[track].size() ? busy_[track][bin] : 0; }

 private:
  void widen() {
    width_ *= 2;
    for (auto& bins : busy_) {
      for (std::size_t i = 0; i < bins.size(); ++i) bins[i / 2] = (i % 2 ? bins[i / 2] : 0) + bins[i];
      bins.resize((bins.size() + 1) / 2);
    }
  }

  Time origin_;
  Time width_ = kNanosecond;
  std::vector<std::vector<Time>> busy_;
};

}  // namespace

// --- the recorder ------------------------------------------------------------------------------

class TraceRecorder::Impl {
 public:
  Impl(const TraceSettings& settings, std::size_t point, const std::string& label, const std::string& path,
       const rt::Job& job)
      : s_(settings),
        pid_(std::to_string(point + 1)),
        out_(path, settings.where),
        job_(job),
        traced_(static_cast<std::size_t>(job.size()), !settings.ranks),
        last_end_(static_cast<std::size_t>(job.size()), settings.from),
        bins_(settings.from, kLinkKinds + settings.links.size()) {
    if (s_.ranks)
      for (const auto r : *s_.ranks) traced_[static_cast<std::size_t>(r)] = true;
    const auto& topology = *job.machine.topology;
    for (topo::LinkId l = 0; l < topology.link_count(); ++l) ++links_of_kind_[kind_index(l)];
    metadata("", "process_name", "name", Json(label).dump());
    metadata("", "process_sort_index", "sort_index", std::to_string(point));
    for (rt::Rank r = 0; r < job.size(); ++r) {
      if (!traced_[static_cast<std::size_t>(r)]) continue;
      const std::string tid = std::to_string(r + 1);
      metadata(tid, "thread_name", "name",
               Json("rank " + std::to_string(r) + " (node " + std::to_string(job.node_of(r)) + ")").dump());
      metadata(tid, "thread_sort_index", "sort_index", std::to_string(r));
    }
  }

  void on_cpu(rt::Rank r, Time start, Time end, const rt::CpuCharge& charge) {
    const auto rank = static_cast<std::size_t>(r);
    if (!traced_[rank]) return;
    if (start > last_end_[rank]) slice(r + 1, last_end_[rank], start, "wait", "wait");
    Time t = start;
    for (std::size_t use = 0; use < rt::kCpuUses; ++use) {
      const Time part = charge.parts[use];
      if (part <= 0) continue;
      slice(r + 1, t, t + part, rt::cpu_use_name(static_cast<rt::CpuUse>(use)), "cpu");
      t += part;
    }
    last_end_[rank] = std::max(last_end_[rank], end);
  }

  // A workload's region (a replayed MPI call) on a track of its own beside the rank's core:
  // charges booked from events may run past the call that caused them.
  void on_region(rt::Rank r, std::string_view name, Time start, Time end) {
    const auto rank = static_cast<std::size_t>(r);
    if (!traced_[rank]) return;
    const std::string tid = std::to_string(region_tid(r));
    if (named_regions_.insert(r).second) {
      metadata(tid, "thread_name", "name", Json("rank " + std::to_string(r) + " calls").dump());
      metadata(tid, "thread_sort_index", "sort_index", std::to_string(r));
    }
    slice(region_tid(r), start, end, name, "call");
  }

  void on_link(topo::LinkId link, Time end, Time busy) {
    const Time start = end - busy;
    end = std::min(end, s_.to);
    bins_.add(kind_index(link), start, end);
    for (std::size_t i = 0; i < s_.links.size(); ++i)
      if (s_.links[i] == link) bins_.add(kLinkKinds + i, start, end);
  }

  Json finish(Time end) {
    const Time stop = std::min(end, s_.to);
    bins_.cover(stop);
    const auto& topology = *job_.machine.topology;
    for (std::size_t kind = 0; kind < kLinkKinds; ++kind)
      if (links_of_kind_[kind] > 0)
        counter(kind,
                std::string(kind_name(static_cast<topo::LinkKind>(kind))) + " links busy (of " +
                    std::to_string(links_of_kind_[kind]) + ")",
                "links", links_of_kind_[kind], stop);
    for (std::size_t i = 0; i < s_.links.size(); ++i) {
      const auto& link = topology.link(static_cast<topo::LinkId>(s_.links[i]));
      counter(kLinkKinds + i,
              "link " + std::to_string(s_.links[i]) + " (" + kind_name(link.kind) + ", vertex " +
                  std::to_string(link.from) + " -> " + std::to_string(link.to) + ") busy",
              "utilisation", 1, stop);
    }
    out_.close();
    return {{"bytes", out_.bytes()}, {"stopped_at_us", stopped_at_ ? Json(to_microseconds(*stopped_at_)) : Json()}};
  }

 private:
  std::size_t kind_index(topo::LinkId link) const {
    return static_cast<std::size_t>(job_.machine.topology->link(link).kind);
  }

  void metadata(const std::string& tid, const char* name, const char* key, const std::string& value) {
    line("{\"pid\":" + pid_ + (tid.empty() ? "" : ",\"tid\":" + tid) + ",\"ph\":\"M\",\"name\":\"" + name +
         "\",\"args\":{\"" + key + "\":" + value + "}}");
  }

  // A rank's core is thread r + 1; its regions are thread ranks + r + 1.
  std::int64_t region_tid(rt::Rank r) const { return std::int64_t{job_.size()} + r + 1; }

  void slice(std::int64_t tid, Time start, Time end, std::string_view name, std::string_view category) {
    start = std::max(start, s_.from);
    end = std::min(end, s_.to);
    if (end <= start || stopped_at_) return;
    std::string text = "{\"pid\":" + pid_ + ",\"tid\":" + std::to_string(tid) +
                       ",\"ph\":\"X\",\"ts\":" + microseconds_text(start) +
                       ",\"dur\":" + microseconds_text(end - start) + ",\"name\":\"" + std::string(name) +
                       "\",\"cat\":\"" + std::string(category) + "\"}";
    if (out_.bytes() + kSeparator.size() + text.size() > static_cast<std::uint64_t>(s_.max_size)) {
      stopped_at_ = start;
      line("{\"pid\":" + pid_ + ",\"ph\":\"i\",\"s\":\"p\",\"ts\":" + microseconds_text(start) +
           ",\"name\":\"trace stopped here: max_size reached\"}");
      return;
    }
    line(text);
  }

  // How many of `links` links were busy on average in each bin (at most all of them), sampled when
  // it changes, then 0 at the end of the window.
  void counter(std::size_t track, const std::string& name, const char* arg, std::int64_t links, Time stop) {
    const std::string head = "{\"pid\":" + pid_ + ",\"ph\":\"C\",\"name\":" + Json(name).dump() + ",\"ts\":";
    const std::string args = ",\"args\":{\"" + std::string(arg) + "\":";
    double previous = -1;
    for (std::size_t i = 0, n = bins_.bins_until(stop); i < n; ++i) {
      const Time span = std::min(stop, bins_.bin_start(i + 1)) - bins_.bin_start(i);
      const double value =
          std::min(static_cast<double>(links), static_cast<double>(bins_.busy(track, i)) / static_cast<double>(span));
      if (value == previous) continue;
      previous = value;
      line(head + microseconds_text(bins_.bin_start(i)) + args + Json(value).dump() + "}}");
    }
    line(head + microseconds_text(stop) + args + "0}}");
  }

  void line(const std::string& text) {
    if (out_.bytes() > 0) out_.write(kSeparator);
    out_.write(text);
  }

  TraceSettings s_;
  std::string pid_;
  FileWriter out_;
  const rt::Job& job_;
  std::vector<bool> traced_;
  std::vector<Time> last_end_;
  std::set<rt::Rank> named_regions_;  // ranks whose region track has its name
  std::array<std::int64_t, kLinkKinds> links_of_kind_{};
  BusyBins bins_;
  std::optional<Time> stopped_at_;
};

TraceRecorder::TraceRecorder(const TraceSettings& settings, std::size_t point, const std::string& label,
                             const std::string& fragment_path, const rt::Job& job)
    : impl_(std::make_unique<Impl>(settings, point, label, fragment_path, job)) {}

TraceRecorder::~TraceRecorder() = default;

void TraceRecorder::attach(rt::MessagingLayer& layer, net::NetworkModel& network, apps::Workload& workload) {
  Impl* impl = impl_.get();
  workload.set_region_observer(
      [impl](rt::Rank r, std::string_view name, Time start, Time end) { impl->on_region(r, name, start, end); });
  layer.cores().set_observer(
      [impl](rt::Rank r, Time start, Time end, const rt::CpuCharge& charge) { impl->on_cpu(r, start, end, charge); });
  network.set_link_observer([impl](topo::LinkId l, Time end, Time busy) { impl->on_link(l, end, busy); });
}

Json TraceRecorder::finish(Time end) { return impl_->finish(end); }

// --- the trace file ----------------------------------------------------------------------------

void write_trace(FileWriter& out, const std::vector<std::size_t>& points,
                 const std::function<std::string(std::size_t)>& fragment, Bytes max_size,
                 std::vector<std::string>& warnings) {
  out.write(kHeader);
  bool first = true;
  for (const std::size_t point : points) {
    const std::string text = fragment(point);
    if (out.bytes() + kSeparator.size() + text.size() + kFooter.size() > static_cast<std::uint64_t>(max_size)) {
      out.write(std::string(first ? "" : kSeparator) + "{\"pid\":" + std::to_string(point + 1) +
                ",\"ph\":\"i\",\"s\":\"g\",\"ts\":0,\"name\":\"trace stopped: point " + std::to_string(point) +
                " and those after it would take the file past max_size\"}");
      warnings.push_back("the trace leaves out sweep point " + std::to_string(point) +
                         " and those after it: they would take it past max_size (" + format_size(max_size) +
                         "); trace fewer points, ranks or a shorter window, or raise output.trace.max_size");
      break;
    }
    if (!first) out.write(kSeparator);
    out.write(text);
    first = false;
  }
  out.write(kFooter);
}

std::vector<std::pair<std::size_t, std::string>> trace_fragments(const std::string& text, const Where& where) {
  if (text.size() < kHeader.size() + kFooter.size() || text.compare(0, kHeader.size(), kHeader) != 0 ||
      text.compare(text.size() - kFooter.size(), kFooter.size(), kFooter) != 0)
    where.fail("expected a trace written by torsim run");
  std::vector<std::pair<std::size_t, std::string>> fragments;
  const std::string body = text.substr(kHeader.size(), text.size() - kHeader.size() - kFooter.size());
  std::size_t start = 0;
  while (start < body.size()) {
    std::size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    std::string line = body.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == ',') line.pop_back();
    std::size_t pid = 0;
    if (line.compare(0, kLinePrefix.size(), kLinePrefix) != 0 ||
        std::sscanf(line.c_str() + kLinePrefix.size(), "%zu", &pid) != 1 || pid == 0)
      where.fail("expected a trace written by torsim run (an event without its point first)");
    if (fragments.empty() || fragments.back().first != pid - 1)
      fragments.push_back({pid - 1, ""});
    else
      fragments.back().second += kSeparator;
    fragments.back().second += line;
  }
  return fragments;
}

}  // namespace torsim
