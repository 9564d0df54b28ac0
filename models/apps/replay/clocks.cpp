#include "models/apps/replay/clocks.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

namespace torsim::replay {

namespace {

// A stream of messages: sender, receiver (world ranks), tag.
using Stream = std::tuple<std::int32_t, std::int32_t, std::int32_t>;

struct Streams {
  std::map<Stream, std::vector<Time>> sends;     // send starts, in order
  std::map<Stream, std::vector<Time>> receives;  // receive completions, in posting order
};

bool is_send(CallType t) {
  return t == CallType::send || t == CallType::bsend || t == CallType::ssend || t == CallType::rsend ||
         t == CallType::isend || t == CallType::ibsend || t == CallType::issend || t == CallType::irsend;
}

// One rank's sends and receive completions. A rank that posts a wildcard receive on the world
// gives no receives (which message met which would depend on timing).
class RankScan {
 public:
  RankScan(std::int32_t rank, Streams& out) : rank_(rank), out_(out) {}

  void add(const Call& c) {
    if (c.comm != kCommWorld || c.start == kNoTime) return;
    if (is_send(c.type) && c.peer >= 0) out_.sends[{rank_, c.peer, c.tag}].push_back(c.start);
    if (c.type == CallType::sendrecv || c.type == CallType::sendrecv_replace) {
      if (c.peer >= 0) out_.sends[{rank_, c.peer, c.tag}].push_back(c.start);
      receive(c.source2, c.tag2, c.end);
    }
    if (c.type == CallType::recv) receive(c.peer, c.tag, c.end);
    if (c.type == CallType::irecv) post(c);
    if (c.type >= CallType::wait && c.type <= CallType::testsome) complete(c);
  }

  /// Receive completions into `out`, unless the rank used a wildcard.
  void finish() {
    if (wildcard_) return;
    for (const auto& [stream, times] : received_)
      for (const Time t : times)
        if (t != kNoTime) out_.receives[stream].push_back(t);
  }

 private:
  bool plain(std::int32_t source, std::int32_t tag) {
    if (source == kProcNull) return false;
    if (source < 0 || tag < 0) wildcard_ = true;
    return !wildcard_;
  }
  void receive(std::int32_t source, std::int32_t tag, Time end) {
    if (plain(source, tag)) received_[{source, rank_, tag}].push_back(end);
  }
  void post(const Call& c) {
    if (!plain(c.peer, c.tag)) return;
    auto& times = received_[{c.peer, rank_, c.tag}];
    times.push_back(kNoTime);
    posted_[c.request] = {&times, times.size() - 1};
  }
  void complete_one(std::int64_t request, Time end) {
    const auto it = posted_.find(request);
    if (it == posted_.end()) return;
    (*it->second.first)[it->second.second] = end;
    posted_.erase(it);
  }
  void complete(const Call& c) {
    const bool tests = c.type >= CallType::test;
    if (tests && !c.flag) return;
    if (c.type == CallType::wait || c.type == CallType::test) return complete_one(c.request, c.end);
    if (c.type == CallType::waitall || c.type == CallType::testall) {
      for (const std::int64_t r : c.requests) complete_one(r, c.end);
      return;
    }
    for (const std::int32_t i : c.completed)
      if (i >= 0 && i < static_cast<std::int32_t>(c.requests.size()))
        complete_one(c.requests[static_cast<std::size_t>(i)], c.end);
  }

  std::int32_t rank_;
  Streams& out_;
  bool wildcard_ = false;
  std::map<Stream, std::vector<Time>> received_;
  std::unordered_map<std::int64_t, std::pair<std::vector<Time>*, std::size_t>> posted_;
};

std::vector<std::int32_t> hosts_of(const Trace& trace, std::int32_t& count) {
  std::map<std::string, std::int32_t> seen;
  std::vector<std::int32_t> host;
  for (std::int32_t r = 0; r < trace.ranks(); ++r)
    host.push_back(seen.try_emplace(trace.rank(r).host, static_cast<std::int32_t>(seen.size())).first->second);
  count = static_cast<std::int32_t>(seen.size());
  return host;
}

// Offsets o >= 0 with o[to] - o[from] >= bound for every constraint, each as small as they
// allow (longest paths from 0); false if a cycle makes them grow without end.
bool solve(std::int32_t hosts, const std::map<std::pair<std::int32_t, std::int32_t>, Time>& bounds,
           std::vector<Time>& o) {
  o.assign(static_cast<std::size_t>(hosts), 0);
  for (std::int32_t round = 0; round <= hosts; ++round) {
    bool changed = false;
    for (const auto& [pair, bound] : bounds) {
      Time& to = o[static_cast<std::size_t>(pair.second)];
      if (o[static_cast<std::size_t>(pair.first)] + bound > to) {
        to = o[static_cast<std::size_t>(pair.first)] + bound;
        changed = true;
      }
    }
    if (!changed) return true;
  }
  return false;
}

}  // namespace

ClockAlignment align_clocks(const Trace& trace) {
  ClockAlignment a;
  a.offset.assign(static_cast<std::size_t>(trace.ranks()), 0);
  std::int32_t hosts = 0;
  const auto host = hosts_of(trace, hosts);
  if (hosts < 2 || trace.format() == Format::time_independent) return a;
  Streams streams;
  std::vector<Time> first(static_cast<std::size_t>(trace.ranks()), 0);
  Call call;
  for (std::int32_t r = 0; r < trace.ranks(); ++r) {
    RankScan scan(r, streams);
    const auto cursor = trace.cursor(r);
    for (bool any = false; cursor->next(call); any = true) {
      if (!any && call.start != kNoTime) first[static_cast<std::size_t>(r)] = call.start;
      scan.add(call);
    }
    scan.finish();
  }
  std::map<std::pair<std::int32_t, std::int32_t>, Time> bounds;  // (sender's host, receiver's) -> bound
  for (const auto& [stream, received] : streams.receives) {
    const auto [src, dst, tag] = stream;
    const std::int32_t from = host[static_cast<std::size_t>(src)], to = host[static_cast<std::size_t>(dst)];
    const auto sent = streams.sends.find(stream);
    if (from == to || sent == streams.sends.end()) continue;
    const auto [it, fresh] = bounds.try_emplace({from, to}, std::numeric_limits<Time>::min());
    for (std::size_t k = 0; k < std::min(received.size(), sent->second.size()); ++k) {
      it->second = std::max(it->second, sent->second[k] - received[k]);
      ++a.messages;
    }
  }
  std::vector<Time> offsets;
  a.consistent = solve(hosts, bounds, offsets);
  if (!a.consistent) return a;
  a.origin = std::numeric_limits<Time>::max();
  for (std::int32_t r = 0; r < trace.ranks(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    a.offset[i] = offsets[static_cast<std::size_t>(host[i])];
    a.origin = std::min(a.origin, first[i] + a.offset[i]);
  }
  return a;
}

}  // namespace torsim::replay
