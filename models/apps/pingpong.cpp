// Ping-pong: rank 0 and a peer bounce one message back and forth; one-way latency is half
// the round trip. With operation "put" or "get", rank 0 times one-sided operations to the
// peer until remote completion instead; with "ping_ack", a message and a zero-byte reply, the
// whole round trip (the way GASNet's and MPI's latencies were compared on Blue Gene/P). With
// "pairs": "all", every rank of the job's first half does the same with its counterpart in the
// second half, all at once (on two nodes: every rank of one node with one of the other), and
// the latency is the mean over pairs.
// Each size's latency is also broken down by what the cores spent on it (compute, send,
// receive, match, copy, poll, registration, scheduler; all ranks' time during the first
// pair's timed loop, per one-way message and pair) and the rest, "wait": the wire and
// whatever no core was working on.
#include "models/apps/micro.hpp"

namespace torsim::apps {
namespace {

enum class Operation : std::uint8_t { send_recv, put_pingpong, put, get, ping_ack };
constexpr ChoiceName<Operation> kOperationNames[] = {{"send_recv", Operation::send_recv},
                                                     {"put_pingpong", Operation::put_pingpong},
                                                     {"put", Operation::put},
                                                     {"get", Operation::get},
                                                     {"ping_ack", Operation::ping_ack}};

struct PingPongParams {
  std::vector<Bytes> sizes;
  std::int64_t iterations = 0, warmup = 0;
  Rank peer = 0;
  bool all_pairs = false;
  Operation operation{};
};
using P = PingPongParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind<&P::sizes>({"sizes", ParamKind::size_list, R"({"from": "8B", "to": "1MiB", "factor": 2})", "B", "0B", "1GiB",
                     "message sizes swept: a list, or {\"from\", \"to\", \"factor\"}", "-"}),
    bind<&P::iterations>(
        {"iterations", ParamKind::integer, "20", "", "1", "10000000", "timed round trips per size", "-"}),
    bind<&P::warmup>(
        {"warmup", ParamKind::integer, "2", "", "0", "10000000", "untimed round trips before timing", "-"}),
    bind<&P::peer>({"peer", ParamKind::integer, "1", "", "1", "", "the rank that answers rank 0 (pairs: one)", "-"}),
    bind_choice<&P::all_pairs, kPairsNames>(
        {"pairs", ParamKind::choice, "one", "", "", "",
         "one: rank 0 and the peer; all: rank i and rank i + n/2 for every i < n/2, at once", "-", "one|all"}),
    bind_choice<&P::operation, kOperationNames>(
        {"operation", ParamKind::choice, "send_recv", "", "", "",
         "send_recv: two-sided ping-pong; put_pingpong: ping-pong of notified puts (each side waits for the other's "
         "put to land); put / get: one-sided operations timed to remote completion; ping_ack: a message and a "
         "zero-byte reply, timed as a round trip",
         "-", "send_recv|put_pingpong|put|get|ping_ack"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: pingpong)", "Latency over a size sweep between two ranks.", kSpecs};

class PingPong final : public Workload {
 public:
  explicit PingPong(const ParamReader& r) : p_(parse_fields(r, kFields)) { check_peer(r, p_.all_pairs); }

  int minimum_ranks() const override { return p_.all_pairs ? 2 : p_.peer + 1; }
  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    if (p_.all_pairs) check_pairs(job, where);
  }

  void start(rt::MessagingLayer& layer) override {
    latency_.assign(p_.sizes.size(), 0);
    core_time_.assign(p_.sizes.size(), {});
    pairs_ = p_.all_pairs ? layer.size() / 2 : 1;
    for (Rank p = 0; p < pairs_; ++p) {
      const Rank peer = p_.all_pairs ? p + pairs_ : p_.peer;
      layer.kernel().spawn(initiator(Comm(layer, p), peer));
      if (has_responder()) layer.kernel().spawn(responder(Comm(layer, peer), p));
    }
  }

  void finish(RunOutput& out) const override {
    auto& table = out.add_series("latency", {"size_bytes", "latency_us", "bandwidth_MBps"});
    const std::vector<Time> latency = mean_latency();
    for (std::size_t i = 0; i < p_.sizes.size(); ++i)
      table.add(
          {static_cast<double>(p_.sizes[i]), microseconds(latency[i]), megabytes_per_second(p_.sizes[i], latency[i])});
    add_breakdown(out, latency);
    out.metrics["smallest_size_latency_us"] = microseconds(latency.front());
    out.metrics["largest_size_latency_us"] = microseconds(latency.back());
    out.metrics["largest_size_bandwidth_MBps"] = megabytes_per_second(p_.sizes.back(), latency.back());
  }

 private:
  bool has_responder() const { return p_.operation != Operation::put && p_.operation != Operation::get; }

  Task<> one_round(Comm c, Rank peer, Bytes size) {
    if (p_.operation == Operation::put) co_return co_await c.put(peer, size);
    if (p_.operation == Operation::get) co_return co_await c.get(peer, size);
    if (p_.operation == Operation::put_pingpong) {
      co_await c.put_notify(peer, size);
      co_return co_await c.wait_notify(peer);
    }
    co_await c.send(peer, size);
    co_await c.recv(peer);
  }

  bool round_trip() const { return p_.operation == Operation::send_recv || p_.operation == Operation::put_pingpong; }
  // With all pairs two-sided, every size starts with a barrier of all ranks, so the pairs run
  // together (one-sided targets run no program, so they cannot join one).
  bool synchronised() const { return p_.all_pairs && round_trip(); }

  std::vector<Time> mean_latency() const {
    std::vector<Time> mean(latency_.size());
    for (std::size_t i = 0; i < latency_.size(); ++i) mean[i] = latency_[i] / pairs_;
    return mean;
  }

  // Each pair adds its own one-way time (finish() divides by the pairs); the first pair
  // records the breakdown.
  Task<> initiator(Comm c, Rank peer) {
    for (std::size_t i = 0; i < p_.sizes.size(); ++i) {
      if (synchronised()) co_await c.barrier();
      for (std::int64_t k = 0; k < p_.warmup; ++k) co_await one_round(c, peer, p_.sizes[i]);
      const Time begin = c.now();
      const rt::CpuCharge before = c.layer().cores().time_by_use();
      for (std::int64_t k = 0; k < p_.iterations; ++k) co_await one_round(c, peer, p_.sizes[i]);
      const std::int64_t messages = p_.iterations * (round_trip() ? 2 : 1) * pairs_;
      const Time per_round = (c.now() - begin) / p_.iterations;
      latency_[i] += round_trip() ? per_round / 2 : per_round;
      if (c.rank() != 0) continue;
      for (std::size_t u = 0; u < rt::kCpuUses; ++u)
        core_time_[i].parts[u] = (c.layer().cores().time_by_use().parts[u] - before.parts[u]) / messages;
    }
  }

  // Per one-way message: core time by use, and the rest of the latency ("wait").
  void add_breakdown(RunOutput& out, const std::vector<Time>& latency) const {
    std::vector<std::string> columns{"size_bytes", "latency_us"};
    for (std::size_t u = 0; u < rt::kCpuUses; ++u)
      columns.push_back(std::string(rt::cpu_use_name(static_cast<rt::CpuUse>(u))) + "_us");
    columns.push_back("wait_us");
    auto& table = out.add_series("latency_breakdown", std::move(columns));
    for (std::size_t i = 0; i < p_.sizes.size(); ++i) {
      std::vector<double> row{static_cast<double>(p_.sizes[i]), microseconds(latency[i])};
      for (const Time t : core_time_[i].parts) row.push_back(microseconds(t));
      row.push_back(microseconds(latency[i] - core_time_[i].total()));
      table.add(std::move(row));
    }
  }

  Task<> responder(Comm c, Rank initiator) {
    for (const Bytes size : p_.sizes) {
      if (synchronised()) co_await c.barrier();
      for (std::int64_t k = 0; k < p_.warmup + p_.iterations; ++k) {
        if (p_.operation == Operation::put_pingpong) {
          co_await c.wait_notify(initiator);
          co_await c.put_notify(initiator, size);
        } else {
          co_await c.recv(initiator);
          co_await c.send(initiator, p_.operation == Operation::ping_ack ? 0 : size);
        }
      }
    }
  }

  const PingPongParams p_;
  Rank pairs_ = 1;
  std::vector<Time> latency_;             // per size: summed over pairs
  std::vector<rt::CpuCharge> core_time_;  // per size, per one-way message
};

}  // namespace

const WorkloadEntry kPingPongWorkload{"pingpong", "two ranks bounce a message; one-way latency over a size sweep",
                                      &kParams, &make_from<PingPong>};

}  // namespace torsim::apps
