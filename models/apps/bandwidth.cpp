// Streaming bandwidth (after osu_bw / osu_bibw): the sender keeps a window of messages in
// flight, the receiver acknowledges each window with a zero-byte message. Bidirectional: both
// ranks stream to each other at once. With "pairs": "all", every rank of the job's first half
// streams to its counterpart in the second half at once: the bandwidth is the mean per pair,
// and the aggregate (all pairs' bytes over the slowest pair's time) is added; a barrier of all
// ranks starts each size's timing, so the pairs run together.

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
    {"peer", ParamKind::integer, "1", "", "1", "", "the receiving rank (rank 0 sends; pairs: one)", "-"},
    {"pairs", ParamKind::choice, "one", "", "", "",
     "one: rank 0 and the peer; all: rank i and rank i + n/2 for every i < n/2, at once", "-", "one|all"},
    {"direction", ParamKind::choice, "uni", "", "", "", "uni: rank 0 streams to the peer; bi: both at once", "-",
     "uni|bi"},
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
        all_pairs_(all_pairs(r)),
        bidirectional_(r.choice<bool>("direction", {{"uni", false}, {"bi", true}})) {}

  int minimum_ranks() const override { return all_pairs_ ? 2 : peer_ + 1; }
  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    if (all_pairs_) check_pairs(job, where);
  }

  void start(rt::MessagingLayer& layer) override {
    pairs_ = all_pairs_ ? layer.size() / 2 : 1;
    elapsed_.assign(sizes_.size() * static_cast<std::size_t>(pairs_), 0);
    for (Rank p = 0; p < pairs_; ++p) {
      const Rank peer = all_pairs_ ? p + pairs_ : peer_;
      layer.kernel().spawn(stream(Comm(layer, p), peer, p));
      layer.kernel().spawn(stream(Comm(layer, peer), p, -1));
    }
  }

  void finish(RunOutput& out) const override {
    std::vector<std::string> columns{"size_bytes", "bandwidth_MBps"};
    if (all_pairs_) columns.push_back("aggregate_MBps");
    auto& table = out.add_series("bandwidth", columns);
    const std::int64_t streams = bidirectional_ ? 2 : 1;
    double peak = 0;
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      const Bytes moved = sizes_[i] * window_ * iterations_ * streams;
      double sum = 0;
      Time slowest = 0;
      for (Rank p = 0; p < pairs_; ++p) {
        const Time t = elapsed_[i * static_cast<std::size_t>(pairs_) + static_cast<std::size_t>(p)];
        sum += megabytes_per_second(moved, t);
        slowest = std::max(slowest, t);
      }
      const double mbps = sum / static_cast<double>(pairs_);
      std::vector<double> row{static_cast<double>(sizes_[i]), mbps};
      if (all_pairs_) row.push_back(megabytes_per_second(moved * pairs_, slowest));
      table.add(row);
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

  // `pair` >= 0: the pair's timing side (its elapsed time is recorded); -1: the other side.
  Task<> stream(Comm c, Rank other, Rank pair) {
    const bool timer = pair >= 0;
    const bool sends = timer || bidirectional_;
    const bool receives = !timer || bidirectional_;
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      for (std::int64_t k = 0; k < warmup_; ++k) co_await window(c, other, sizes_[i], sends, receives);
      if (all_pairs_) co_await c.barrier();  // all pairs start timing together (as osu_mbw_mr)
      const Time begin = c.now();
      for (std::int64_t k = 0; k < iterations_; ++k) co_await window(c, other, sizes_[i], sends, receives);
      if (timer) elapsed_[i * static_cast<std::size_t>(pairs_) + static_cast<std::size_t>(pair)] = c.now() - begin;
    }
  }

  std::vector<Bytes> sizes_;
  std::int64_t window_, iterations_, warmup_;
  Rank peer_;
  bool all_pairs_;
  bool bidirectional_;
  Rank pairs_ = 1;
  std::vector<Time> elapsed_;  // per size and pair
};

}  // namespace

const WorkloadEntry kBandwidthWorkload{"bandwidth", "streaming bandwidth between two ranks, one or both directions",
                                       &kParams, &make_from<Bandwidth>};

}  // namespace torsim::apps
