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

constexpr ParamSpec kSpecs[] = {
    {"name", ParamKind::text, kRequired, "", "", "", "workload name", "-"},
    {"sizes", ParamKind::size_list, R"({"from": "8B", "to": "1MiB", "factor": 2})", "B", "0B", "1GiB",
     "message sizes swept: a list, or {\"from\", \"to\", \"factor\"}", "-"},
    {"iterations", ParamKind::integer, "20", "", "1", "10000000", "timed round trips per size", "-"},
    {"warmup", ParamKind::integer, "2", "", "0", "10000000", "untimed round trips before timing", "-"},
    {"peer", ParamKind::integer, "1", "", "1", "", "the rank that answers rank 0 (pairs: one)", "-"},
    {"pairs", ParamKind::choice, "one", "", "", "",
     "one: rank 0 and the peer; all: rank i and rank i + n/2 for every i < n/2, at once", "-", "one|all"},
    {"operation", ParamKind::choice, "send_recv", "", "", "",
     "send_recv: two-sided ping-pong; put_pingpong: ping-pong of notified puts (each side waits for the other's "
     "put to land); put / get: one-sided operations timed to remote completion; ping_ack: a message and a "
     "zero-byte reply, timed as a round trip",
     "-", "send_recv|put_pingpong|put|get|ping_ack"},
};
const ParamTable kParams{"workload (name: pingpong)", "Latency over a size sweep between two ranks.", kSpecs};

class PingPong final : public Workload {
 public:
  explicit PingPong(const ParamReader& r)
      : sizes_(r.sizes("sizes")),
        iterations_(r.integer("iterations")),
        warmup_(r.integer("warmup")),
        peer_(static_cast<Rank>(r.integer("peer"))),
        all_pairs_(all_pairs(r)),
        operation_(r.text("operation")) {}

  int minimum_ranks() const override { return all_pairs_ ? 2 : peer_ + 1; }
  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    if (all_pairs_) check_pairs(job, where);
  }

  void start(rt::MessagingLayer& layer) override {
    latency_.assign(sizes_.size(), 0);
    core_time_.assign(sizes_.size(), {});
    pairs_ = all_pairs_ ? layer.size() / 2 : 1;
    for (Rank p = 0; p < pairs_; ++p) {
      const Rank peer = all_pairs_ ? p + pairs_ : peer_;
      layer.kernel().spawn(initiator(Comm(layer, p), peer));
      if (has_responder()) layer.kernel().spawn(responder(Comm(layer, peer), p));
    }
  }

  void finish(RunOutput& out) const override {
    auto& table = out.add_series("latency", {"size_bytes", "latency_us", "bandwidth_MBps"});
    const std::vector<Time> latency = mean_latency();
    for (std::size_t i = 0; i < sizes_.size(); ++i)
      table.add(
          {static_cast<double>(sizes_[i]), microseconds(latency[i]), megabytes_per_second(sizes_[i], latency[i])});
    add_breakdown(out, latency);
    out.metrics["smallest_size_latency_us"] = microseconds(latency.front());
    out.metrics["largest_size_latency_us"] = microseconds(latency.back());
    out.metrics["largest_size_bandwidth_MBps"] = megabytes_per_second(sizes_.back(), latency.back());
  }

 private:
  bool has_responder() const { return operation_ != "put" && operation_ != "get"; }

  Task<> one_round(Comm c, Rank peer, Bytes size) {
    if (operation_ == "put") co_return co_await c.put(peer, size);
    if (operation_ == "get") co_return co_await c.get(peer, size);
    if (operation_ == "put_pingpong") {
      co_await c.put_notify(peer, size);
      co_return co_await c.wait_notify(peer);
    }
    co_await c.send(peer, size);
    co_await c.recv(peer);
  }

  bool round_trip() const { return operation_ == "send_recv" || operation_ == "put_pingpong"; }
  // With all pairs two-sided, every size starts with a barrier of all ranks, so the pairs run
  // together (one-sided targets run no program, so they cannot join one).
  bool synchronised() const { return all_pairs_ && round_trip(); }

  std::vector<Time> mean_latency() const {
    std::vector<Time> mean(latency_.size());
    for (std::size_t i = 0; i < latency_.size(); ++i) mean[i] = latency_[i] / pairs_;
    return mean;
  }

  // Each pair adds its own one-way time (finish() divides by the pairs); the first pair
  // records the breakdown.
  Task<> initiator(Comm c, Rank peer) {
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      if (synchronised()) co_await c.barrier();
      for (std::int64_t k = 0; k < warmup_; ++k) co_await one_round(c, peer, sizes_[i]);
      const Time begin = c.now();
      const rt::CpuCharge before = c.layer().cores().time_by_use();
      for (std::int64_t k = 0; k < iterations_; ++k) co_await one_round(c, peer, sizes_[i]);
      const std::int64_t messages = iterations_ * (round_trip() ? 2 : 1) * pairs_;
      const Time per_round = (c.now() - begin) / iterations_;
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
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      std::vector<double> row{static_cast<double>(sizes_[i]), microseconds(latency[i])};
      for (const Time t : core_time_[i].parts) row.push_back(microseconds(t));
      row.push_back(microseconds(latency[i] - core_time_[i].total()));
      table.add(std::move(row));
    }
  }

  Task<> responder(Comm c, Rank initiator) {
    for (const Bytes size : sizes_) {
      if (synchronised()) co_await c.barrier();
      for (std::int64_t k = 0; k < warmup_ + iterations_; ++k) {
        if (operation_ == "put_pingpong") {
          co_await c.wait_notify(initiator);
          co_await c.put_notify(initiator, size);
        } else {
          co_await c.recv(initiator);
          co_await c.send(initiator, operation_ == "ping_ack" ? 0 : size);
        }
      }
    }
  }

  std::vector<Bytes> sizes_;
  std::int64_t iterations_, warmup_;
  Rank peer_;
  bool all_pairs_;
  std::string operation_;
  Rank pairs_ = 1;
  std::vector<Time> latency_;             // per size: summed over pairs
  std::vector<rt::CpuCharge> core_time_;  // per size, per one-way message
};

}  // namespace

const WorkloadEntry kPingPongWorkload{"pingpong", "two ranks bounce a message; one-way latency over a size sweep",
                                      &kParams, &make_from<PingPong>};

}  // namespace torsim::apps
