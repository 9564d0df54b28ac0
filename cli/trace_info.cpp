#include "cli/trace_info.hpp"

#include <algorithm>
#include <iostream>

#include "models/apps/replay/coverage.hpp"
#include "models/apps/replay/summary.hpp"
#include "run/output.hpp"
#include "sim/config/error.hpp"

namespace torsim {

namespace {

using namespace replay;

double microseconds(Time t) { return to_microseconds(t); }

Json call_row(const std::string& name, const CallTally& t, const Coverage& c, bool timed) {
  Json row = {
      {"call", name}, {"count", t.count}, {"bytes", t.bytes}, {"support", support_name(c.support)}, {"how", c.how}};
  row["recorded_us"] = timed ? Json(microseconds(t.recorded)) : Json(nullptr);
  return row;
}

Json placement_json(const TraceSummary& s) {
  Json hosts = Json::array();
  for (const auto& [host, ranks] : s.hosts) hosts.push_back({{"host", host}, {"ranks", rank_ranges(ranks)}});
  std::size_t with_host = 0;
  for (const auto& host : s.hosts) with_host += host.second.size();
  Json found = Json::array();  // in the order placement.from_trace prefers them
  if (s.ranks_with_coords > 0) found.push_back("mesh coordinates");
  if (!s.hosts.empty()) found.push_back("host names");
  return {{"hosts", hosts},
          {"ranks_with_host", with_host},
          {"ranks_with_mesh_coordinates", s.ranks_with_coords},
          {"found", found}};
}

Json info_json(const Trace& trace, const TraceSummary& s) {
  const bool timed = s.first != kNoTime;
  Json calls = Json::array();
  for (const auto& [type, t] : s.by_type)
    calls.push_back(call_row(std::string(call_type_name(type)), t, coverage(type), timed));
  for (const auto& [function, t] : s.other_functions)
    calls.push_back(call_row(function, t, coverage(CallType::other), timed));
  std::int64_t unsupported = 0;
  for (const Json& row : calls)
    if (row["support"] == "unsupported") unsupported += row["count"].get<std::int64_t>();
  return {
      {"path", trace.path()},
      {"format", format_name(trace.format())},
      {"ranks", trace.ranks()},
      {"records", s.records},
      {"communicators", trace.communicators().size()},
      {"communicators_defined_by", trace.local_handles() ? "each rank's creation calls" : "the trace's definitions"},
      {"placement", placement_json(s)},
      {"recorded_span_us", timed ? Json(microseconds(s.last - s.first)) : Json(nullptr)},
      {"unsupported_calls", unsupported},
      {"calls", calls}};
}

void print_info(std::ostream& out, const Json& info) {
  out << info["path"].get<std::string>() << ": " << info["format"].get<std::string>() << " trace, " << info["ranks"]
      << " ranks, " << info["records"] << " calls\n";
  const Json& p = info["placement"];
  if (p["hosts"].empty())
    out << "hosts: none recorded\n";
  else {
    out << "hosts: " << p["hosts"].size() << "\n";
    constexpr std::size_t kListed = 16;  // the rest are in --json
    for (std::size_t i = 0; i < std::min(p["hosts"].size(), kListed); ++i)
      out << "  " << p["hosts"][i]["host"].get<std::string>() << ": ranks " << p["hosts"][i]["ranks"].get<std::string>()
          << "\n";
    if (p["hosts"].size() > kListed)
      out << "  ... and " << p["hosts"].size() - kListed << " more (--json lists them)\n";
  }
  out << "mesh coordinates: " << p["ranks_with_mesh_coordinates"] << " ranks\n";
  std::string by;
  for (const auto& f : p["found"])
    by += (by.empty() ? "" : ", else ") + f.get<std::string>() +
          (f == "mesh coordinates" ? " (on a torus or mesh machine, when every rank has them)" : "");
  out << "placement from the trace: " << (by.empty() ? "nothing recorded to place by" : by) << "\n";
  out << "communicators: " << info["communicators"] << " defined, the others by "
      << info["communicators_defined_by"].get<std::string>() << "\n";
  if (info["recorded_span_us"].is_null())
    out << "recorded span: none (the trace records no times)\n";
  else
    out << "recorded span: " << format_number(info["recorded_span_us"].get<double>())
        << " us (first call's start to last call's end, over every rank)\n";
  out << "\n"
      << "call                      count        bytes  recorded_us  replay\n";
  for (const Json& row : info["calls"]) {
    char recorded[32] = "-";
    if (!row["recorded_us"].is_null())
      std::snprintf(recorded, sizeof recorded, "%.3f", row["recorded_us"].get<double>());
    char line[160];
    std::snprintf(line, sizeof line, "%-22s %8lld %12lld %12s  %s: ", row["call"].get<std::string>().c_str(),
                  static_cast<long long>(row["count"].get<std::int64_t>()),
                  static_cast<long long>(row["bytes"].get<std::int64_t>()), recorded,
                  row["support"].get<std::string>().c_str());
    out << line << row["how"].get<std::string>() << "\n";
  }
  if (info["unsupported_calls"].get<std::int64_t>() > 0)
    out << "\n"
        << info["unsupported_calls"] << " calls are unsupported: a replay passes their recorded durations "
        << "and counts them\n";
}

int command_trace_info(const Args& args) {
  const std::string path = args.operands().front(), format = args.value("--format", "auto");
  const auto trace =
      open_trace(path, parse_format(format, args.where("--format")), Where("command line", "trace-info " + path));
  const Json info = info_json(*trace, summarize(*trace));
  if (args.given("--json"))
    std::cout << info.dump(2) << "\n";
  else
    print_info(std::cout, info);
  return 0;
}

}  // namespace

const CommandSpec& trace_info_command() {
  static const CommandSpec spec{
      "trace-info",
      "PATH",
      1,
      1,
      "what a recorded MPI trace holds, and how a replay runs it",
      "Reads a recorded MPI trace through: its ranks, the hosts and mesh coordinates found (placement from\n"
      "the trace), the calls by type with counts and bytes, the recorded span, and how a replay runs each\n"
      "call type: modelled, approximated (how), or unsupported. PATH: a time-independent index or action\n"
      "file, a DUMPI .meta or .bin, an OTF2 anchor (traces.otf2), or a folder holding one (docs/replay.md).",
      {{"--format", "F", "the trace's format: auto (detected from the path, the default), ti, dumpi, otf2"},
       {"--json", "", "print it as JSON"}},
      command_trace_info};
  return spec;
}

}  // namespace torsim
