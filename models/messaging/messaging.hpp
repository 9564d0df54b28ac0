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
#include <optional>
#include <string_view>
#include <vector>

#include "models/messaging/request.hpp"
#include "models/node/job.hpp"
#include "sim/core/fifo.hpp"
#include "sim/core/huge_pages.hpp"
#include "sim/core/wait.hpp"

namespace torsim::rt {

// The interface speaks of the node's ranks, job and core charges.
using node::cpu_use_name;
using node::CpuCharge;
using node::CpuUse;
using node::Job;
using node::kCpuUses;
using node::NodeId;
using node::parse_placement;
using node::Placement;

class MessagingLayer;
class Comm;

using HandlerId = std::uint32_t;
/// An active-message handler: runs on the destination rank, one at a time per rank.
using AmHandler = std::function<Task<>(Comm, Envelope)>;
/// A handler that takes no simulated time (bookkeeping such as arrival statistics); runs at
/// delivery without a coroutine when the layer charges no handler overhead.
using InstantHandler = std::function<void(Comm, const Envelope&)>;

/// The collective operations of the interface.
enum class CollectiveOp : std::uint8_t { barrier, bcast, reduce, allreduce, gather, alltoall };

/// The collectives a layer runs, held by the layer as one object. Declared here and implemented
/// above this interface: models/collectives holds the algorithms over point-to-point messages,
/// which make_messaging_layer installs unless the layer installed its own (native collectives:
/// RDMA trees, a combining network). Data is abstract: each rank's contribution is one word
/// standing for its `bytes`, and a reduction sums words (wrapping), so that a test can check
/// where every contribution went. bcast returns the root's word; reduce the sum at the root (a
/// partial sum elsewhere); allreduce the sum everywhere; gather the sum of every rank's word at
/// the root; alltoall the sum of the words of the blocks a rank ends with (every rank sends its
/// word in each block).
class CollectiveAlgorithms {
 public:
  virtual ~CollectiveAlgorithms() = default;
  virtual Task<> barrier(Comm c) const = 0;
  virtual Task<std::uint64_t> bcast(Comm c, Rank root, Bytes bytes, std::uint64_t word) const = 0;
  virtual Task<std::uint64_t> reduce(Comm c, Rank root, Bytes bytes, std::uint64_t word) const = 0;
  virtual Task<std::uint64_t> allreduce(Comm c, Bytes bytes, std::uint64_t word) const = 0;
  virtual Task<std::uint64_t> gather(Comm c, Rank root, Bytes size_per_rank, std::uint64_t word) const = 0;
  virtual Task<std::uint64_t> alltoall(Comm c, Bytes size_per_pair, std::uint64_t word) const = 0;
  /// Closed-form time of one operation over `ranks` ranks on an idle machine (all ranks start
  /// together; `bytes` as the operation takes them), where the layer has an analytical model
  /// of its collectives; nullopt where it has none.
  virtual std::optional<Time> predicted(CollectiveOp, int /*ranks*/, Bytes /*bytes*/) const { return std::nullopt; }
};

/// Sees each rank's use of the interface through Comm, call by call, for a recording of the run
/// as an MPI trace (torsim run --record-mpi): what the workload asked, never what a layer did
/// for it. A collective's own messages and computation (between enter_collective and
/// collective) belong to it. Requests are named by Request::id().
class InterfaceObserver : public RequestObserver {
 public:
  virtual void isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint32_t request) = 0;
  virtual void irecv(Rank self, Rank src, Tag tag, std::uint32_t request) = 0;
  virtual void enter_collective(Rank self) = 0;
  /// The collective `self` entered last is over (`bytes` as the operation takes them).
  virtual void collective(Rank self, CollectiveOp op, Rank root, Bytes bytes) = 0;
  virtual void compute(Rank self, Time duration) = 0;
  /// An operation an MPI trace of two-sided calls and collectives cannot hold (puts, gets,
  /// active messages): the recorder stops the run with an input error.
  virtual void unrecordable(Rank self, std::string_view operation) = 0;
};

/// Collective tags live above every user tag.
inline constexpr Tag kFirstCollectiveTag = 1 << 30;
/// A tag bit asking for a persistent channel (pre-registered receive buffer, direct PUT).
inline constexpr Tag kPersistent = 1 << 28;
/// A tag's bits from kTagContextShift up name its context (an MPI communicator, in a trace
/// replay: user tags are context << kTagContextShift | tag). A receive for any tag of one
/// context, and of no other (collective tags included), asks for any_tag_in(context).
inline constexpr int kTagContextShift = 20;
inline constexpr Tag any_tag_in(int context) { return INT32_MIN | context << kTagContextShift; }

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
  // a matching message (src or kAnySource, tag or kAnyTag or any_tag_in) has arrived;
  // receives match in posting order.
  virtual Task<Request> isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) = 0;
  virtual Request irecv(Rank self, Rank src, Tag tag);

  // --- One-sided. Complete when the data is at its destination and the initiator knows it.
  virtual Task<> put(Rank self, Rank target, Bytes size) = 0;
  virtual Task<> get(Rank self, Rank target, Bytes size) = 0;

  /// A non-blocking put (GASNet's put_nb, UPC's non-blocking memput): returns once the
  /// initiator's core has issued it; its request completes when put() would return. Default:
  /// put() run as a process of its own.
  virtual Task<Request> iput(Rank self, Rank target, Bytes size);

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
  virtual Task<Request> am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag) = 0;
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

  // --- Collectives over all ranks of the job (through Comm): the algorithms installed.
  const CollectiveAlgorithms& collectives() const;
  bool has_collectives() const { return collectives_ != nullptr; }
  void set_collectives(std::unique_ptr<const CollectiveAlgorithms> algorithms) { collectives_ = std::move(algorithms); }
  /// A fresh tag for one collective call (or one phase of it) on rank `self`; every rank calls
  /// collectives in the same order, so the tags agree.
  Tag next_collective_tag(Rank self);
  /// Only while recording the run (torsim run --record-mpi); nullptr otherwise.
  void set_observer(InterfaceObserver* observer) {
    observer_ = observer;
    requests_.set_observer(observer);
  }
  InterfaceObserver* observer() const { return observer_; }

  /// Time to combine `size` bytes in a reduction (the layer's reduction speed).
  virtual Time reduce_time(Bytes) const { return 0; }

  /// Local computation (or software overhead) on the rank's core.
  virtual Task<> compute(Rank self, Time duration);

  /// The ranks' cores, on which every software cost is charged (models/node/cores.hpp).
  node::Cores& cores() const { return job_.cores; }
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
  /// The same for protocols written as events (no coroutine per message): takes a posted
  /// receive matching `envelope` and returns true with its request in `request`; or, if none
  /// is posted, returns false and queues `on_match`, which runs as an event at the time a
  /// receive matches, with that receive's request in the upper 32 bits of its argument.
  bool match_or_wait(const Envelope& envelope, std::uint32_t& request, Callback on_match);
  /// Queues an arrived active message; the rank runs its handlers one at a time, in order.
  void deliver_am(HandlerId handler, const Envelope& envelope);
  /// Extra cost a layer charges before running each handler (scheduler, envelope decoding).
  virtual Time handler_overhead(Rank) const { return 0; }

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
  InterfaceObserver* observer_ = nullptr;
  struct PostedReceive {
    Rank src;
    Tag tag;
    std::uint32_t request;
  };
  struct Unexpected {
    Envelope envelope;
    Callback on_match;  // a rendezvous waiting for its receive, or empty for data already in
  };
  bool take_posted(const Envelope& envelope, std::uint32_t& request);
  struct QueuedAm {
    HandlerId handler;
    Envelope envelope;
  };
  struct RankQueues {
    Fifo<PostedReceive, RecycledAllocator<PostedReceive>> posted;  // read at random: huge pages
    Fifo<Unexpected, RecycledAllocator<Unexpected>> unexpected;
    Fifo<QueuedAm> active_messages;
    std::uint32_t collective_sequence = 0;
  };
  Task<> run_handlers(Rank self);
  Task<> put_and_complete(Rank self, Rank target, Bytes size, std::uint32_t request);

  std::vector<RankQueues> ranks_;
  // Per rank: its handler loop is running. Apart from ranks_ (a byte per rank, not a 100-byte
  // record) because an instant handler's delivery reads only this.
  std::vector<std::uint8_t> running_handlers_;
  std::map<std::pair<Rank, Rank>, Semaphore> notifications_;  // (target, from): puts arrived
  struct Handler {
    AmHandler coroutine;
    InstantHandler instant;
  };
  std::deque<Handler> handlers_;  // a deque: running handler coroutines refer to them
  std::unique_ptr<const CollectiveAlgorithms> collectives_;
};

class MessagingLayer::MatchWait {
 public:
  MatchWait(MessagingLayer& layer, const Envelope& e) : layer_(&layer), envelope_(e) {}
  bool await_ready();
  void await_suspend(std::coroutine_handle<> h);
  std::uint32_t await_resume() const { return request_; }

 private:
  static void matched(void* self, std::uint64_t request_in_upper_half);
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
    if (layer_->observer()) return observed_isend(*this, dst, size, tag, word);
    return layer_->isend(rank_, dst, size, tag, word);
  }
  Request irecv(Rank src = kAnySource, Tag tag = kAnyTag) const {
    Request r = layer_->irecv(rank_, src, tag);
    if (InterfaceObserver* o = layer_->observer()) o->irecv(rank_, src, tag, r.id());
    return r;
  }
  Task<> send(Rank dst, Bytes size, Tag tag = 0, std::uint64_t word = 0) const {
    return send_and_wait(*this, dst, size, tag, word);
  }
  Task<Envelope> recv(Rank src = kAnySource, Tag tag = kAnyTag) const { return receive_and_wait(*this, src, tag); }
  static Task<> wait_all(std::vector<Request>& requests);

  Task<> put(Rank target, Bytes size) const {
    unrecordable("put");
    return layer_->put(rank_, target, size);
  }
  Task<> get(Rank target, Bytes size) const {
    unrecordable("get");
    return layer_->get(rank_, target, size);
  }
  Task<Request> iput(Rank target, Bytes size) const {
    unrecordable("iput");
    return layer_->iput(rank_, target, size);
  }
  Task<> put_notify(Rank target, Bytes size) const {
    unrecordable("put_notify");
    return layer_->put_notify(rank_, target, size);
  }
  Task<> wait_notify(Rank from) const {
    unrecordable("wait_notify");
    return layer_->wait_notify(rank_, from);
  }
  Task<Request> am_isend(Rank dst, HandlerId handler, Bytes size, std::uint64_t word = 0, Tag tag = 0) const {
    unrecordable("an active message");
    return layer_->am_isend(rank_, dst, handler, size, word, tag);
  }
  Task<> am_send(Rank dst, HandlerId handler, Bytes size, std::uint64_t word = 0, Tag tag = 0) const {
    return am_send_and_wait(*this, dst, handler, size, word, tag);
  }
  // Collectives: the words are the contributions (see CollectiveAlgorithms); workloads that only
  // want the timing leave them 0.
  Task<> barrier() const {
    if (layer_->observer()) return observed_barrier(*this);
    return layer_->collectives().barrier(*this);
  }
  Task<std::uint64_t> bcast(Rank root, Bytes size, std::uint64_t word = 0) const {
    return observed(CollectiveOp::bcast, root, size, layer_->collectives().bcast(*this, root, size, word));
  }
  Task<std::uint64_t> reduce(Rank root, Bytes size, std::uint64_t word = 0) const {
    return observed(CollectiveOp::reduce, root, size, layer_->collectives().reduce(*this, root, size, word));
  }
  Task<std::uint64_t> allreduce(Bytes size, std::uint64_t word = 0) const {
    return observed(CollectiveOp::allreduce, 0, size, layer_->collectives().allreduce(*this, size, word));
  }
  Task<std::uint64_t> gather(Rank root, Bytes size_per_rank, std::uint64_t word = 0) const {
    return observed(CollectiveOp::gather, root, size_per_rank,
                    layer_->collectives().gather(*this, root, size_per_rank, word));
  }
  Task<std::uint64_t> alltoall(Bytes size_per_pair, std::uint64_t word = 0) const {
    return observed(CollectiveOp::alltoall, 0, size_per_pair,
                    layer_->collectives().alltoall(*this, size_per_pair, word));
  }
  Task<> compute(Time duration) const {
    if (InterfaceObserver* o = layer_->observer()) o->compute(rank_, duration);
    return layer_->compute(rank_, duration);
  }
  /// A copy on the rank's core (packing, a local transpose); a recording writes it as computation.
  auto copy(Time duration) const {
    if (InterfaceObserver* o = layer_->observer()) o->compute(rank_, duration);
    return layer_->cores().run(rank_, duration, CpuUse::copy);
  }

 private:
  // While recording (InterfaceObserver): the operation, told to the observer.
  Task<std::uint64_t> observed(CollectiveOp op, Rank root, Bytes bytes, Task<std::uint64_t> operation) const {
    if (!layer_->observer()) return operation;
    return observed_collective(*this, op, root, bytes, std::move(operation));
  }
  void unrecordable(std::string_view operation) const {
    if (InterfaceObserver* o = layer_->observer()) o->unrecordable(rank_, operation);
  }
  static Task<Request> observed_isend(Comm c, Rank dst, Bytes size, Tag tag, std::uint64_t word);
  static Task<std::uint64_t> observed_collective(Comm c, CollectiveOp op, Rank root, Bytes bytes,
                                                 Task<std::uint64_t> operation);
  static Task<> observed_barrier(Comm c);
  // Coroutines take the Comm by value: a temporary Comm may die before they finish.
  static Task<> send_and_wait(Comm c, Rank dst, Bytes size, Tag tag, std::uint64_t word);
  static Task<Envelope> receive_and_wait(Comm c, Rank src, Tag tag);
  static Task<> am_send_and_wait(Comm c, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag);

  MessagingLayer* layer_;
  Rank rank_;
};

}  // namespace torsim::rt
