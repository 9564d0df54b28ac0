#include "models/apps/replay/engine.hpp"

#include <algorithm>
#include <cmath>

#include "models/collectives/algorithms.hpp"

namespace torsim::replay {

namespace {

// A user tag keeps its value below 2^19 within its communicator's context; larger ones (and
// negative ones, which MPI forbids) are renumbered above it, in order of first use.
constexpr Tag kPlainTags = 1 << 19;

// MPICH agrees on a new communicator's context id with an allreduce of its mask of free ids:
// 64 ints (MPIR_MAX_CONTEXT_MASK in src/include/mpir_comm.h).
constexpr Bytes kContextMaskBytes = 64 * 4;
// Comm_split gathers every member's colour and key first: two ints each.
constexpr Bytes kSplitEntryBytes = 2 * 4;

bool is_send(CallType t) {
  return t == CallType::send || t == CallType::bsend || t == CallType::ssend || t == CallType::rsend ||
         t == CallType::isend || t == CallType::ibsend || t == CallType::issend || t == CallType::irsend;
}
bool blocks_until_sent(CallType t) { return t == CallType::send || t == CallType::ssend || t == CallType::rsend; }
bool is_collective(CallType t) { return t >= CallType::barrier && t <= CallType::exscan; }
bool is_local_group_call(CallType t) { return t >= CallType::comm_group && t <= CallType::group_free; }
// Calls that take their recorded time: queries and bookkeeping with no communication.
bool takes_recorded_time(CallType t) {
  return t == CallType::init || t == CallType::finalize || t == CallType::comm_rank || t == CallType::comm_size ||
         t == CallType::comm_free || is_local_group_call(t);
}

Time recorded_duration(const Call& call) {
  if (call.start == kNoTime || call.end == kNoTime) return 0;
  return std::max<Time>(call.end - call.start, 0);
}

}  // namespace

// A request the trace made: the operation in flight, or what a persistent request posts.
struct Replayer::Pending {
  Request request;
  bool complete = false;  // done when posted (a receive of a message already probed)
  bool persistent = false;
  bool sends = false;  // persistent: a send (else a receive)
  Rank peer = 0;
  Tag tag = 0;
  Bytes bytes = 0;
};

struct Replayer::RankState {
  std::vector<Bytes> blocks;         // a v-collective's sizes in bytes, for the call running
  std::vector<rt::Envelope> probed;  // messages received by a probe, for the receive that follows
};

Replayer::Replayer(const Trace& trace, const ReplaySettings& settings, rt::MessagingLayer& layer)
    : trace_(trace),
      settings_(settings),
      layer_(layer),
      outcomes_recorded_(trace.format() != Format::time_independent),
      layer_world_(layer.size() == trace.ranks()),
      comms_(trace, trace.ranks()),
      summaries_(static_cast<std::size_t>(trace.ranks())) {
  if (const auto* algorithms = dynamic_cast<const coll::Algorithms*>(&layer.collectives()))
    selection_ = algorithms->selection();
  for (Rank r = 0; r < trace.ranks(); ++r) states_.push_back(std::make_unique<RankState>());
}

Replayer::~Replayer() = default;

void Replayer::start() {
  for (Rank r = 0; r < trace_.ranks(); ++r) layer_.kernel().spawn(replay_rank(r));
}

// A computation under the scenario's `compute` setting; scaled past the clock's range, an
// input error naming the record (as picoseconds() says).
Time Replayer::scaled(Time t, Rank r, const Call& call) const {
  switch (settings_.compute) {
    case ReplaySettings::Compute::recorded:
      return t;
    case ReplaySettings::Compute::none:
      return 0;
    case ReplaySettings::Compute::scaled:
      return picoseconds(static_cast<double>(t) * settings_.scale, r, call);
  }
  return t;
}

// What moves rank r's recorded times onto the common clock, from the origin.
Time Replayer::clock_shift(Rank r) const {
  if (settings_.clock_offset.empty()) return 0;
  return settings_.clock_offset[static_cast<std::size_t>(r)] - settings_.clock_origin;
}

// A compute action's or a sleep's length, rounded to picoseconds. One beyond the clock's range
// (2^63 ps, 106 days: a trace's flops or seconds can be any number) is an input error naming
// the record.
Time Replayer::picoseconds(double ps, Rank r, const Call& call) const {
  constexpr double kLongest = 9.2e18;  // just below 2^63
  if (!(ps >= 0 && ps < kLongest))
    trace_.locate(r, call).fail(std::string(call.function) + " lasts " + std::to_string(ps / 1e12) +
                                " s, beyond the longest time the simulation's clock holds (9.2e6 s)");
  return static_cast<Time>(std::llround(ps));
}

// The computation before a call: the recorded gap since the previous call ended (since the
// common origin for the first), or a compute action's flops.
Time Replayer::computation(Rank r, const Call& call, Time previous_end, bool first) const {
  if (call.type == CallType::compute) return scaled(picoseconds(call.flops * settings_.flop_time, r, call), r, call);
  if (call.start == kNoTime || (!first && previous_end == kNoTime)) return 0;
  return scaled(std::max<Time>(first ? call.start + clock_shift(r) : call.start - previous_end, 0), r, call);
}

Task<> Replayer::replay_rank(Rank r) {
  const Comm c(layer_, r);
  RankState& s = *states_[static_cast<std::size_t>(r)];
  RankSummary& summary = summaries_[static_cast<std::size_t>(r)];
  const auto cursor = trace_.cursor(r);
  Call call;
  Time previous_end = kNoTime;
  while (cursor->next(call)) {
    // A compute action is a call of its own; a recorded gap is the computation before a call.
    const bool action = call.type == CallType::compute;
    const Time work = computation(r, call, previous_end, summary.calls == 0);
    const Time before = c.now();
    if (work > 0) co_await c.compute(work);
    if (summary.calls > 0) summary.compute += work;  // the first call's lead-in is before the span
    const Time began = action ? before : c.now();
    if (!action) co_await run_call(c, s, call);
    account(r, call, began, c.now());
    if (call.end != kNoTime) previous_end = call.end;
  }
}

// The span compared runs from the end of MPI_Init (or the first call's start) to the start of
// MPI_Finalize (or the last call's end): start-up and tear-down take their recorded time in
// the replay, and would only dilute the comparison.
void Replayer::account(Rank r, const Call& call, Time began, Time ended) {
  RankSummary& s = summaries_[static_cast<std::size_t>(r)];
  const bool timed = call.start != kNoTime;
  const Time recorded = timed ? recorded_duration(call) : kNoTime;
  calls_.add(call.type, recorded, ended - began);
  const bool init = call.type == CallType::init, finalize = call.type == CallType::finalize;
  if (s.calls++ == 0 || init) {
    s.simulated_first = init ? ended : began;
    s.recorded_first = timed ? (init ? call.end : call.start) + clock_shift(r) : kNoTime;
  }
  if (!s.finalized) {
    s.simulated_last = finalize ? began : ended;
    if (timed) s.recorded_last = (finalize ? call.start : call.end) + clock_shift(r);
    s.finalized = finalize;
  }
  if (call.type != CallType::compute && !init && !finalize) {
    s.simulated_in_calls += ended - began;
    if (timed) s.recorded_in_calls += recorded;
  }
  if (observer_) observer_(r, call.type, began, ended);
}

Task<> Replayer::run_call(Comm c, RankState& s, const Call& call) {
  const CallType t = call.type;
  if (takes_recorded_time(t)) {
    if (is_local_group_call(t) && !group_call(c.rank(), call)) ++counts_.unresolved;
    if (t == CallType::comm_free) comms_.free(c.rank(), call.comm);
    co_await c.kernel().sleep(recorded_duration(call));
    co_return;
  }
  switch (t) {
    case CallType::wait:
      co_return co_await wait(c, call.request);
    case CallType::waitall:
    case CallType::waitany:
    case CallType::waitsome:
      co_return co_await wait_listed(c, call);
    case CallType::test:
    case CallType::testall:
    case CallType::testany:
    case CallType::testsome:
      co_return co_await test(c, call);
    case CallType::start:
      co_return co_await start_persistent(c, call.request);
    case CallType::startall:
      for (const std::int64_t id : call.requests) co_await start_persistent(c, id);
      co_return;
    case CallType::request_free:
      requests_.erase({c.rank(), call.request});
      co_return;
    case CallType::sleep:
      co_return co_await c.kernel().sleep(picoseconds(call.seconds * 1e12, c.rank(), call));
    default:
      break;
  }
  if (t == CallType::alltoallw || t == CallType::cancel || t == CallType::other)
    co_return co_await unsupported(c, call);
  Membership* m = comms_.find(c.rank(), call.comm);
  if (!m) {
    ++counts_.unresolved;
    co_return co_await c.kernel().sleep(recorded_duration(call));
  }
  if (is_send(t)) co_return co_await send(c, s, call, *m, blocks_until_sent(t));
  if (t == CallType::recv || t == CallType::irecv) co_return co_await receive(c, s, call, *m, t == CallType::recv);
  if (t == CallType::sendrecv || t == CallType::sendrecv_replace) co_return co_await sendrecv(c, s, call, *m);
  if (t == CallType::probe || t == CallType::iprobe) co_return co_await probe(c, s, call, *m);
  if (t == CallType::send_init || t == CallType::recv_init) co_return init_persistent(c, call, *m);
  if (is_collective(t)) co_return co_await collective(c, s, call, *m);
  co_return co_await create_communicator(c, call, *m);
}

Task<> Replayer::unsupported(Comm c, const Call& call) {
  ++counts_.unsupported;
  co_await c.kernel().sleep(recorded_duration(call));
}

// ---- Ranks, tags, sizes

Rank Replayer::world_rank(Rank r, const Call& call, const Membership& m, std::int32_t rank, const char* what) const {
  const coll::Group& g = comms_.group(m.comm);
  if (rank < 0 || rank >= g.size())
    trace_.locate(r, call).fail(std::string(what) + " " + std::to_string(rank) +
                                " is out of range: the communicator has " + std::to_string(g.size()) + " ranks");
  return g.members[static_cast<std::size_t>(rank)];
}

Tag Replayer::message_tag(const Membership& m, std::int32_t tag) {
  Tag value = tag;
  if (tag < 0 || tag >= kPlainTags) {
    const auto [it, fresh] = large_tags_.try_emplace(tag, kPlainTags + static_cast<Tag>(large_tags_.size()));
    value = it->second;
  }
  return comms_.group(m.comm).context << rt::kTagContextShift | value;
}

Tag Replayer::receive_tag(const Membership& m, std::int32_t tag) {
  if (tag == kAnyTag) return rt::any_tag_in(comms_.group(m.comm).context);
  return message_tag(m, tag);
}

Bytes Replayer::datatype_size(std::int32_t datatype) const {
  const auto& types = trace_.datatypes();
  if (datatype < 0 || datatype >= static_cast<std::int32_t>(types.size())) return 1;
  return types[static_cast<std::size_t>(datatype)].size;
}

std::span<const Bytes> Replayer::block_bytes(RankState& s, const Call& call, const Membership& m,
                                             std::span<const std::int64_t> counts, std::int32_t datatype) const {
  const int n = comms_.group(m.comm).size();
  if (static_cast<int>(counts.size()) != n)
    trace_
        .locate(m.handle == kCommWorld ? m.index : comms_.group(m.comm).members[static_cast<std::size_t>(m.index)],
                call)
        .fail("the call lists " + std::to_string(counts.size()) + " counts for a communicator of " + std::to_string(n) +
              " ranks");
  const Bytes size = datatype_size(datatype);
  s.blocks.clear();
  for (const std::int64_t count : counts) s.blocks.push_back(std::max<std::int64_t>(count, 0) * size);
  return s.blocks;
}

// ---- Point to point

Task<> Replayer::send(Comm c, RankState&, const Call& call, Membership& m, bool wait) {
  if (call.peer == kProcNull) co_return;
  const Rank dst = world_rank(c.rank(), call, m, call.peer, "destination");
  Request sent = co_await c.isend(dst, call.bytes, message_tag(m, call.tag));
  if (wait)
    co_await sent;
  else if (call.request != kNone)
    requests_[{c.rank(), call.request}] = Pending{std::move(sent)};
}

Task<> Replayer::receive(Comm c, RankState& s, const Call& call, Membership& m, bool wait) {
  if (call.peer == kProcNull) co_return;
  const Rank src = call.any_source() ? rt::kAnySource : world_rank(c.rank(), call, m, call.peer, "source");
  const Tag tag = receive_tag(m, call.tag);
  const auto probed = std::find_if(s.probed.begin(), s.probed.end(), [&](const rt::Envelope& e) {
    return (src == rt::kAnySource || e.src == src) &&
           (e.tag == tag ||
            (tag < rt::kAnyTag && e.tag >> rt::kTagContextShift == (tag & INT32_MAX) >> rt::kTagContextShift));
  });
  if (probed != s.probed.end()) {
    s.probed.erase(probed);
    if (!wait && call.request != kNone) requests_[{c.rank(), call.request}] = Pending{Request(), true};
    co_return;
  }
  Request in = c.irecv(src, tag);
  if (wait)
    co_await in;
  else if (call.request != kNone)
    requests_[{c.rank(), call.request}] = Pending{std::move(in)};
}

Task<> Replayer::sendrecv(Comm c, RankState&, const Call& call, Membership& m) {
  Request in, out;
  if (call.source2 != kProcNull) {
    const Rank src =
        call.source2 == kAnySource ? rt::kAnySource : world_rank(c.rank(), call, m, call.source2, "source");
    in = c.irecv(src, receive_tag(m, call.tag2));
  }
  if (call.peer != kProcNull)
    out =
        co_await c.isend(world_rank(c.rank(), call, m, call.peer, "destination"), call.bytes, message_tag(m, call.tag));
  if (out.valid()) co_await out;
  if (in.valid()) co_await in;
}

// A probe that found a message (a blocking probe always does) receives it now and keeps it for
// the receive that follows; one that found nothing has nothing to replay.
Task<> Replayer::probe(Comm c, RankState& s, const Call& call, Membership& m) {
  if (call.peer == kProcNull || (call.type == CallType::iprobe && !call.flag)) co_return;
  const Rank src = call.any_source() ? rt::kAnySource : world_rank(c.rank(), call, m, call.peer, "source");
  s.probed.push_back(co_await c.irecv(src, receive_tag(m, call.tag)));
}

void Replayer::init_persistent(Comm c, const Call& call, Membership& m) {
  Pending p;
  p.persistent = true;
  p.sends = call.type == CallType::send_init;
  if (call.peer == kProcNull)
    p.peer = kProcNull;
  else if (p.sends)
    p.peer = world_rank(c.rank(), call, m, call.peer, "destination");
  else
    p.peer = call.any_source() ? rt::kAnySource : world_rank(c.rank(), call, m, call.peer, "source");
  p.tag = p.sends ? message_tag(m, call.tag) : receive_tag(m, call.tag);
  p.bytes = call.bytes;
  requests_[{c.rank(), call.request}] = std::move(p);
}

Task<> Replayer::start_persistent(Comm c, std::int64_t id) {
  Pending* p = pending(c.rank(), id);
  if (!p || !p->persistent || p->peer == kProcNull) co_return;
  if (p->sends) {
    Request sent = co_await c.isend(p->peer, p->bytes, p->tag);
    if ((p = pending(c.rank(), id))) p->request = std::move(sent);
  } else {
    p->request = c.irecv(p->peer, p->tag);
  }
}

// ---- Completion

Replayer::Pending* Replayer::pending(Rank r, std::int64_t id) {
  const auto it = requests_.find({r, id});
  if (it != requests_.end()) return &it->second;
  if (id != kNone) ++counts_.unknown_requests;
  return nullptr;
}

// A completed request goes, unless it is persistent (it stays for the next start).
Task<> Replayer::wait(Comm c, std::int64_t id) {
  Pending* p = pending(c.rank(), id);
  if (!p) co_return;
  if (p->request.valid()) {
    Request r = std::move(p->request);
    co_await r;
  }
  if ((p = pending(c.rank(), id)) && !p->persistent) requests_.erase({c.rank(), id});
}

// Waitall waits for every request; waitany and waitsome for those the recording says
// completed (without a record: the first one listed, and then whatever else is done).
Task<> Replayer::wait_listed(Comm c, const Call& call) {
  if (call.type == CallType::waitall) {
    for (const std::int64_t id : call.requests) co_await wait(c, id);
    co_return;
  }
  if (!call.completed.empty()) {
    for (const std::int32_t i : call.completed)
      if (i >= 0 && i < static_cast<std::int32_t>(call.requests.size()))
        co_await wait(c, call.requests[static_cast<std::size_t>(i)]);
    co_return;
  }
  for (const std::int64_t id : call.requests)
    if (requests_.count({c.rank(), id})) {
      co_await wait(c, id);
      break;
    }
  if (call.type != CallType::waitsome) co_return;
  for (const std::int64_t id : call.requests) {
    const Pending* p = requests_.count({c.rank(), id}) ? &requests_.at({c.rank(), id}) : nullptr;
    if (p && (p->complete || (p->request.valid() && p->request.done()))) co_await wait(c, id);
  }
}

// Where the recording says a test succeeded, the request completes here: the replay waits for
// it if it is not done yet, as the application kept testing until it was. A test that failed
// leaves it. Time-independent traces carry no outcome: a test leaves the request for the wait
// that follows.
Task<> Replayer::test(Comm c, const Call& call) {
  if (!outcomes_recorded_ || !call.flag) co_return;
  if (call.type == CallType::test) co_return co_await wait(c, call.request);
  if (call.type == CallType::testall) {
    for (const std::int64_t id : call.requests) co_await wait(c, id);
    co_return;
  }
  for (const std::int32_t i : call.completed)
    if (i >= 0 && i < static_cast<std::int32_t>(call.requests.size()))
      co_await wait(c, call.requests[static_cast<std::size_t>(i)]);
}

// ---- Collectives

namespace {

// The k-nomial degree for collectives over groups: the selection's, else binomial.
int group_degree(const coll::Selection& s) {
  return s.reduce == coll::ReduceAlgorithm::knomial && s.degree > 0 ? s.degree : 2;
}

// The layer's own collectives (native where it has them) serve the world communicator for
// the six operations it offers.
Task<> on_world(Comm c, const Call& call, Bytes bytes) {
  switch (call.type) {
    case CallType::barrier:
      co_await c.barrier();
      break;
    case CallType::bcast:
      co_await c.bcast(call.root, bytes);
      break;
    case CallType::reduce:
      co_await c.reduce(call.root, bytes);
      break;
    case CallType::allreduce:
      co_await c.allreduce(bytes);
      break;
    case CallType::gather:
      co_await c.gather(call.root, bytes);
      break;
    default:
      co_await c.alltoall(bytes);
      break;
  }
}

bool layer_has(CallType t) {
  return t == CallType::barrier || t == CallType::bcast || t == CallType::reduce || t == CallType::allreduce ||
         t == CallType::gather || t == CallType::alltoall;
}

// Bytes each rank contributes or receives per peer: the send side where MPI makes it
// significant everywhere, else the receive side (MPI_IN_PLACE leaves the send count unset).
Bytes per_rank_bytes(const Call& call) { return call.bytes > 0 ? call.bytes : call.recv_bytes; }

}  // namespace

Task<> Replayer::collective(Comm c, RankState& s, const Call& call, Membership& m) {
  const CallType t = call.type;
  const coll::Group& group = comms_.group(m.comm);
  if (call.root != kNone && call.root != kRootSelf) world_rank(c.rank(), call, m, call.root, "root");
  if (m.comm == Communicators::kWorld && layer_world_ && layer_has(t)) {
    co_await on_world(c, call, t == CallType::gather || t == CallType::alltoall ? per_rank_bytes(call) : call.bytes);
  } else {
    coll::GroupChannel ch(c, group, m.index, m.sequence);
    const int n = group.size();
    const Rank root = call.root;
    switch (t) {
      case CallType::barrier:
        co_await coll::dissemination_barrier(ch);
        break;
      case CallType::bcast:
        co_await coll::binomial_bcast(ch, root, call.bytes, 0);
        break;
      case CallType::reduce:
        co_await coll::knomial_reduce(ch, root, call.bytes, 0, group_degree(selection_));
        break;
      case CallType::allreduce:
        co_await coll::run_allreduce(ch, selection_, call.bytes, 0, group_degree(selection_));
        break;
      case CallType::gather:
        co_await coll::run_gather(ch, selection_, root, per_rank_bytes(call), 0);
        break;
      case CallType::gatherv:
        co_await coll::linear_gather(ch, root, call.bytes, 0);
        break;
      case CallType::scatter:
        co_await coll::binomial_scatter(ch, root, call.recv_bytes > 0 ? call.recv_bytes : call.bytes / std::max(n, 1),
                                        0);
        break;
      case CallType::scatterv: {
        const bool at_root = m.index == root;
        co_await coll::linear_scatterv(
            ch, root, at_root ? coll::Blocks(block_bytes(s, call, m, call.counts, call.datatype)) : coll::Blocks(0, n),
            0);
        break;
      }
      case CallType::allgather:
        co_await coll::run_allgatherv(ch, selection_, coll::Blocks(per_rank_bytes(call), n), 0);
        break;
      case CallType::allgatherv:
        co_await coll::run_allgatherv(ch, selection_,
                                      coll::Blocks(block_bytes(s, call, m, call.recv_counts, call.recv_datatype)), 0);
        break;
      case CallType::alltoall:
        co_await coll::run_alltoallv(ch, selection_.alltoall, coll::Blocks(per_rank_bytes(call), n), 0);
        break;
      case CallType::alltoallv:
        co_await coll::run_alltoallv(ch, selection_.alltoallv,
                                     coll::Blocks(block_bytes(s, call, m, call.counts, call.datatype)), 0);
        break;
      case CallType::reduce_scatter:
        co_await coll::pairwise_reduce_scatter(
            ch, coll::Blocks(block_bytes(s, call, m, call.recv_counts, call.recv_datatype)), 0);
        break;
      case CallType::reduce_scatter_block:
        co_await coll::pairwise_reduce_scatter(ch, coll::Blocks(call.recv_bytes, n), 0);
        break;
      default:
        co_await coll::recursive_doubling_scan(ch, call.bytes, 0, t == CallType::exscan);
        break;
    }
  }
  // A time-independent collective's reduction work, in flops.
  if (call.flops > 0)
    co_await c.compute(scaled(picoseconds(call.flops * settings_.flop_time, c.rank(), call), c.rank(), call));
}

// ---- Communicators and groups

// The new context id MPICH agrees on: an allreduce of its mask over the parent.
Task<> Replayer::context_agreement(Comm c, Membership& m) {
  if (m.comm == Communicators::kWorld && layer_world_) {
    co_await c.allreduce(kContextMaskBytes);
    co_return;
  }
  coll::GroupChannel ch(c, comms_.group(m.comm), m.index, m.sequence);
  co_await coll::run_allreduce(ch, selection_, kContextMaskBytes, 0, group_degree(selection_));
}

Task<> Replayer::create_communicator(Comm c, const Call& call, Membership& parent) {
  const Rank r = c.rank();
  Communicators::Deposit what;
  switch (call.type) {
    case CallType::comm_dup:
    case CallType::cart_create:
      what.kind = Communicators::Kind::dup;
      break;
    case CallType::comm_split:
      what.kind = Communicators::Kind::split;
      what.color = call.color;
      what.key = call.key;
      break;
    case CallType::comm_create: {
      what.kind = Communicators::Kind::create;
      const Members* group = comms_.find_group(r, call.group);
      if (!group) {
        ++counts_.unresolved;
        co_return co_await c.kernel().sleep(recorded_duration(call));
      }
      what.group = *group;
      break;
    }
    default:  // cart_sub: the grid it splits is not in the record
      if (trace_.local_handles()) co_return co_await unsupported(c, call);
      what.kind = Communicators::Kind::split;
      what.color = -1;
      break;
  }
  // Without local handles the trace defines every communicator: only the time is replayed.
  const bool builds = trace_.local_handles();
  const std::uint64_t id = builds ? comms_.deposit(parent, what) : 0;
  if (what.kind == Communicators::Kind::split) {
    coll::GroupChannel ch(c, comms_.group(parent.comm), parent.index, parent.sequence);
    co_await coll::run_allgatherv(ch, selection_, coll::Blocks(kSplitEntryBytes, ch.size()), 0);
  }
  co_await context_agreement(c, parent);
  if (builds) comms_.collect(r, parent, id, call.new_comm == kCommNull ? kNone : call.new_comm);
}

namespace {

// Positions of group_range_incl/excl's (first, last, stride) triples.
std::vector<std::int32_t> range_positions(std::span<const std::int32_t> triples) {
  std::vector<std::int32_t> out;
  for (std::size_t i = 0; i + 2 < triples.size(); i += 3) {
    const std::int32_t first = triples[i], last = triples[i + 1], stride = triples[i + 2];
    if (stride == 0) continue;
    for (std::int32_t p = first; stride > 0 ? p <= last : p >= last; p += stride) out.push_back(p);
  }
  return out;
}

Members pick(const std::vector<Rank>& from, std::span<const std::int32_t> positions, bool keep) {
  auto out = std::make_shared<std::vector<Rank>>();
  if (keep) {
    for (const std::int32_t p : positions)
      if (p >= 0 && p < static_cast<std::int32_t>(from.size())) out->push_back(from[static_cast<std::size_t>(p)]);
    return out;
  }
  for (std::size_t i = 0; i < from.size(); ++i)
    if (std::find(positions.begin(), positions.end(), static_cast<std::int32_t>(i)) == positions.end())
      out->push_back(from[i]);
  return out;
}

Members combine(const std::vector<Rank>& a, const std::vector<Rank>& b, CallType t) {
  auto out = std::make_shared<std::vector<Rank>>();
  const auto in_b = [&](Rank r) { return std::find(b.begin(), b.end(), r) != b.end(); };
  for (const Rank r : a)
    if ((t == CallType::group_intersection) == in_b(r) || t == CallType::group_union) out->push_back(r);
  if (t == CallType::group_union)
    for (const Rank r : b)
      if (std::find(a.begin(), a.end(), r) == a.end()) out->push_back(r);
  return out;
}

}  // namespace

// Group calls are local: the new group's members, as job ranks. False if an operand is unknown.
bool Replayer::group_call(Rank r, const Call& call) {
  const CallType t = call.type;
  if (t == CallType::comm_group) {
    const Membership* m = comms_.find(r, call.comm);
    if (m) comms_.define_group(r, call.new_group, comms_.members_of(m->comm));
    return m != nullptr;
  }
  if (t == CallType::group_free) {
    comms_.free_group(r, call.group);
    return true;
  }
  const Members* a = comms_.find_group(r, call.group);
  if (!a) return false;
  const Members from = *a;
  Members made;
  if (t == CallType::group_incl || t == CallType::group_excl) {
    made = pick(*from, call.ranks, t == CallType::group_incl);
  } else if (t == CallType::group_range_incl || t == CallType::group_range_excl) {
    made = pick(*from, range_positions(call.ranks), t == CallType::group_range_incl);
  } else {
    const Members* b = comms_.find_group(r, call.group2);
    if (!b) return false;
    made = combine(*from, **b, t);
  }
  comms_.define_group(r, call.new_group, std::move(made));
  return true;
}

}  // namespace torsim::replay
