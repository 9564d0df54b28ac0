// The one interface every workload is written against: two-sided send/receive, one-sided
// put/get with completion, active messages and collectives. Each messaging layer (raw NIC,
// MPI, Charm++, GASNet, PAMI, VIA) implements it with its own protocols and costs, so every
// workload runs over every layer a machine offers.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "models/messaging/job.hpp"
#include "models/messaging/request.hpp"
#include "sim/core/fifo.hpp"

namespace torsim::rt {

class MessagingLayer;
class Comm;

/// What a rank's core spends its time on. Every software cost a model charges names one.
enum class CpuUse : std::uint8_t {
  compute,       // the application's own work
  send,          // software send path: building a message or descriptor, posting it
  receive,       // software receive path: taking a message in, completing a request
  match,         // tag matching, probes, queue searches
  copy,          // memory copies (into or out of bounce buffers, mailboxes, packing)
  poll,          // progress-engine and completion-queue polling
  registration,  // memory registration (pinning) and its cache
  scheduler,     // a runtime's scheduler and handler dispatch
  connection,    // setting up a connection to a peer (endpoints, mailboxes, handshakes)
};
inline constexpr std::size_t kCpuUses = 9;
std::string_view cpu_use_name(CpuUse use);

/// One booking on a core, split by use.
struct CpuCharge {
  std::array<Time, kCpuUses> parts{};
  CpuCharge() = default;
  CpuCharge(CpuUse use, Time duration) { parts[static_cast<std::size_t>(use)] = duration; }
  CpuCharge& add(CpuUse use, Time duration) {
    parts[static_cast<std::size_t>(use)] += duration;
    return *this;
  }
  Time operator[](CpuUse use) const { return parts[static_cast<std::size_t>(use)]; }
  Time total() const;
};

using HandlerId = std::uint32_t;
/// An active-message handler: runs on the destination rank, one at a time per rank.
using AmHandler = std::function<Task<>(Comm, Envelope)>;
/// A handler that takes no simulated time (bookkeeping such as arrival statistics); runs at
/// delivery without a coroutine when the layer charges no handler overhead.
using InstantHandler = std::function<void(Comm, const Envelope&)>;

/// Collective tags live above every user tag.
inline constexpr Tag kFirstCollectiveTag = 1 << 30;
/// A tag bit asking for a persistent channel (pre-registered receive buffer, direct PUT).
inline constexpr Tag kPersistent = 1 << 28;

class MessagingLayer {
 public:
  explicit MessagingLayer(Job& job);
  virtual ~MessagingLayer() = default;
  virtual std::string_view name() const = 0;

  Job& job() const { return job_; }
  Kernel& kernel() const { return job_.kernel; }
  int size() const { return job_.size(); }

  // --- Two-sided. isend returns once the caller's CPU has done its part (software overhead);
  // its request completes when the send buffer may be reused. irecv's request completes when
  // a matching message (src or kAnySource, tag or kAnyTag) has arrived; receives match in
  // posting order.
  virtual Task<Request> isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) = 0;
  virtual Request irecv(Rank self, Rank src, Tag tag);

  // --- One-sided. Complete when the data is at its destination and the initiator knows it.
  virtual Task<> put(Rank self, Rank target, Bytes size) = 0;
  virtual Task<> get(Rank self, Rank target, Bytes size) = 0;

  /// A put the target is told about (uGNI remote events, GASNet put with notification):
  /// returns when the initiator may reuse its buffer; the target's wait_notify(self, from)
  /// returns once the data is in. Default: a put, then a zero-byte message.
  virtual Task<> put_notify(Rank self, Rank target, Bytes size);
  /// Waits for (and consumes) one notified put from `from`.
  Task<> wait_notify(Rank self, Rank from);

  // --- Active messages: the handler runs on the destination rank. The request completes at
  // local completion (the message has left).
  HandlerId register_handler(AmHandler handler);
  HandlerId register_handler(InstantHandler handler);
  /// `tag` is carried to the handler; kPersistent in it asks for a persistent channel where a
  /// layer has them (Charm++ over uGNI), and is ignored elsewhere.
  virtual Task<Request> am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word,
                                 Tag tag) = 0;
  /// Hints for the workload, like the kernel's (Kernel::add_prefetcher): a layer that knows,
  /// one event ahead, that a message from `src` arrives next, or that a send by `src`
  /// completes locally next, calls `arrival(ctx, src)` or `send_completion(ctx, src)`, so
  /// that what the workload will then read about `src` is on its way. They must change
  /// nothing. The raw layer gives them; others need not.
  struct Hints {
    void (*arrival)(const void* ctx, Rank src) = nullptr;
    void (*send_completion)(const void* ctx, Rank src) = nullptr;
    const void* ctx = nullptr;
  };
  void set_hints(const Hints& hints) { hints_ = hints; }
  /// A hint from a workload that knows its ranks' next destinations: `src` is likely to send
  /// to `dst` soon (say, one event ahead). It must change nothing. The raw layer passes it
  /// to the network model (NetworkModel::expect_transfer); the default ignores it.
  virtual void expect_send(Rank /*src*/, Rank /*dst*/) const {}

  // --- Collectives over all ranks of the job. Defaults are built on isend/irecv (MPICH's
  // classic algorithms); layers with native collectives override them.
  virtual Task<> barrier(Rank self);
  virtual Task<> bcast(Rank self, Rank root, Bytes bytes);
  virtual Task<> reduce(Rank self, Rank root, Bytes bytes);
  virtual Task<> allreduce(Rank self, Bytes bytes);
  virtual Task<> gather(Rank self, Rank root, Bytes size_per_rank);
  virtual Task<> alltoall(Rank self, Bytes size_per_pair);

  /// Local computation (or software overhead) on the rank's core.
  virtual Task<> compute(Rank self, Time duration);

  /// The rank's core: software costs charged from event context (a message's protocol
  /// processing) and the rank's own computation queue on it, one at a time. Every charge says
  /// what the time is for, so a run can tell where its time went.
  Time occupy_cpu(Rank r, const CpuCharge& charge);
  Time occupy_cpu(Rank r, Time duration, CpuUse use) { return occupy_cpu(r, CpuCharge(use, duration)); }
  /// Awaitable: charges rank r's core and resumes when the charge is done.
  auto on_cpu(Rank r, const CpuCharge& charge) { return kernel().sleep(occupy_cpu(r, charge) - kernel().now()); }
  auto on_cpu(Rank r, Time duration, CpuUse use) { return on_cpu(r, CpuCharge(use, duration)); }
  /// Core time charged so far, by use, summed over all ranks.
  const CpuCharge& cpu_time_by_use() const { return cpu_by_use_; }
  /// Called for every charge booked on a core, with the span it occupies (for traces). A charge
  /// of zero time books no span and is not reported.
  using CpuObserver = std::function<void(Rank, Time start, Time end, const CpuCharge&)>;
  void set_cpu_observer(CpuObserver observer) { cpu_observer_ = std::move(observer); }
  /// When rank r's core is next free (in the past when it is idle).
  Time cpu_free_at(Rank r) const { return cpu_free_[static_cast<std::size_t>(r)]; }
  /// Lengths of rank r's posted-receive and unexpected-message queues, which a matching
  /// engine searches.
  std::size_t posted_receives(Rank r) const { return ranks_[static_cast<std::size_t>(r)].posted.size(); }
  std::size_t unexpected_messages(Rank r) const { return ranks_[static_cast<std::size_t>(r)].unexpected.size(); }

 protected:
  /// Hands an arrived two-sided message to the destination's matching engine.
  void deliver(const Envelope& envelope);
  /// Records a notified put's arrival at `target` (wakes its wait_notify).
  void notify(Rank target, Rank from);
  /// True when put_notify is the default (a put and a message): wait_notify then receives it.
  virtual bool put_notify_uses_messages() const { return true; }

  /// Awaitable for protocols that move data only once a receive matches (rendezvous): resumes
  /// when a receive matching `envelope` is posted (at once if one is) and yields that receive's
  /// request, which the protocol completes itself (requests_.complete) when the data is in.
  class MatchWait;
  MatchWait match_receive(const Envelope& envelope);
  /// Queues an arrived active message; the rank runs its handlers one at a time, in order.
  void deliver_am(HandlerId handler, const Envelope& envelope);
  /// Extra cost a layer charges before running each handler (scheduler, envelope decoding).
  virtual Time handler_overhead(Rank) const { return 0; }
  /// Time to combine `size` bytes in a reduction (the layer's reduction speed).
  virtual Time reduce_time(Bytes) const { return 0; }
  Tag next_collective_tag(Rank self);

  void hint_arrival(Rank src) const {
    if (hints_.arrival) hints_.arrival(hints_.ctx, src);
  }
  void hint_send_completion(Rank src) const {
    if (hints_.send_completion) hints_.send_completion(hints_.ctx, src);
  }

  Job& job_;
  RequestPool requests_;

 private:
  Hints hints_;
  struct PostedReceive {
    Rank src;
    Tag tag;
    std::uint32_t request;
  };
  struct Unexpected {
    Envelope envelope;
    MatchWait* waiter;  // a rendezvous waiting for its receive, or null for data already in
  };
  struct QueuedAm {
    HandlerId handler;
    Envelope envelope;
  };
  struct RankQueues {
    Fifo<PostedReceive> posted;
    Fifo<Unexpected> unexpected;
    Fifo<QueuedAm> active_messages;
    std::uint32_t collective_sequence = 0;
  };
  Task<> run_handlers(Rank self);

  std::vector<RankQueues> ranks_;
  // Per rank: its handler loop is running. Apart from ranks_ (a byte per rank, not a 100-byte
  // record) because an instant handler's delivery reads only this.
  std::vector<std::uint8_t> running_handlers_;
  std::vector<Time> cpu_free_;  // per rank: when its core is next idle
  CpuCharge cpu_by_use_;
  CpuObserver cpu_observer_;
  struct Notifications {
    std::int64_t count = 0;
    std::coroutine_handle<> waiter;
  };
  std::map<std::pair<Rank, Rank>, Notifications> notifications_;  // (target, from)
  struct Handler {
    AmHandler coroutine;
    InstantHandler instant;
  };
  std::deque<Handler> handlers_;  // a deque: running handler coroutines refer to them
};

class MessagingLayer::MatchWait {
 public:
  MatchWait(MessagingLayer& layer, const Envelope& e) : layer_(&layer), envelope_(e) {}
  bool await_ready();
  void await_suspend(std::coroutine_handle<> h);
  std::uint32_t await_resume() const { return request_; }
  void matched(std::uint32_t request);

 private:
  MessagingLayer* layer_;
  Envelope envelope_;
  std::uint32_t request_ = 0;
  std::coroutine_handle<> waiter_;
};

/// A rank's view of its messaging layer: what workload code holds.
class Comm {
 public:
  Comm(MessagingLayer& layer, Rank rank) : layer_(&layer), rank_(rank) {}
  Rank rank() const { return rank_; }
  int size() const { return layer_->size(); }
  Kernel& kernel() const { return layer_->kernel(); }
  Time now() const { return kernel().now(); }
  MessagingLayer& layer() const { return *layer_; }
  NodeId node() const { return layer_->job().node_of(rank_); }

  Task<Request> isend(Rank dst, Bytes size, Tag tag = 0, std::uint64_t word = 0) const {
    return layer_->isend(rank_, dst, size, tag, word);
  }
  Request irecv(Rank src = kAnySource, Tag tag = kAnyTag) const { return layer_->irecv(rank_, src, tag); }
  Task<> send(Rank dst, Bytes size, Tag tag = 0, std::uint64_t word = 0) const {
    return send_and_wait(*this, dst, size, tag, word);
  }
  Task<Envelope> recv(Rank src = kAnySource, Tag tag = kAnyTag) const { return receive_and_wait(*this, src, tag); }
  static Task<> wait_all(std::vector<Request>& requests);

  Task<> put(Rank target, Bytes size) const { return layer_->put(rank_, target, size); }
  Task<> get(Rank target, Bytes size) const { return layer_->get(rank_, target, size); }
  Task<> put_notify(Rank target, Bytes size) const { return layer_->put_notify(rank_, target, size); }
  Task<> wait_notify(Rank from) const { return layer_->wait_notify(rank_, from); }
  Task<Request> am_isend(Rank dst, HandlerId handler, Bytes size, std::uint64_t word = 0, Tag tag = 0) const {
    return layer_->am_isend(rank_, dst, handler, size, word, tag);
  }
  Task<> am_send(Rank dst, HandlerId handler, Bytes size, std::uint64_t word = 0, Tag tag = 0) const {
    return am_send_and_wait(*this, dst, handler, size, word, tag);
  }
  Task<> barrier() const { return layer_->barrier(rank_); }
  Task<> bcast(Rank root, Bytes size) const { return layer_->bcast(rank_, root, size); }
  Task<> reduce(Rank root, Bytes size) const { return layer_->reduce(rank_, root, size); }
  Task<> allreduce(Bytes size) const { return layer_->allreduce(rank_, size); }
  Task<> gather(Rank root, Bytes size_per_rank) const { return layer_->gather(rank_, root, size_per_rank); }
  Task<> alltoall(Bytes size_per_pair) const { return layer_->alltoall(rank_, size_per_pair); }
  Task<> compute(Time duration) const { return layer_->compute(rank_, duration); }

 private:
  // Coroutines take the Comm by value: a temporary Comm may die before they finish.
  static Task<> send_and_wait(Comm c, Rank dst, Bytes size, Tag tag, std::uint64_t word);
  static Task<Envelope> receive_and_wait(Comm c, Rank src, Tag tag);
  static Task<> am_send_and_wait(Comm c, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag);

  MessagingLayer* layer_;
  Rank rank_;
};

/// The "runtime" section of a scenario: {"layer": "raw", ...overrides of the machine's
/// calibrated parameters for that layer}.
std::unique_ptr<MessagingLayer> make_messaging_layer(const Json& spec, const Where& where, Job& job);

struct MessagingLayerEntry {
  std::string_view name;
  std::string_view description;
  const ParamTable* params;
  /// Builds the layer from its parameters (the machine's runtimes.<name> merged with the
  /// scenario's overrides).
  std::unique_ptr<MessagingLayer> (*make)(const ParamReader&, Job&);
};
const std::vector<MessagingLayerEntry>& messaging_layers();

}  // namespace torsim::rt
