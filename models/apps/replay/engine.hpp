// The replay of a recorded MPI trace over a messaging layer: each rank reads its calls in
// order and runs them with MPI's semantics through the layer's two-sided messages and
// collectives (models/apps/replay/coverage.hpp says how each call type is run). Ranks of the
// trace are the job's ranks 0..n-1.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/apps/replay/call_stats.hpp"
#include "models/apps/replay/communicators.hpp"
#include "models/apps/replay/trace.hpp"
#include "models/collectives/collectives.hpp"
#include "models/messaging/messaging.hpp"

namespace torsim::replay {

using rt::Comm;
using rt::Request;
using rt::Tag;

struct ReplaySettings {
  /// recorded: the gaps between calls (from the recorded wall times) and compute actions
  /// run as computation; none: no computation; scaled: recorded, times `scale`.
  enum class Compute : std::uint8_t { recorded, none, scaled };
  Compute compute = Compute::recorded;
  double scale = 1.0;
  /// Picoseconds per flop, for compute actions (time-independent traces).
  double flop_time = 0;
  /// Per rank, added to its recorded times (clocks.hpp; empty: none), and the earliest first
  /// call with them, where every rank's replay starts from.
  std::vector<Time> clock_offset;
  Time clock_origin = 0;
};

/// One rank's replay, recorded against simulated.
struct RankSummary {
  std::int64_t calls = 0;
  // The span compared: from the end of MPI_Init (or the first call's start) to the start of
  // MPI_Finalize (or the last call's end); recorded on the common clock (clocks.hpp).
  Time recorded_first = kNoTime, recorded_last = kNoTime;
  Time simulated_first = -1, simulated_last = -1;
  bool finalized = false;
  Time recorded_in_calls = 0, simulated_in_calls = 0;  // time inside MPI calls but init and finalize
  Time compute = 0;  // computation replayed after the first call (compute actions included)
};

/// What the replay met that it could not run as MPI would.
struct ReplayCounts {
  std::int64_t unsupported = 0;       // calls of an unsupported type: their recorded duration passed
  std::int64_t unresolved = 0;        // calls on a communicator or group the replay does not know
  std::int64_t unknown_requests = 0;  // request ids that no call created (skipped)
};

class Replayer {
 public:
  Replayer(const Trace& trace, const ReplaySettings& settings, rt::MessagingLayer& layer);
  ~Replayer();
  Replayer(const Replayer&) = delete;
  Replayer& operator=(const Replayer&) = delete;

  /// Spawns the replay of every rank of the trace.
  void start();

  const CallStats& calls() const { return calls_; }
  const std::vector<RankSummary>& ranks() const { return summaries_; }
  const ReplayCounts& counts() const { return counts_; }
  const Communicators& communicators() const { return comms_; }

  /// Called after each replayed call with its rank, type and simulated start and end (traces).
  using CallObserver = std::function<void(Rank, CallType, Time start, Time end)>;
  void set_call_observer(CallObserver observer) { observer_ = std::move(observer); }

 private:
  struct Pending;
  struct RankState;
  Task<> replay_rank(Rank r);
  Task<> run_call(Comm c, RankState& s, const Call& call);
  void account(Rank r, const Call& call, Time began, Time ended);
  Time computation(Rank r, const Call& call, Time previous_end, bool first) const;
  Time clock_shift(Rank r) const;
  Time scaled(Time t, Rank r, const Call& call) const;
  Time picoseconds(double ps, Rank r, const Call& call) const;

  // Point to point
  Task<> send(Comm c, RankState& s, const Call& call, Membership& m, bool wait);
  Task<> receive(Comm c, RankState& s, const Call& call, Membership& m, bool wait);
  Task<> sendrecv(Comm c, RankState& s, const Call& call, Membership& m);
  Task<> probe(Comm c, RankState& s, const Call& call, Membership& m);
  void init_persistent(Comm c, const Call& call, Membership& m);
  Task<> start_persistent(Comm c, std::int64_t id);
  // Completion
  Task<> wait(Comm c, std::int64_t id);
  Task<> wait_listed(Comm c, const Call& call);
  Task<> test(Comm c, const Call& call);
  // Collectives and communicators
  Task<> collective(Comm c, RankState& s, const Call& call, Membership& m);
  Task<> create_communicator(Comm c, const Call& call, Membership& m);
  bool group_call(Rank r, const Call& call);
  Task<> context_agreement(Comm c, Membership& m);
  Task<> unsupported(Comm c, const Call& call);

  Rank world_rank(Rank r, const Call& call, const Membership& m, std::int32_t rank, const char* what) const;
  Tag message_tag(const Membership& m, std::int32_t tag);
  Tag receive_tag(const Membership& m, std::int32_t tag);
  std::span<const Bytes> block_bytes(RankState& s, const Call& call, const Membership& m,
                                     std::span<const std::int64_t> counts, std::int32_t datatype) const;
  Bytes datatype_size(std::int32_t datatype) const;
  Pending* pending(Rank r, std::int64_t id);

  const Trace& trace_;
  ReplaySettings settings_;
  rt::MessagingLayer& layer_;
  coll::Selection selection_ = coll::default_selection();
  bool outcomes_recorded_;  // tests and probes carry their recorded outcome
  // The layer's own collectives span the whole job: they serve the trace's world only when the
  // job has exactly its ranks (a placement of whole nodes may hold more, which stay idle).
  bool layer_world_;
  Communicators comms_;
  CallStats calls_;
  std::vector<RankSummary> summaries_;
  std::vector<std::unique_ptr<RankState>> states_;
  struct RequestKey {
    Rank rank;
    std::int64_t id;
    bool operator==(const RequestKey&) const = default;
  };
  struct RequestHash {
    std::size_t operator()(const RequestKey& k) const {
      return std::hash<std::int64_t>()(k.id * 0x9E3779B97F4A7C15ll ^ k.rank);
    }
  };
  std::unordered_map<RequestKey, Pending, RequestHash> requests_;
  std::unordered_map<std::int32_t, Tag> large_tags_;  // tags beyond the context's range, renumbered
  ReplayCounts counts_;
  CallObserver observer_;
};

}  // namespace torsim::replay
