// Synthetic traffic patterns. Every rank sends `messages` messages of `size` to each of its
// destinations, keeping at most `window` of them in flight (sent and not yet delivered: the
// source learns of each arrival, like a credit-based flow control); arrivals are counted by
// an active-message handler that costs no simulated time. Reports completion time, aggregate and
// per-source throughput, and message latency. With an `offered_rate`, sources are open-loop:
// messages are created at that mean rate, periodically (message k of a rank at phase + k x
// size / rate, a random phase per rank), as a Bernoulli process (a message per slot with
// probability slot x rate / size) or as a Poisson process, and each is sent when the rank gets
// to it; latency then counts from creation, and the accepted throughput is measured over the
// middle half of the expected creation span. uniform_random never sends to the source's own
// rank (BookSim's uniform traffic does, 1/n of its packets). "latency_map" instead measures, one
// message at a time on a quiet network, the one-way latency from rank 0 to every other rank.
#include <algorithm>

#include "models/apps/micro.hpp"
#include "sim/config/unused.hpp"
#include "sim/core/random.hpp"
#include "topologies/torus.hpp"

namespace torsim::apps {
namespace {

enum class Pattern : std::uint8_t {
  shift,
  nearest_neighbor,
  random_permutation,
  all_to_all,
  incast,
  bit_complement,
  uniform_random,
  transpose,
  tornado,
  hot_spot,
  latency_map
};
constexpr ChoiceName<Pattern> kPatternNames[] = {{"shift", Pattern::shift},
                                                 {"nearest_neighbor", Pattern::nearest_neighbor},
                                                 {"random_permutation", Pattern::random_permutation},
                                                 {"all_to_all", Pattern::all_to_all},
                                                 {"incast", Pattern::incast},
                                                 {"bit_complement", Pattern::bit_complement},
                                                 {"uniform_random", Pattern::uniform_random},
                                                 {"transpose", Pattern::transpose},
                                                 {"tornado", Pattern::tornado},
                                                 {"hot_spot", Pattern::hot_spot},
                                                 {"latency_map", Pattern::latency_map}};
enum class Arrivals : std::uint8_t { periodic, bernoulli, poisson };
constexpr ChoiceName<Arrivals> kArrivalNames[] = {
    {"periodic", Arrivals::periodic}, {"bernoulli", Arrivals::bernoulli}, {"poisson", Arrivals::poisson}};

struct TrafficParams {
  Pattern pattern{};
  Bytes size = 0;
  std::int64_t messages = 0, window = 0, distance = 0;
  Rate offered_rate = 0;  // 0: not given, closed loop
  double hot_fraction = 0;
  Arrivals arrivals{};
  Time slot = 0;  // 0: not given, the default slot (start())
};
using P = TrafficParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind_choice<&P::pattern, kPatternNames>(
        {"pattern", ParamKind::choice, kRequired, "", "", "",
         "shift: i -> i+distance; nearest_neighbor: each torus neighbour of the rank's node; random_permutation: a "
         "random cyclic permutation; all_to_all: every other rank; incast: all -> rank 0; bit_complement: i -> ~i; "
         "uniform_random: a random other rank per message; transpose: node (x, y, ...) -> (y, x, ...); tornado: "
         "each torus coordinate c -> c + ceil(k/2) - 1; hot_spot: uniform_random, but a message goes to rank 0 with "
         "probability hot_fraction; latency_map: rank 0 to each rank in turn",
         "-",
         "shift|nearest_neighbor|random_permutation|all_to_all|incast|bit_complement|uniform_random|transpose|"
         "tornado|hot_spot|latency_map"}),
    bind<&P::size>({"size", ParamKind::size, "4KiB", "B", "0B", "1GiB", "message size", "-"}),
    bind<&P::messages>({"messages", ParamKind::integer, "1", "", "1", "1000000000",
                        "messages per destination (uniform_random: per rank)", "-"}),
    bind<&P::window>({"window", ParamKind::integer, "4", "", "1", "1000000",
                      "messages in flight (sent, not delivered) per rank", "-"}),
    bind<&P::distance>({"distance", ParamKind::integer, "1", "", "", "", "shift distance in ranks", "-"}),
    bind<&P::offered_rate>(
        {"offered_rate", ParamKind::rate, kUnset, "GB/s", "1MB/s", "10000GB/s",
         "payload each rank offers per second, open loop (unset: closed loop, each rank sends as fast as its window "
         "allows)",
         "-"}),
    bind<&P::hot_fraction>({"hot_fraction", ParamKind::number, "0.1", "", "0", "1",
                            "hot_spot: share of each rank's messages sent to rank 0", "-"}),
    bind_choice<&P::arrivals, kArrivalNames>(
        {"arrivals", ParamKind::choice, "periodic", "", "", "",
         "open loop (with offered_rate): periodic: one message "
         "every size / offered_rate, from a random phase; bernoulli: in each slot a message with probability "
         "slot x offered_rate / size; poisson: exponential gaps of mean size / offered_rate",
         "-", "periodic|bernoulli|poisson"}),
    bind<&P::slot>(
        {"slot", ParamKind::time, kUnset, "ns", "1ps", "1s",
         "arrivals bernoulli: the slot (default: one message's wire time at the node's injection bandwidth); at "
         "most the mean gap size / offered_rate",
         "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: traffic)", "Synthetic traffic patterns.", kSpecs};

// Neighbour ranks of `r` in each dimension and direction of its node's router, with the same
// local index on the neighbour node. Duplicates (size-2 rings) are kept: both links are used.
std::vector<Rank> torus_neighbours(const rt::Job& job, const std::vector<Rank>& first_rank_on_node, Rank r) {
  const auto& t = *job.machine.topology;
  std::vector<Rank> out;
  const NodeId node = job.node_of(r);
  const auto offset = job.placement.local_index(r);
  const NodeId slot = node - t.router_of(node) * (t.node_count() / t.router_count());
  for (const topo::LinkId id : t.network_links_from(t.router_of(node))) {
    const NodeId target = t.link(id).to * (t.node_count() / t.router_count()) + slot;
    const Rank first = first_rank_on_node[static_cast<std::size_t>(target)];
    if (first >= 0)
      out.push_back(first +
                    (job.placement.round_robin ? offset * static_cast<Rank>(job.placement.nodes.size()) : offset));
  }
  return out;
}

class Traffic final : public Workload {
 public:
  explicit Traffic(const ParamReader& r)
      : p_(parse_fields(r, kFields)),
        hot_ppm_(static_cast<std::uint64_t>(p_.hot_fraction * 1e6 + 0.5)),
        slot_(p_.slot) {
    if (p_.arrivals != Arrivals::periodic && !p_.offered_rate)
      r.where("arrivals")
          .fail("random arrivals (" + std::string(name_of(kArrivalNames, p_.arrivals)) +
                ") need an offered_rate (open loop)");
    if (r.has("slot") && p_.arrivals != Arrivals::bernoulli)
      not_used(r.where("slot"), "a slot is read only with arrivals bernoulli");
    if (r.has("distance") && p_.pattern != Pattern::shift)
      not_used(r.where("distance"),
               "distance is read only with pattern shift; this run's pattern is " + pattern_name());
    if (r.has("hot_fraction") && p_.pattern != Pattern::hot_spot)
      not_used(r.where("hot_fraction"),
               "hot_fraction is read only with pattern hot_spot; this run's pattern is " + pattern_name());
  }

  int minimum_ranks() const override { return 2; }
  std::string pattern_name() const { return std::string(name_of(kPatternNames, p_.pattern)); }

  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    if (slot_ > 0 && slot_ > transfer_time(p_.size, p_.offered_rate))
      (where / "slot")
          .fail("the slot (" + format_time(slot_) + ") exceeds the mean gap between messages (" +
                format_time(transfer_time(p_.size, p_.offered_rate)) + "): a slot holds one message at most");
    const int n = job.size();
    if (p_.pattern == Pattern::shift && p_.distance % n == 0)  // i -> i: nothing to measure
      (where / "distance")
          .fail("a shift by a multiple of the job's " + std::to_string(n) +
                " ranks sends every rank's messages to itself; expected a distance that is not a multiple of " +
                std::to_string(n));
    if (p_.pattern == Pattern::bit_complement && (n & (n - 1)) != 0)
      (where / "pattern").fail("bit_complement needs a power-of-two number of ranks; the job has " + std::to_string(n));
    const auto* torus = dynamic_cast<const topo::Torus*>(job.machine.topology.get());
    if ((p_.pattern == Pattern::nearest_neighbor || p_.pattern == Pattern::transpose ||
         p_.pattern == Pattern::tornado) &&
        !torus)
      (where / "pattern").fail(pattern_name() + " needs a torus or mesh machine");
    if (p_.pattern == Pattern::transpose &&
        (torus->dims().size() < 2 || torus->dims()[0].size != torus->dims()[1].size))
      (where / "pattern").fail("transpose needs a torus whose first two dimensions have the same size");
  }

  void start(rt::MessagingLayer& layer) override {
    job_ = &layer.job();
    if (p_.arrivals == Arrivals::bernoulli && slot_ == 0)
      slot_ = std::max<Time>(
          1, transfer_time(job_->machine.packet.wire_bytes(p_.size), job_->machine.node.injection_bandwidth));
    const auto n = static_cast<std::size_t>(layer.size());
    first_send_.assign(n, kNever);
    sources_.assign(n, Source{});
    senders_.assign(n, Sender{});
    layer_ = &layer;
    prepare_destinations(layer.job());
    if (p_.offered_rate > 0) {  // the middle half of the span in which messages are created
      const Time span = p_.messages * std::max<Time>(1, transfer_time(p_.size, p_.offered_rate));
      window_start_ = span / 4;
      window_end_ = std::max(window_start_ + 1, 3 * span / 4);
    }
    handler_ = layer.register_handler(rt::InstantHandler([this](Comm c, const Envelope& e) { arrived(c, e); }));
    // An arrival reads its source's record and, when the sender waits there for a credit,
    // resumes it to send its next message; a local completion resumes the sender, which
    // sends its next message if the window has room. Cache misses the layer lets us start
    // one event ahead, the next message's route included.
    rt::MessagingLayer::Hints hints;
    hints.ctx = this;
    hints.arrival = [](const void* ctx, Rank src) {
      const auto* traffic = static_cast<const Traffic*>(ctx);
      __builtin_prefetch(&traffic->sources_[static_cast<std::size_t>(src)]);
      const Sender& sender = traffic->senders_[static_cast<std::size_t>(src)];
      if (!sender.waits_for_credit) return;
      Kernel::prefetch_frame(sender.frame);
      traffic->layer_->expect_send(src, sender.next_destination);
    };
    hints.send_completion = [](const void* ctx, Rank src) {
      const auto* traffic = static_cast<const Traffic*>(ctx);
      const Sender& sender = traffic->senders_[static_cast<std::size_t>(src)];
      Kernel::prefetch_frame(sender.frame);
      if (sender.in_flight >= traffic->p_.window || sender.next_destination < 0) return;
      __builtin_prefetch(&traffic->sources_[static_cast<std::size_t>(src)]);
      traffic->layer_->expect_send(src, sender.next_destination);
    };
    layer.set_hints(hints);
    if (p_.pattern == Pattern::latency_map) return layer.kernel().spawn(map_latency(Comm(layer, 0)));
    spawn_all(layer, [this](Comm c) { return send_all(c); });
  }

  void finish(RunOutput& out) const override {
    if (p_.pattern == Pattern::latency_map) return finish_latency_map(out);
    Time completion = 0;
    for (const Source& s : sources_) completion = std::max(completion, s.last_arrival);
    out.metrics["completion_time_us"] = microseconds(completion);
    out.metrics["messages_delivered"] = static_cast<double>(delivered_);
    out.metrics["aggregate_throughput_GBps"] = megabytes_per_second(delivered_bytes_, completion) / 1000.0;
    out.metrics["mean_latency_us"] = delivered_ ? microseconds(latency_sum_ / static_cast<Time>(delivered_)) : 0.0;
    out.metrics["max_latency_us"] = microseconds(latency_max_);
    add_per_source(out);
    if (p_.pattern == Pattern::hot_spot)
      out.metrics["background_mean_latency_us"] =
          background_delivered_ ? microseconds(background_latency_sum_ / static_cast<Time>(background_delivered_))
                                : 0.0;
    if (p_.offered_rate > 0) {
      const double ranks = static_cast<double>(sources_.size());
      out.metrics["offered_GBps_per_rank"] = static_cast<double>(p_.offered_rate) / 1e9;
      out.metrics["accepted_GBps_per_rank"] =
          megabytes_per_second(window_bytes_, window_end_ - window_start_) / 1000.0 / ranks;
    }
  }

 private:
  void prepare_destinations(const rt::Job& job) {
    const int n = job.size();
    if (p_.pattern == Pattern::random_permutation) {
      // Sattolo's algorithm: a uniformly random n-cycle, so no rank sends to itself.
      permutation_.resize(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) permutation_[static_cast<std::size_t>(i)] = i;
      Rng rng = job.rng(1);
      for (int i = n - 1; i > 0; --i)
        std::swap(permutation_[static_cast<std::size_t>(i)], permutation_[rng.below(static_cast<std::uint64_t>(i))]);
    }
    if (p_.pattern == Pattern::nearest_neighbor || p_.pattern == Pattern::transpose || p_.pattern == Pattern::tornado) {
      first_rank_on_node_.assign(static_cast<std::size_t>(job.machine.node_count()), -1);
      for (Rank r = n - 1; r >= 0; --r)
        if (job.placement.local_index(r) == 0) first_rank_on_node_[static_cast<std::size_t>(job.node_of(r))] = r;
    }
  }

  std::vector<Rank> destinations(Comm c) const {
    const Rank me = c.rank();
    const int n = c.size();
    if (p_.pattern == Pattern::shift) return {static_cast<Rank>(((me + p_.distance) % n + n) % n)};
    if (p_.pattern == Pattern::random_permutation) return {permutation_[static_cast<std::size_t>(me)]};
    if (p_.pattern == Pattern::incast) return me == 0 ? std::vector<Rank>{} : std::vector<Rank>{0};
    if (p_.pattern == Pattern::bit_complement) return {static_cast<Rank>(~me & (n - 1))};
    if (p_.pattern == Pattern::nearest_neighbor) return torus_neighbours(*job_, first_rank_on_node_, me);
    if (p_.pattern == Pattern::transpose || p_.pattern == Pattern::tornado) return coordinate_permutation(me);
    std::vector<Rank> all;  // all_to_all, staggered so that rank i starts with i+1
    for (int step = 1; step < n; ++step) all.push_back((me + step) % n);
    return all;
  }

  // transpose and tornado: the rank with the same local index on the node whose router's
  // coordinates are permuted; none when that is the rank's own node.
  std::vector<Rank> coordinate_permutation(Rank me) const {
    const auto& torus = dynamic_cast<const topo::Torus&>(*job_->machine.topology);
    const NodeId node = job_->node_of(me);
    const topo::RouterId router = torus.router_of(node);
    topo::RouterId target = 0, stride = 1;
    for (std::size_t d = 0; d < torus.dims().size(); ++d) {
      const int k = torus.dims()[d].size;
      int c = torus.coordinate(router, d);
      if (p_.pattern == Pattern::transpose && d < 2) c = torus.coordinate(router, 1 - d);
      if (p_.pattern == Pattern::tornado) c = (c + (k + 1) / 2 - 1) % k;
      target += c * stride;
      stride *= k;
    }
    if (target == router) return {};
    const NodeId target_node = target * torus.concentration() + node % torus.concentration();
    const Rank first = first_rank_on_node_[static_cast<std::size_t>(target_node)];
    if (first < 0) return {};
    return {first + (job_->placement.round_robin
                         ? job_->placement.local_index(me) * static_cast<Rank>(job_->placement.nodes.size())
                         : job_->placement.local_index(me))};
  }

  Task<> send_all(Comm c) {
    const auto me = static_cast<std::size_t>(c.rank());
    Source& source = sources_[me];
    Rng rng = job_->rng(1000 + me);
    const bool random = p_.pattern == Pattern::uniform_random || p_.pattern == Pattern::hot_spot;
    const auto fixed = random ? std::vector<Rank>{} : destinations(c);
    const std::int64_t total = random ? p_.messages : p_.messages * static_cast<std::int64_t>(fixed.size());
    Sender& sender = senders_[me];
    if (total > 0) {
      first_send_[me] = c.now();
      sender.next_destination = destination(0, fixed, rng, c);
    }
    // Open loop: messages are created at their arrival times, whatever the network does.
    const Time period = p_.offered_rate > 0 ? std::max<Time>(1, transfer_time(p_.size, p_.offered_rate)) : 0;
    Rng arrivals = job_->rng(2000 + me);
    const Rng::Bernoulli per_slot(static_cast<std::uint64_t>(slot_),
                                  static_cast<std::uint64_t>(std::max<Time>(1, period)));
    Time created = period > 0 ? first_arrival(arrivals, period, per_slot) : 0;
    for (std::int64_t k = 0; k < total; ++k) {
      while (sender.in_flight >= p_.window) co_await Credit{source, sender};
      if (k > 0 && period > 0) created = next_arrival(arrivals, period, per_slot, created);
      if (period > 0 && created > c.now()) co_await c.kernel().sleep(created - c.now());
      const Rank dst = sender.next_destination;
      // Drawn one message ahead (the same draws, in the same order), for the hints.
      sender.next_destination = k + 1 < total ? destination(k + 1, fixed, rng, c) : -1;
      ++sender.in_flight;
      source.bytes_sent += p_.size;
      const Time stamp = period > 0 ? created : c.now();
      rt::Request sent = co_await c.am_isend(dst, handler_, p_.size, static_cast<std::uint64_t>(stamp));
      co_await Completion{sent, sender};
    }
  }

  // The first message's creation: a random phase within the period (periodic), or the first
  // arrival of the process.
  // `per_slot`: a Bernoulli process's chance of an arrival in a slot (slot / period).
  Time first_arrival(Rng& rng, Time period, const Rng::Bernoulli& per_slot) const {
    if (p_.arrivals == Arrivals::periodic) return static_cast<Time>(rng.below(static_cast<std::uint64_t>(period)));
    return next_arrival(rng, period, per_slot, 0);
  }
  Time next_arrival(Rng& rng, Time period, const Rng::Bernoulli& per_slot, Time previous) const {
    if (p_.arrivals == Arrivals::poisson) return previous + rng.exponential(period);
    if (p_.arrivals == Arrivals::bernoulli) return previous + static_cast<Time>(rng.geometric(per_slot)) * slot_;
    return previous + period;
  }

  // The k-th message's destination: a random other rank (rank 0 with probability hot_fraction
  // for hot_spot), or the pattern's fixed ones in turn.
  Rank destination(std::int64_t k, const std::vector<Rank>& fixed, Rng& rng, Comm c) const {
    if (!fixed.empty()) return fixed[static_cast<std::size_t>(k) % fixed.size()];
    if (p_.pattern == Pattern::hot_spot && rng.below(1000000) < hot_ppm_ && c.rank() != 0) return 0;
    return random_other(rng, c);
  }

  // Waits for an arrival of the source's messages. The waiting sender is kept in the
  // source's record, which the arrival reads anyway: a Signal in the sender's frame would
  // cost every arrival a second, dependent cache miss.
  struct Source;
  struct Sender;
  struct Credit {
    Source& source;
    Sender& sender;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> waiting) noexcept {
      source.waiting = waiting;
      sender.frame = waiting.address();
      sender.waits_for_credit = true;
    }
    void await_resume() const noexcept { sender.waits_for_credit = false; }
  };

  // Awaits a request without copying its envelope (unused here) into the coroutine frame, a
  // cache line the sender would otherwise write on every resume.
  struct Completion {
    rt::Request& request;
    Sender& sender;
    bool await_ready() const { return request.await_ready(); }
    void await_suspend(std::coroutine_handle<> h) {
      sender.frame = h.address();
      request.await_suspend(h);
    }
    void await_resume() const noexcept {}
  };

  static Rank random_other(Rng& rng, Comm c) {
    const auto pick = static_cast<Rank>(rng.below(static_cast<std::uint64_t>(c.size() - 1)));
    return pick < c.rank() ? pick : pick + 1;
  }

  void arrived(Comm c, const Envelope& e) {
    const Time latency = c.now() - static_cast<Time>(e.word);
    if (p_.pattern == Pattern::hot_spot && c.rank() != 0) {
      ++background_delivered_;
      background_latency_sum_ += latency;
    }
    if (p_.offered_rate > 0 && c.now() >= window_start_ && c.now() < window_end_) window_bytes_ += e.size;
    ++delivered_;
    delivered_bytes_ += e.size;
    latency_sum_ += latency;
    latency_max_ = std::max(latency_max_, latency);
    Source& source = sources_[static_cast<std::size_t>(e.src)];
    source.last_arrival = std::max(source.last_arrival, c.now());
    --senders_[static_cast<std::size_t>(e.src)].in_flight;
    if (const auto sender = std::exchange(source.waiting, {})) c.kernel().resume_now(sender);
    if (waiting_) {
      map_latency_.push_back(latency);
      waiting_->fire();
    }
  }

  // Rank 0 sends to each rank in turn and waits for the arrival before the next.
  Task<> map_latency(Comm c) {
    for (Rank dst = 1; dst < c.size(); ++dst) {
      Signal arrival(c.kernel());
      waiting_ = &arrival;
      co_await c.am_send(dst, handler_, p_.size, static_cast<std::uint64_t>(c.now()));
      co_await arrival;
      waiting_ = nullptr;
    }
  }

  void finish_latency_map(RunOutput& out) const {
    auto& table = out.add_series("latency_map", {"rank", "node", "hops", "latency_us"});
    const auto& t = *job_->machine.topology;
    Time lo = kNever, hi = 0, sum = 0;
    for (std::size_t i = 0; i < map_latency_.size(); ++i) {
      const auto dst = static_cast<Rank>(i + 1);
      table.add({static_cast<double>(dst), static_cast<double>(job_->node_of(dst)),
                 static_cast<double>(t.hops(job_->node_of(0), job_->node_of(dst))), microseconds(map_latency_[i])});
      lo = std::min(lo, map_latency_[i]);
      hi = std::max(hi, map_latency_[i]);
      sum += map_latency_[i];
    }
    out.metrics["min_latency_us"] = microseconds(lo);
    out.metrics["max_latency_us"] = microseconds(hi);
    out.metrics["mean_latency_us"] =
        microseconds(sum / static_cast<Time>(std::max<std::size_t>(1, map_latency_.size())));
  }

  // Per-source throughput: bytes a rank sent over the time from its first send to the last
  // arrival of its messages (for single-destination patterns, the per-flow throughput).
  void add_per_source(RunOutput& out) const {
    double lo = 0, hi = 0, sum = 0;
    std::size_t sources = 0;
    for (std::size_t r = 0; r < sources_.size(); ++r) {
      const Source& s = sources_[r];
      if (s.bytes_sent == 0) continue;
      const double mbps = megabytes_per_second(s.bytes_sent, s.last_arrival - first_send_[r]);
      lo = sources == 0 ? mbps : std::min(lo, mbps);
      hi = std::max(hi, mbps);
      sum += mbps;
      ++sources;
    }
    out.metrics["per_source_throughput_min_MBps"] = lo;
    out.metrics["per_source_throughput_mean_MBps"] = sources ? sum / static_cast<double>(sources) : 0.0;
    out.metrics["per_source_throughput_max_MBps"] = hi;
  }

  const TrafficParams p_;
  std::uint64_t hot_ppm_;                   // hot_fraction in millionths
  Time slot_;                               // bernoulli arrivals: the slot (0 until start() sets the default)
  Time window_start_ = 0, window_end_ = 0;  // open loop: where the accepted throughput is measured
  Bytes window_bytes_ = 0;
  std::uint64_t background_delivered_ = 0;  // hot_spot: messages to ranks other than 0
  Time background_latency_sum_ = 0;
  const rt::Job* job_ = nullptr;
  const rt::MessagingLayer* layer_ = nullptr;
  rt::HandlerId handler_ = 0;
  std::vector<Rank> permutation_;
  std::vector<Rank> first_rank_on_node_;
  // Per source rank, what every send and every arrival touches, in one 32-byte record (a
  // single cache line) rather than three arrays.
  struct alignas(32) Source {
    std::coroutine_handle<> waiting;  // its sender, waiting for a delivery
    Bytes bytes_sent = 0;
    Time last_arrival = 0;
  };
  std::vector<Source> sources_;
  // Per source, what the hints read: a compact array (24 bytes a rank, in the cache) where
  // the source's record would be a miss to wait for first.
  struct Sender {
    const void* frame = nullptr;    // its coroutine frame
    Rank next_destination = -1;     // of its next message (-1: none)
    std::int32_t in_flight = 0;     // sent, not yet delivered (window <= 10^6)
    bool waits_for_credit = false;  // mirrors the source record's `waiting`, for the hints
  };
  static_assert(sizeof(Sender) == 24);
  std::vector<Sender> senders_;
  std::vector<Time> first_send_;  // per source; written once, so kept apart
  std::uint64_t delivered_ = 0;
  Bytes delivered_bytes_ = 0;
  Time latency_sum_ = 0, latency_max_ = 0;
  std::vector<Time> map_latency_;
  Signal* waiting_ = nullptr;
};

}  // namespace

const WorkloadEntry kTrafficWorkload{
    "traffic", "synthetic traffic patterns: shift, neighbours, permutation, all-to-all, incast, latency map", &kParams,
    &make_from<Traffic>};

}  // namespace torsim::apps
