#include "models/apps/replay/recorder.hpp"

#include <algorithm>

namespace torsim::replay {

MpiRecorder::MpiRecorder(TiWriter& writer, std::int32_t ranks, double flop_time, Where where)
    : writer_(writer), flop_time_(flop_time), where_(std::move(where)), ranks_(static_cast<std::size_t>(ranks)) {}

// A call goes out at once unless an earlier one of its rank is still waiting for its source.
void MpiRecorder::emit(Rank r, Call call, bool resolved) {
  auto& held = ranks_[static_cast<std::size_t>(r)].held;
  if (held.empty() && resolved) return writer_.write(r, call);
  held.push_back({call, resolved});
}

void MpiRecorder::flush(Rank r) {
  auto& held = ranks_[static_cast<std::size_t>(r)].held;
  while (!held.empty() && held.front().resolved) {
    writer_.write(r, held.front().call);
    held.pop_front();
  }
}

void MpiRecorder::resolve(Rank r, std::int64_t id, const rt::Envelope& envelope) {
  auto& held = ranks_[static_cast<std::size_t>(r)].held;
  const auto it =
      std::find_if(held.begin(), held.end(), [&](const Held& h) { return !h.resolved && h.call.request == id; });
  if (it == held.end()) return;
  it->call.peer = envelope.src;
  it->call.tag = envelope.tag;
  it->resolved = true;
  flush(r);
}

void MpiRecorder::isend(Rank self, Rank dst, Bytes size, rt::Tag tag, std::uint32_t request) {
  if (inside_collective(self)) return;
  Call call;
  call.type = CallType::isend;
  call.peer = dst;
  call.tag = tag;
  call.count = size;
  call.bytes = size;
  call.request = next_id_++;
  owners_[request] = {self, call.request};
  emit(self, call);
}

void MpiRecorder::irecv(Rank self, Rank src, rt::Tag tag, std::uint32_t request) {
  if (inside_collective(self)) return;
  Call call;
  call.type = CallType::irecv;
  call.peer = src;
  call.tag = tag;
  call.request = next_id_++;
  owners_[request] = {self, call.request};
  emit(self, call, src != rt::kAnySource && tag >= 0);
}

// A wait on a request the workload made (not one a collective or a layer made inside).
void MpiRecorder::waited(std::uint32_t request, const rt::Envelope& envelope) {
  const auto it = owners_.find(request);
  if (it == owners_.end()) return;
  const auto [rank, id] = it->second;
  resolve(rank, id, envelope);
  Call call;
  call.type = CallType::wait;
  call.request = id;
  emit(rank, call);
}

// A receive dropped after it completed, unwaited, still tells its source and tag.
void MpiRecorder::released(std::uint32_t request, bool done, const rt::Envelope& envelope) {
  const auto it = owners_.find(request);
  if (it == owners_.end()) return;
  if (done) resolve(it->second.rank, it->second.id, envelope);
  owners_.erase(it);
}

void MpiRecorder::enter_collective(Rank self) { ++ranks_[static_cast<std::size_t>(self)].collective_depth; }

void MpiRecorder::collective(Rank self, rt::CollectiveOp op, Rank root, Bytes bytes) {
  if (--ranks_[static_cast<std::size_t>(self)].collective_depth > 0) return;
  Call call;
  call.bytes = bytes;
  call.count = bytes;
  switch (op) {
    case rt::CollectiveOp::barrier:
      call.type = CallType::barrier;
      break;
    case rt::CollectiveOp::bcast:
      call.type = CallType::bcast;
      break;
    case rt::CollectiveOp::reduce:
      call.type = CallType::reduce;
      break;
    case rt::CollectiveOp::allreduce:
      call.type = CallType::allreduce;
      break;
    case rt::CollectiveOp::gather:
      call.type = CallType::gather;
      break;
    case rt::CollectiveOp::alltoall:
      call.type = CallType::alltoall;
      break;
  }
  if (call.type == CallType::bcast || call.type == CallType::reduce || call.type == CallType::gather) call.root = root;
  if (call.type == CallType::gather || call.type == CallType::alltoall) call.recv_bytes = bytes;
  emit(self, call);
}

void MpiRecorder::compute(Rank self, Time duration) {
  if (inside_collective(self) || duration <= 0) return;
  Call call;
  call.type = CallType::compute;
  call.flops = static_cast<double>(duration) / flop_time_;
  emit(self, call);
}

void MpiRecorder::unrecordable(Rank self, std::string_view operation) {
  where_.fail("rank " + std::to_string(self) + " uses " + std::string(operation) +
              ", which a time-independent MPI trace cannot hold (it records two-sided messages, collectives and "
              "computation): this workload cannot be recorded");
}

void MpiRecorder::finish() {
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    if (ranks_[r].held.empty()) continue;
    const Call& first = ranks_[r].held.front().call;
    where_.fail("rank " + std::to_string(r) + " posted a receive for any source or tag (request " +
                std::to_string(first.request) +
                ") that no wait completed: its source is unknown, so the recording "
                "cannot be written");
  }
  writer_.finish();
}

}  // namespace torsim::replay
