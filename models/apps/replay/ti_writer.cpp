#include "models/apps/replay/ti_writer.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "sim/config/error.hpp"

namespace torsim::replay {

namespace {

std::string number(double value) {
  char text[32];
  const auto [end, error] = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end);
}

std::string integer(std::int64_t value) { return std::to_string(value); }

}  // namespace

TiWriter::TiWriter(TiSink& sink, std::string index_name, std::int32_t ranks, Layout layout, Where where,
                   std::vector<Datatype> datatypes, std::size_t buffer_bytes)
    : sink_(sink),
      index_(std::move(index_name)),
      ranks_(ranks),
      layout_(layout),
      where_(std::move(where)),
      datatypes_(std::move(datatypes)),
      buffer_bytes_(buffer_bytes),
      buffers_(layout == Layout::per_rank ? static_cast<std::size_t>(ranks) : 1),
      pending_(static_cast<std::size_t>(ranks)) {}

std::string TiWriter::rank_file(std::int32_t r) const {
  return std::filesystem::path(index_).filename().string() + "_files/rank-" + std::to_string(r) + ".txt";
}

// A wait or test of a request no isend or irecv of the rank made has nothing to wait for: SimGrid
// replays it as nothing, so it is not written.
void TiWriter::write(std::int32_t r, const Call& call) {
  const std::string text = action(r, call);
  if (!text.empty()) line(r, text);
}

void TiWriter::line(std::int32_t r, std::string_view text) {
  std::string& buffer = buffers_[layout_ == Layout::per_rank ? static_cast<std::size_t>(r) : 0];
  const std::size_t before = buffer.size();
  buffer += std::to_string(r);
  buffer += ' ';
  buffer += text;
  buffer += '\n';
  buffered_ += buffer.size() - before;
  if (buffered_ >= buffer_bytes_) flush();
}

void TiWriter::flush() {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (buffers_[i].empty()) continue;
    sink_.append(layout_ == Layout::per_rank ? rank_file(static_cast<std::int32_t>(i)) : index_, buffers_[i]);
    buffers_[i].clear();
  }
  buffered_ = 0;
}

void TiWriter::finish() {
  if (finished_) return;
  // Every rank has a file, even one that made no call, so the index lists them all.
  if (layout_ == Layout::per_rank)
    for (std::int32_t r = 0; r < ranks_; ++r) sink_.append(rank_file(r), "");
  flush();
  if (layout_ == Layout::per_rank) {
    std::string index;
    for (std::int32_t r = 0; r < ranks_; ++r) index += rank_file(r) + "\n";
    sink_.append(index_, index);
  }
  finished_ = true;
}

void TiWriter::cannot(std::int32_t r, const Call& call, const std::string& why) const {
  where_.fail("rank " + std::to_string(r) + "'s " + std::string(call_type_name(call.type)) +
              " cannot be recorded as a time-independent trace: " + why);
}

// A v-variant's counts, one per rank, in bytes.
std::string TiWriter::counts(std::span<const std::int64_t> values, std::int32_t datatype, const Call& call) const {
  if (values.size() != static_cast<std::size_t>(ranks_))
    cannot(0, call,
           "it has " + std::to_string(values.size()) + " counts, not one per rank (" + std::to_string(ranks_) + ")");
  const bool sized = datatype >= 0 && static_cast<std::size_t>(datatype) < datatypes_.size();
  const Bytes size = sized ? datatypes_[static_cast<std::size_t>(datatype)].size : 1;
  std::string text;
  for (std::int64_t v : values) text += " " + integer(v * size);
  return text;
}

void TiWriter::Pending::forget_order(const Request& req) {
  const auto same = by_key.find(req.key());
  same->second.erase(req.order);
  if (same->second.empty()) by_key.erase(same);
}

void TiWriter::add_request(std::int32_t r, std::int64_t request, Request req) {
  Pending& pending = pending_[static_cast<std::size_t>(r)];
  // A handle used again before its wait: the earlier request is no longer waitable by it.
  if (const auto reused = pending.requests.find(request); reused != pending.requests.end())
    pending.forget_order(reused->second);
  req.order = pending.next_order++;
  pending.by_key[req.key()].insert(req.order);
  pending.requests[request] = req;
}

std::string TiWriter::wait_action(std::int32_t r, const Call& call, const char* name, std::int64_t request) {
  Pending& pending = pending_[static_cast<std::size_t>(r)];
  const auto it = pending.requests.find(request);
  if (it == pending.requests.end()) return "";
  const Request req = it->second;
  if (*pending.by_key.at(req.key()).begin() != req.order)
    cannot(r, call,
           std::string(name) + " on a request while an earlier one with the same source (" + integer(req.src) +
               "), destination (" + integer(req.dst) + ") and tag (" + integer(req.tag) +
               ") is pending: the format names a request by those three only, and a replay would take the "
               "earlier one");
  if (std::string_view(name) == "wait") {
    pending.forget_order(req);
    pending.requests.erase(it);
  }
  return std::string(name) + " " + integer(req.src) + " " + integer(req.dst) + " " + integer(req.tag);
}

// waitall completes every pending request: when the call's are all of them, one action; else
// one wait each, oldest first (the order does not matter to a waitall, and the format's waits
// take the oldest request).
std::string TiWriter::waitall_action(std::int32_t r, const Call& call) {
  Pending& pending = pending_[static_cast<std::size_t>(r)];
  bool all = call.requests.size() == pending.requests.size();
  for (std::int64_t id : call.requests) all = all && pending.requests.contains(id);
  if (all) {
    pending.requests.clear();
    pending.by_key.clear();
    return "waitall";
  }
  std::vector<std::pair<std::uint64_t, std::int64_t>> known;  // (order, request)
  for (std::int64_t id : call.requests)
    if (const auto it = pending.requests.find(id); it != pending.requests.end())
      known.emplace_back(it->second.order, id);
  std::sort(known.begin(), known.end());
  std::string lines;
  for (const auto& [order, id] : known) {
    if (!lines.empty()) lines += "\n" + std::to_string(r) + " ";
    lines += wait_action(r, call, "wait", id);
  }
  return lines;
}

std::string TiWriter::action(std::int32_t r, const Call& call) {
  if (call.comm != kCommWorld && call.type != CallType::compute && call.type != CallType::sleep)
    cannot(r, call, "the format holds calls on MPI_COMM_WORLD only");
  const std::string bytes = integer(call.bytes), recv_bytes = integer(call.recv_bytes);
  switch (call.type) {
    case CallType::init:
      return "init";
    case CallType::finalize:
      return "finalize";
    case CallType::comm_size:
      return "comm_size " + integer(ranks_);
    case CallType::compute:
      return "compute " + number(call.flops);
    case CallType::sleep:
      return "sleep " + number(call.seconds);
    case CallType::send:
    case CallType::ssend:
    case CallType::isend:
    case CallType::issend:
    case CallType::recv:
    case CallType::irecv: {
      if (call.peer < 0) cannot(r, call, "its peer is not a rank (wildcards have no form in the format)");
      if (call.tag < 0) cannot(r, call, "its tag is a wildcard");
      const bool receive = call.type == CallType::recv || call.type == CallType::irecv;
      if (call.request != kNone)
        add_request(r, call.request, {receive ? call.peer : r, receive ? r : call.peer, call.tag, 0});
      return std::string(call_type_name(call.type)) + " " + integer(call.peer) + " " + integer(call.tag) + " " +
             (receive && call.count == kNone && call.bytes == 0 ? "-1" : bytes);
    }
    case CallType::wait:
      return wait_action(r, call, "wait", call.request);
    case CallType::test:
      return wait_action(r, call, "test", call.request);
    case CallType::waitall:
      return waitall_action(r, call);
    case CallType::sendrecv:
      if (call.peer < 0 || call.source2 < 0) cannot(r, call, "its peers are not ranks");
      return "sendRecv " + bytes + " " + integer(call.peer) + " " + recv_bytes + " " + integer(call.source2);
    case CallType::barrier:
      return "barrier";
    case CallType::bcast:
      return "bcast " + bytes + " " + integer(call.root);
    case CallType::reduce:
      return "reduce " + bytes + " " + number(call.flops) + " " + integer(call.root);
    case CallType::allreduce:
      return "allreduce " + bytes + " " + number(call.flops);
    case CallType::scan:
    case CallType::exscan:
      return std::string(call_type_name(call.type)) + " " + bytes + " " + number(call.flops);
    case CallType::alltoall:
      return "alltoall " + bytes + " " + recv_bytes;
    case CallType::allgather:
      return "allgather " + bytes + " " + recv_bytes;
    case CallType::gather:
      return "gather " + bytes + " " + recv_bytes + " " + integer(call.root);
    case CallType::scatter:
      return "scatter " + bytes + " " + recv_bytes + " " + integer(call.root);
    case CallType::alltoallv:
      return "alltoallv " + bytes + counts(call.counts, call.datatype, call) + " " + recv_bytes +
             counts(call.recv_counts, call.recv_datatype, call);
    case CallType::gatherv:
      return "gatherv " + bytes + counts(call.recv_counts, call.recv_datatype, call) + " " + integer(call.root);
    case CallType::allgatherv:
      return "allgatherv " + bytes + counts(call.recv_counts, call.recv_datatype, call);
    case CallType::scatterv:
      return "scatterv" + counts(call.counts, call.datatype, call) + " " + recv_bytes + " " + integer(call.root);
    case CallType::reduce_scatter:
      return "reducescatter" + counts(call.recv_counts, call.recv_datatype, call) + " " + number(call.flops);
    default:
      cannot(r, call, "the format has no action for it");
  }
}

}  // namespace torsim::replay
