// Streaming bandwidth (after osu_bw / osu_bibw): the sender keeps a window of messages in
// flight, the receiver acknowledges each window with a zero-byte message. Bidirectional: both
// ranks stream to each other at once. With "pairs": "all", every rank of the job's first half
// streams to its counterpart in the second half at once: the bandwidth is the mean per pair,
// and the aggregate (all pairs' bytes over the slowest pair's time) is added; a barrier of all
// ranks starts each size's timing, so the pairs run together.

#include "models/apps/micro.hpp"

namespace torsim::apps {
namespace {

constexpr ChoiceName<bool> kBidirectionalNames[] = {{"uni", false}, {"bi", true}};

struct BandwidthParams {
  std::vector<Bytes> sizes;
  std::int64_t window = 0, iterations = 0, warmup = 0;
  Rank peer = 0;
  bool all_pairs = false;
  bool bidirectional = false;
};
using P = BandwidthParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind<&P::sizes>({"sizes", ParamKind::size_list, R"({"from": "1B", "to": "4MiB", "factor": 4})", "B", "1B", "1GiB",
                     "message sizes swept", "-"}),
    bind<&P::window>({"window", ParamKind::integer, "64", "", "1", "100000", "messages in flight per window", "-"}),
    bind<&P::iterations>({"iterations", ParamKind::integer, "10", "", "1", "10000000", "timed windows per size", "-"}),
    bind<&P::warmup>({"warmup", ParamKind::integer, "1", "", "0", "10000000", "untimed windows before timing", "-"}),
    bind<&P::peer>(
        {"peer", ParamKind::integer, "1", "", "1", "", "the receiving rank (rank 0 sends; pairs: one)", "-"}),
    bind_choice<&P::all_pairs, kPairsNames>(
        {"pairs", ParamKind::choice, "one", "", "", "",
         "one: rank 0 and the peer; all: rank i and rank i + n/2 for every i < n/2, at once", "-", "one|all"}),
    bind_choice<&P::bidirectional, kBidirectionalNames>({"direction", ParamKind::choice, "uni", "", "", "",
                                                         "uni: rank 0 streams to the peer; bi: both at once", "-",
                                                         "uni|bi"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: bandwidth)", "Uni- or bidirectional streaming bandwidth.", kSpecs};

constexpr rt::Tag kData = 1;
constexpr rt::Tag kAck = 2;

class Bandwidth final : public Workload {
 public:
  explicit Bandwidth(const ParamReader& r) : p_(parse_fields(r, kFields)) { check_peer(r, p_.all_pairs); }

  int minimum_ranks() const override { return p_.all_pairs ? 2 : p_.peer + 1; }
  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    if (p_.all_pairs) check_pairs(job, where);
  }

  void start(rt::MessagingLayer& layer) override {
    pairs_ = p_.all_pairs ? layer.size() / 2 : 1;
    elapsed_.assign(p_.sizes.size() * static_cast<std::size_t>(pairs_), 0);
    for (Rank p = 0; p < pairs_; ++p) {
      const Rank peer = p_.all_pairs ? p + pairs_ : p_.peer;
      layer.kernel().spawn(stream(Comm(layer, p), peer, p));
      layer.kernel().spawn(stream(Comm(layer, peer), p, -1));
    }
  }

  void finish(RunOutput& out) const override {
    std::vector<std::string> columns{"size_bytes", "bandwidth_MBps"};
    if (p_.all_pairs) columns.push_back("aggregate_MBps");
    auto& table = out.add_series("bandwidth", columns);
    const std::int64_t streams = p_.bidirectional ? 2 : 1;
    double peak = 0;
    for (std::size_t i = 0; i < p_.sizes.size(); ++i) {
      const Bytes moved = p_.sizes[i] * p_.window * p_.iterations * streams;
      double sum = 0;
      Time slowest = 0;
      for (Rank p = 0; p < pairs_; ++p) {
        const Time t = elapsed_[i * static_cast<std::size_t>(pairs_) + static_cast<std::size_t>(p)];
        sum += megabytes_per_second(moved, t);
        slowest = std::max(slowest, t);
      }
      const double mbps = sum / static_cast<double>(pairs_);
      std::vector<double> row{static_cast<double>(p_.sizes[i]), mbps};
      if (p_.all_pairs) row.push_back(megabytes_per_second(moved * pairs_, slowest));
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
      for (std::int64_t k = 0; k < p_.window; ++k) pending.push_back(c.irecv(other, kData));
    if (sends)
      for (std::int64_t k = 0; k < p_.window; ++k) pending.push_back(co_await c.isend(other, size, kData));
    co_await Comm::wait_all(pending);
    if (receives) co_await c.send(other, 0, kAck);
    if (sends) co_await c.recv(other, kAck);
  }

  // `pair` >= 0: the pair's timing side (its elapsed time is recorded); -1: the other side.
  Task<> stream(Comm c, Rank other, Rank pair) {
    const bool timer = pair >= 0;
    const bool sends = timer || p_.bidirectional;
    const bool receives = !timer || p_.bidirectional;
    for (std::size_t i = 0; i < p_.sizes.size(); ++i) {
      for (std::int64_t k = 0; k < p_.warmup; ++k) co_await window(c, other, p_.sizes[i], sends, receives);
      if (p_.all_pairs) co_await c.barrier();  // all pairs start timing together (as osu_mbw_mr)
      const Time begin = c.now();
      for (std::int64_t k = 0; k < p_.iterations; ++k) co_await window(c, other, p_.sizes[i], sends, receives);
      if (timer) elapsed_[i * static_cast<std::size_t>(pairs_) + static_cast<std::size_t>(pair)] = c.now() - begin;
    }
  }

  const BandwidthParams p_;
  Rank pairs_ = 1;
  std::vector<Time> elapsed_;  // per size and pair
};

}  // namespace

const WorkloadEntry kBandwidthWorkload{"bandwidth", "streaming bandwidth between two ranks, one or both directions",
                                       &kParams, &make_from<Bandwidth>};

}  // namespace torsim::apps
