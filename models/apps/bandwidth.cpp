// Streaming bandwidth (after osu_bw / osu_bibw): the sender keeps a window of messages in
// flight, the receiver acknowledges each window with a zero-byte message. Bidirectional: both
// ranks stream to each other at once.
#include "models/apps/micro.hpp"

namespace torsim::apps {
namespace {

constexpr ParamSpec kSpecs[] = {
    {"name", ParamKind::text, kRequired, "", "", "", "workload name", "-"},
    {"sizes", ParamKind::size_list, R"({"from": "1B", "to": "4MiB", "factor": 4})", "B", "1B", "1GiB",
     "message sizes swept", "-"},
    {"window", ParamKind::integer, "64", "", "1", "100000", "messages in flight per window", "-"},
    {"iterations", ParamKind::integer, "10", "", "1", "10000000", "timed windows per size", "-"},
    {"warmup", ParamKind::integer, "1", "", "0", "10000000", "untimed windows before timing", "-"},
    {"peer", ParamKind::integer, "1", "", "1", "", "the receiving rank (rank 0 sends)", "-"},
    {"direction", ParamKind::choice, "uni", "", "", "", "uni: rank 0 streams to the peer; bi: both at once",
     "-", "uni|bi"},
};
const ParamTable kParams{"workload (name: bandwidth)", "Uni- or bidirectional streaming bandwidth.", kSpecs};

constexpr rt::Tag kData = 1;
constexpr rt::Tag kAck = 2;

class Bandwidth final : public Workload {
 public:
  explicit Bandwidth(const ParamReader& r)
      : sizes_(r.sizes("sizes")),
        window_(r.integer("window")),
        iterations_(r.integer("iterations")),
        warmup_(r.integer("warmup")),
        peer_(static_cast<Rank>(r.integer("peer"))),
        bidirectional_(r.text("direction") == "bi") {}

  int minimum_ranks() const override { return peer_ + 1; }

  void start(rt::MessagingLayer& layer) override {
    elapsed_.assign(sizes_.size(), 0);
    layer.kernel().spawn(stream(Comm(layer, 0), peer_, true));
    layer.kernel().spawn(stream(Comm(layer, peer_), 0, false));
  }

  void finish(RunOutput& out) const override {
    auto& table = out.add_series("bandwidth", {"size_bytes", "bandwidth_MBps"});
    const std::int64_t streams = bidirectional_ ? 2 : 1;
    double peak = 0;
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      const Bytes moved = sizes_[i] * window_ * iterations_ * streams;
      const double mbps = megabytes_per_second(moved, elapsed_[i]);
      table.add({static_cast<double>(sizes_[i]), mbps});
      peak = std::max(peak, mbps);
    }
    out.metrics["peak_bandwidth_MBps"] = peak;
  }

 private:
  // One window: post the receives, send the window, wait, then the acknowledgement.
  Task<> window(Comm c, Rank other, Bytes size, bool sends, bool receives) {
    std::vector<rt::Request> pending;
    if (receives)
      for (std::int64_t k = 0; k < window_; ++k) pending.push_back(c.irecv(other, kData));
    if (sends)
      for (std::int64_t k = 0; k < window_; ++k) pending.push_back(co_await c.isend(other, size, kData));
    co_await Comm::wait_all(pending);
    if (receives) co_await c.send(other, 0, kAck);
    if (sends) co_await c.recv(other, kAck);
  }

  Task<> stream(Comm c, Rank other, bool timer) {
    const bool sends = timer || bidirectional_;
    const bool receives = !timer || bidirectional_;
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      for (std::int64_t k = 0; k < warmup_; ++k) co_await window(c, other, sizes_[i], sends, receives);
      const Time begin = c.now();
      for (std::int64_t k = 0; k < iterations_; ++k) co_await window(c, other, sizes_[i], sends, receives);
      if (timer) elapsed_[i] = c.now() - begin;
    }
  }

  std::vector<Bytes> sizes_;
  std::int64_t window_, iterations_, warmup_;
  Rank peer_;
  bool bidirectional_;
  std::vector<Time> elapsed_;
};

}  // namespace

const WorkloadEntry kBandwidthWorkload{
    "bandwidth", "streaming bandwidth between two ranks, one or both directions", &kParams,
    &make_from<Bandwidth>};

}  // namespace torsim::apps
