// Ping-pong: rank 0 and a peer bounce one message back and forth; one-way latency is half
// the round trip. With operation "put" or "get", rank 0 times one-sided operations to the
// peer until remote completion instead; with "ping_ack", a message and a zero-byte reply, the
// whole round trip (the way GASNet's and MPI's latencies were compared on Blue Gene/P). Each
// size's latency is also broken down by what the cores spent on it (compute, send, receive,
// match, copy, poll, registration, scheduler; both ranks' time during the timed loop, per
// one-way message) and the rest, "wait": the wire and whatever no core was working on.
#include <memory>

#include "models/apps/micro.hpp"

namespace torsim::apps {
namespace {

constexpr ParamSpec kSpecs[] = {
    {"name", ParamKind::text, kRequired, "", "", "", "workload name", "-"},
    {"sizes", ParamKind::size_list, R"({"from": "8B", "to": "1MiB", "factor": 2})", "B", "0B", "1GiB",
     "message sizes swept: a list, or {\"from\", \"to\", \"factor\"}", "-"},
    {"iterations", ParamKind::integer, "20", "", "1", "10000000", "timed round trips per size", "-"},
    {"warmup", ParamKind::integer, "2", "", "0", "10000000", "untimed round trips before timing", "-"},
    {"peer", ParamKind::integer, "1", "", "1", "", "the rank that answers rank 0", "-"},
    {"operation", ParamKind::choice, "send_recv", "", "", "",
     "send_recv: two-sided ping-pong; put_pingpong: ping-pong of notified puts (each side waits for the other's "
     "put to land); put / get: one-sided operations timed to remote completion; ping_ack: a message and a "
     "zero-byte reply, timed as a round trip", "-", "send_recv|put_pingpong|put|get|ping_ack"},
};
const ParamTable kParams{"workload (name: pingpong)", "Latency over a size sweep between two ranks.", kSpecs};

class PingPong final : public Workload {
 public:
  explicit PingPong(const ParamReader& r)
      : sizes_(r.sizes("sizes")),
        iterations_(r.integer("iterations")),
        warmup_(r.integer("warmup")),
        peer_(static_cast<Rank>(r.integer("peer"))),
        operation_(r.text("operation")) {}

  int minimum_ranks() const override { return peer_ + 1; }

  void start(rt::MessagingLayer& layer) override {
    latency_.assign(sizes_.size(), 0);
    core_time_.assign(sizes_.size(), {});
    layer.kernel().spawn(initiator(Comm(layer, 0)));
    if (has_responder()) layer.kernel().spawn(responder(Comm(layer, peer_)));
  }

  void finish(RunOutput& out) const override {
    auto& table = out.add_series("latency", {"size_bytes", "latency_us", "bandwidth_MBps"});
    for (std::size_t i = 0; i < sizes_.size(); ++i)
      table.add({static_cast<double>(sizes_[i]), microseconds(latency_[i]),
                 megabytes_per_second(sizes_[i], latency_[i])});
    add_breakdown(out);
    out.metrics["smallest_size_latency_us"] = microseconds(latency_.front());
    out.metrics["largest_size_latency_us"] = microseconds(latency_.back());
    out.metrics["largest_size_bandwidth_MBps"] = megabytes_per_second(sizes_.back(), latency_.back());
  }

 private:
  bool has_responder() const { return operation_ != "put" && operation_ != "get"; }

  Task<> one_round(Comm c, Bytes size) {
    if (operation_ == "put") co_return co_await c.put(peer_, size);
    if (operation_ == "get") co_return co_await c.get(peer_, size);
    if (operation_ == "put_pingpong") {
      co_await c.put_notify(peer_, size);
      co_return co_await c.wait_notify(peer_);
    }
    co_await c.send(peer_, size);
    co_await c.recv(peer_);
  }

  bool round_trip() const { return operation_ == "send_recv" || operation_ == "put_pingpong"; }

  Task<> initiator(Comm c) {
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      for (std::int64_t k = 0; k < warmup_; ++k) co_await one_round(c, sizes_[i]);
      const Time begin = c.now();
      const rt::CpuCharge before = c.layer().cpu_time_by_use();
      for (std::int64_t k = 0; k < iterations_; ++k) co_await one_round(c, sizes_[i]);
      const std::int64_t messages = iterations_ * (round_trip() ? 2 : 1);
      const Time per_round = (c.now() - begin) / iterations_;
      latency_[i] = round_trip() ? per_round / 2 : per_round;
      for (std::size_t u = 0; u < rt::kCpuUses; ++u)
        core_time_[i].parts[u] = (c.layer().cpu_time_by_use().parts[u] - before.parts[u]) / messages;
    }
  }

  // Per one-way message: core time by use, and the rest of the latency ("wait").
  void add_breakdown(RunOutput& out) const {
    std::vector<std::string> columns{"size_bytes", "latency_us"};
    for (std::size_t u = 0; u < rt::kCpuUses; ++u)
      columns.push_back(std::string(rt::cpu_use_name(static_cast<rt::CpuUse>(u))) + "_us");
    columns.push_back("wait_us");
    auto& table = out.add_series("latency_breakdown", std::move(columns));
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      std::vector<double> row{static_cast<double>(sizes_[i]), microseconds(latency_[i])};
      for (const Time t : core_time_[i].parts) row.push_back(microseconds(t));
      row.push_back(microseconds(latency_[i] - core_time_[i].total()));
      table.add(std::move(row));
    }
  }

  Task<> responder(Comm c) {
    for (const Bytes size : sizes_) {
      for (std::int64_t k = 0; k < warmup_ + iterations_; ++k) {
        if (operation_ == "put_pingpong") {
          co_await c.wait_notify(0);
          co_await c.put_notify(0, size);
        } else {
          co_await c.recv(0);
          co_await c.send(0, operation_ == "ping_ack" ? 0 : size);
        }
      }
    }
  }

  std::vector<Bytes> sizes_;
  std::int64_t iterations_, warmup_;
  Rank peer_;
  std::string operation_;
  std::vector<Time> latency_;
  std::vector<rt::CpuCharge> core_time_;  // per size, per one-way message
};

}  // namespace

const WorkloadEntry kPingPongWorkload{
    "pingpong", "two ranks bounce a message; one-way latency over a size sweep", &kParams,
    [](const ParamReader& r) -> std::unique_ptr<Workload> { return std::make_unique<PingPong>(r); }};

}  // namespace torsim::apps
