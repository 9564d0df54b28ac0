// Records a run's MPI calls as a time-independent trace (torsim run --record-mpi FILE): the
// observer of the messaging interface (rt::InterfaceObserver) turns each rank's sends,
// receives, waits, collectives and computation into calls for the time-independent writer
// (ti_writer.hpp), so that a replay of the recording on the same machine and layer runs the
// same calls at the same times.
//
// The format names a receive's source and tag: a receive posted for any source or tag is
// written with the ones it matched, once its wait returns; the rank's later calls wait in
// order behind it. Computation is written in flops at the machine's rate (compute.flop).
#pragma once

#include <deque>
#include <unordered_map>
#include <vector>

#include "models/apps/replay/ti_writer.hpp"
#include "models/messaging/messaging.hpp"

namespace torsim::replay {

using rt::Rank;

class MpiRecorder final : public rt::InterfaceObserver {
 public:
  /// `flop_time`: picoseconds per flop; `where`: what asked for the recording (for errors).
  MpiRecorder(TiWriter& writer, std::int32_t ranks, double flop_time, Where where);

  void isend(Rank self, Rank dst, Bytes size, rt::Tag tag, std::uint32_t request) override;
  void irecv(Rank self, Rank src, rt::Tag tag, std::uint32_t request) override;
  void waited(std::uint32_t request, const rt::Envelope& envelope) override;
  void released(std::uint32_t request, bool done, const rt::Envelope& envelope) override;
  void enter_collective(Rank self) override;
  void collective(Rank self, rt::CollectiveOp op, Rank root, Bytes bytes) override;
  void compute(Rank self, Time duration) override;
  void unrecordable(Rank self, std::string_view operation) override;

  /// Writes every rank's calls still held; an input error if a receive's source or tag was
  /// never learnt (its wait never came).
  void finish();

 private:
  struct Held {
    Call call;
    bool resolved = true;  // a receive for any source or tag: false until its wait returns
  };
  struct RankState {
    int collective_depth = 0;
    std::deque<Held> held;  // calls behind an unresolved receive, in order
  };
  struct Owner {
    Rank rank;
    std::int64_t id;  // the request's id in the recording (pool indices are reused)
  };
  bool inside_collective(Rank r) const { return ranks_[static_cast<std::size_t>(r)].collective_depth > 0; }
  void emit(Rank r, Call call, bool resolved = true);
  void flush(Rank r);
  void resolve(Rank r, std::int64_t id, const rt::Envelope& envelope);

  TiWriter& writer_;
  double flop_time_;
  Where where_;
  std::vector<RankState> ranks_;
  std::unordered_map<std::uint32_t, Owner> owners_;  // live requests the workload made
  std::int64_t next_id_ = 0;
};

}  // namespace torsim::replay
