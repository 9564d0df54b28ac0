// Recorded MPI traces, format-neutral: one decoded call (Call), a streamed cursor over one
// rank's calls (RankCursor) and the trace's own description (Trace). Readers for SimGrid's
// time-independent actions, DUMPI and OTF2 produce these; the replay workload consumes them.
//
// Speed: a cursor decodes into a Call the caller owns and reuses; lists (requests, v-variant
// counts, group ranks) are views into the cursor's own buffers, valid until its next call of
// next(), so decoding a record allocates nothing once the buffers have grown.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/params.hpp"
#include "sim/core/time.hpp"

namespace torsim::replay {

/// The MPI calls a trace holds, by what the replay does with them. New values are appended
/// before `other` only through a compatible change of every switch over them.
// clang-format off
enum class CallType : std::uint8_t {
  // start, end and queries of the world
  init, finalize, comm_rank, comm_size,
  // point to point
  send, bsend, ssend, rsend, isend, ibsend, issend, irsend, recv, irecv, sendrecv, sendrecv_replace,
  probe, iprobe, send_init, recv_init, start, startall, request_free, cancel,
  // completion
  wait, waitall, waitany, waitsome, test, testall, testany, testsome,
  // collectives
  barrier, bcast, reduce, allreduce, gather, gatherv, scatter, scatterv, allgather, allgatherv,
  alltoall, alltoallv, alltoallw, reduce_scatter, reduce_scatter_block, scan, exscan,
  // communicators and groups
  comm_dup, comm_split, comm_create, comm_free, comm_group, group_incl, group_excl, group_range_incl,
  group_range_excl, group_union, group_intersection, group_difference, group_free, cart_create, cart_sub,
  // time-independent traces: computation in flops, a sleep in seconds
  compute, sleep,
  // anything else (its name is Call::function)
  other
};
// clang-format on
inline constexpr int kCallTypes = static_cast<int>(CallType::other) + 1;

/// "send", "allreduce", ... (the MPI name without "MPI_", lower case).
std::string_view call_type_name(CallType type);
/// The type of an MPI function by its name ("MPI_Isend" -> isend); `other` if none fits.
CallType call_type_of_mpi_function(std::string_view name);

/// Special values of Call's integer fields.
inline constexpr std::int32_t kNone = -1;       // field not used by this call
inline constexpr std::int32_t kAnySource = -2;  // MPI_ANY_SOURCE
inline constexpr std::int32_t kAnyTag = -2;     // MPI_ANY_TAG
inline constexpr std::int32_t kProcNull = -3;   // MPI_PROC_NULL
inline constexpr std::int32_t kRootSelf = -4;   // MPI_ROOT (intercommunicators)
inline constexpr Time kNoTime = INT64_MIN;      // the format records no time
/// The most ranks a trace may have (a larger rank number is corrupt input, not a trace to
/// allocate for). An assumption: 16 times Sequoia's 1,572,864 cores, rounded up to 2^25.
inline constexpr std::int32_t kMaxRanks = 1 << 25;
/// Communicator ids every trace has (see Trace::communicators()).
inline constexpr std::int32_t kCommWorld = 0;
inline constexpr std::int32_t kCommSelf = 1;
inline constexpr std::int32_t kCommNull = -1;
/// Group ids every trace has.
inline constexpr std::int32_t kGroupEmpty = 0;
inline constexpr std::int32_t kGroupNull = -1;

/// One MPI call of one rank. Fields a call does not use keep their defaults (kNone, 0, empty).
struct Call {
  CallType type = CallType::other;
  /// Wall time at entry and at exit, from the trace's start (the earliest start any rank
  /// recorded), or kNoTime (time-independent traces).
  Time start = kNoTime;
  Time end = kNoTime;

  /// Communicator the call runs on (kCommWorld, kCommSelf, or an id from Trace).
  std::int32_t comm = kCommWorld;
  /// Destination of a send, source of a receive or probe (a rank of `comm`), or kAnySource,
  /// kProcNull; for sendrecv the destination (its source is `source2`).
  std::int32_t peer = kNone;
  std::int32_t source2 = kNone;
  /// Tag of the message (kAnyTag on a receive); for sendrecv the send tag (receive: `tag2`).
  std::int32_t tag = kNone;
  std::int32_t tag2 = kNone;
  /// Root of a rooted collective (a rank of `comm`).
  std::int32_t root = kNone;

  /// Send side: element count, datatype (an id in Trace::datatypes()), and bytes = count x
  /// the datatype's size. As MPI means the count: per peer for (all)gather, scatter and
  /// alltoall, the whole buffer for bcast, reduce, allreduce, scan. For v-variants `count` is
  /// kNone, `counts` holds one count per rank of `comm` and `bytes` their total in bytes.
  std::int64_t count = kNone;
  std::int32_t datatype = kNone;
  Bytes bytes = 0;
  /// Receive side, in the same way (sendrecv, gather(v), scatter(v), allgather(v),
  /// alltoall(v), reduce_scatter: `recv_counts` per rank).
  std::int64_t recv_count = kNone;
  std::int32_t recv_datatype = kNone;
  Bytes recv_bytes = 0;
  std::span<const std::int64_t> counts = {};
  std::span<const std::int64_t> recv_counts = {};

  /// Request a call creates (isend, irecv, *_init) or completes (wait, test, start,
  /// request_free, cancel); `requests` for the calls on arrays (waitall, waitany, waitsome,
  /// test*, startall). Ids are the trace's, unique within a rank while the request lives.
  std::int64_t request = kNone;
  std::span<const std::int64_t> requests = {};
  /// Which requests completed, as positions in `requests` (waitany, waitsome, testany,
  /// testsome), and whether a test succeeded (test, testall, testany, iprobe).
  std::span<const std::int32_t> completed = {};
  bool flag = false;
  /// Source and tag the call matched, from its status, when the trace recorded it (kNone if not).
  std::int32_t matched_source = kNone;
  std::int32_t matched_tag = kNone;

  /// Communicator and group creation: the new handle, split's colour and key, the group a
  /// communicator is made from or a group from, the ranks of group_incl/excl (ranks of
  /// `group`), of group_range_* (triples first, last, stride).
  std::int32_t new_comm = kNone;
  std::int32_t group = kNone;
  std::int32_t group2 = kNone;
  std::int32_t new_group = kNone;
  std::int32_t color = kNone;
  std::int32_t key = kNone;
  std::span<const std::int32_t> ranks = {};

  /// Computation in flops: a compute action, and the reduction work some time-independent
  /// collectives carry (reduce, allreduce, reduce_scatter, scan). A sleep in seconds.
  double flops = 0;
  double seconds = 0;

  /// The function as the trace names it ("MPI_Isend", "bcast", "MPI_Cart_shift").
  std::string_view function = {};
  /// Where the record is: its index in the rank's stream (from 0), and its byte offset
  /// (binary formats) or line number (text formats), for messages (Trace::where()).
  std::uint64_t record = 0;
  std::uint64_t offset = 0;

  bool any_source() const { return peer == kAnySource; }
  bool any_tag() const { return tag == kAnyTag; }
};

/// The calls of one rank, in order, read as they are needed.
class RankCursor {
 public:
  virtual ~RankCursor() = default;
  /// The next call into `call` (every field rewritten); false once the rank's calls are done.
  /// A malformed record is an InputError naming the file and the record.
  virtual bool next(Call& call) = 0;
};

enum class Format : std::uint8_t { automatic, time_independent, dumpi, otf2 };
/// "auto", "ti", "dumpi", "otf2".
std::string_view format_name(Format format);
/// The format a name gives; an InputError at `where` listing the valid names if none.
Format parse_format(std::string_view name, const Where& where);

struct Datatype {
  std::string name;  // "MPI_DOUBLE", or "user type N" for a derived type
  Bytes size = 0;
};

/// How a communicator or group came to be.
enum class Origin : std::uint8_t { world, self, empty, dup, split, create, cart, graph, intercomm, incl, excl, other };
std::string_view origin_name(Origin origin);

struct CommDefinition {
  std::int32_t id = kNone;
  /// World ranks, in the order of their ranks in the communicator. Empty for kCommSelf (each
  /// rank alone).
  std::vector<std::int32_t> ranks;
  Origin origin = Origin::other;
  std::int32_t parent = kNone;  // the communicator it was made from, if known
  std::string name;
};

struct RankInfo {
  std::string file;                  // the file its calls come from
  std::string host;                  // host name, if recorded
  std::vector<std::int32_t> coords;  // position in the machine's mesh, if recorded (DUMPI)
  std::vector<std::int32_t> mesh;    // the mesh's size, if recorded
};

/// A recorded trace: what it says about the run, and a cursor per rank.
class Trace {
 public:
  virtual ~Trace() = default;

  Format format() const { return format_; }
  /// The path the trace was opened from (an index, a .meta, an .otf2 anchor file).
  const std::string& path() const { return path_; }
  std::int32_t ranks() const { return static_cast<std::int32_t>(rank_info_.size()); }
  const RankInfo& rank(std::int32_t r) const { return rank_info_[static_cast<std::size_t>(r)]; }
  /// Datatypes by id (the ids of Call::datatype); sizes in bytes.
  const std::vector<Datatype>& datatypes() const { return datatypes_; }
  /// Communicators by id. Always kCommWorld and kCommSelf; with `local_handles()` the other ids
  /// in calls are each rank's own handles, defined by the creation calls in its stream
  /// (comm_split, comm_dup, ...: Call::new_comm) and resolved by whoever replays them; without,
  /// every id in a call is defined here, with its ranks (OTF2's definitions).
  const std::vector<CommDefinition>& communicators() const { return communicators_; }
  /// Groups by id, in the same way (kGroupEmpty always).
  const std::vector<CommDefinition>& groups() const { return groups_; }
  bool local_handles() const { return local_handles_; }

  /// The calls of rank `r` (0 <= r < ranks()), from the first.
  virtual std::unique_ptr<RankCursor> cursor(std::int32_t r) const = 0;
  /// "FILE: at record N (byte B)" (or line, or event) for a call of rank `r`, for messages.
  std::string where(std::int32_t r, const Call& call) const;
  /// The same as a Where, to fail() with.
  Where locate(std::int32_t r, const Call& call) const;

 protected:
  Trace(Format format, std::string path) : format_(format), path_(std::move(path)) {}
  /// Every trace's fixed ids: world (ranks 0..n-1), self, the empty group.
  void define_world(std::int32_t ranks);
  /// What a call's offset counts: bytes (DUMPI), lines (text), events (OTF2).
  enum class OffsetUnit : std::uint8_t { byte, line, event };
  OffsetUnit offset_unit_ = OffsetUnit::byte;

  Format format_;
  std::string path_;
  std::vector<RankInfo> rank_info_;
  std::vector<Datatype> datatypes_;
  std::vector<CommDefinition> communicators_;
  std::vector<CommDefinition> groups_;
  bool local_handles_ = true;
};

/// Opens the trace at `path`: a time-independent index or action file, a DUMPI .meta or .bin,
/// an OTF2 anchor (.otf2), or a directory holding one of them. `format` forces the format;
/// automatic detects it from the path. Errors (a missing file, a wrong magic, ...) are
/// InputErrors naming the file; `where` names what gave the path (a scenario key, the command
/// line).
std::unique_ptr<Trace> open_trace(const std::string& path, Format format, const Where& where);

/// The format `path` holds, detected from its name and first bytes (never automatic).
Format detect_format(const std::string& path, const Where& where);

}  // namespace torsim::replay
