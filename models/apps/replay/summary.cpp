#include "models/apps/replay/summary.hpp"

#include <algorithm>

namespace torsim::replay {

namespace {

void tally(TraceSummary& s, const Call& call) {
  CallTally& t = call.type == CallType::other ? s.other_functions[std::string(call.function)] : s.by_type[call.type];
  ++t.count;
  t.bytes += call.bytes;
  if (call.start == kNoTime) return;
  t.recorded += call.end - call.start;
  s.first = s.first == kNoTime ? call.start : std::min(s.first, call.start);
  s.last = s.last == kNoTime ? call.end : std::max(s.last, call.end);
}

void hosts(TraceSummary& s, const Trace& trace) {
  for (std::int32_t r = 0; r < trace.ranks(); ++r) {
    if (!trace.rank(r).coords.empty()) ++s.ranks_with_coords;
    const std::string& host = trace.rank(r).host;
    if (host.empty()) continue;
    auto it = std::find_if(s.hosts.begin(), s.hosts.end(), [&](const auto& h) { return h.first == host; });
    if (it == s.hosts.end()) it = s.hosts.insert(s.hosts.end(), {host, {}});
    it->second.push_back(r);
  }
}

}  // namespace

TraceSummary summarize(const Trace& trace) {
  TraceSummary s;
  hosts(s, trace);
  Call call;
  for (std::int32_t r = 0; r < trace.ranks(); ++r) {
    auto cursor = trace.cursor(r);
    while (cursor->next(call)) {
      ++s.records;
      tally(s, call);
    }
  }
  return s;
}

std::string rank_ranges(const std::vector<std::int32_t>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    text += (text.empty() ? "" : ",") + std::to_string(ranks[i]);
    if (j > i) text += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

}  // namespace torsim::replay
