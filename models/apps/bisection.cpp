// Effective bisection bandwidth as Hoefler, Schneider and Lumsdaine measured it ("Multistage
// switches are not crossbars: effects of static routing in high-performance networks",
// Cluster 2008): the ranks are split at random into two halves and paired across them; every
// pair exchanges `size` bytes both ways at once, `messages` times, and a rank's bandwidth is
// what it sent over the time its exchange took. Over `pairings` random bisections, the mean
// per rank is the effective bisection bandwidth; it is also given relative to one pair
// exchanging alone (the first round). Rounds do not overlap: one starts when the last
// exchange of the previous one is done.
#include <memory>
#include <numeric>

#include "models/apps/micro.hpp"
#include "sim/core/random.hpp"

namespace torsim::apps {
namespace {

struct BisectionParams {
  Bytes size = 0;
  std::int64_t messages = 0;
  std::int64_t pairings = 0;
};
using P = BisectionParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind<&P::size>({"size", ParamKind::size, "1MiB", "B", "1B", "1GiB", "message size", "-"}),
    bind<&P::messages>(
        {"messages", ParamKind::integer, "4", "", "1", "1000000", "messages each way per pair and round", "-"}),
    bind<&P::pairings>({"pairings", ParamKind::integer, "20", "", "1", "100000", "random bisections measured", "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: bisection)",
                         "Effective bisection bandwidth: random bisections, pairs exchanging across them.", kSpecs};

class Bisection final : public Workload {
 public:
  explicit Bisection(const ParamReader& r) : p_(parse_fields(r, kFields)) {}

  int minimum_ranks() const override { return 2; }

  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    if (job.size() % 2 != 0)
      where.fail("bisection pairs the ranks: it needs an even number of ranks; the job has " +
                 std::to_string(job.size()));
  }

  void start(rt::MessagingLayer& layer) override { layer.kernel().spawn(rounds(layer)); }

  void finish(RunOutput& out) const override {
    auto& table = out.add_series("pairings", {"pairing", "mean_MBps", "min_MBps"});
    double sum = 0, lowest = 0;
    for (std::size_t k = 0; k < mean_.size(); ++k) {
      table.add({static_cast<double>(k + 1), mean_[k], min_[k]});
      sum += mean_[k];
      lowest = k == 0 ? min_[k] : std::min(lowest, min_[k]);
    }
    const double mean = mean_.empty() ? 0.0 : sum / static_cast<double>(mean_.size());
    out.metrics["lone_pair_MBps"] = lone_;
    out.metrics["effective_bisection_MBps"] = mean;
    out.metrics["effective_bisection_fraction"] = lone_ > 0 ? mean / lone_ : 0.0;
    out.metrics["min_pair_MBps"] = lowest;
  }

 private:
  struct Round {
    int left;
    Signal done;
    std::vector<double> bandwidth;  // per rank that took part
  };

  Task<> rounds(rt::MessagingLayer& layer) {
    const int n = layer.size();
    std::vector<Rank> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    Rng rng = layer.job().rng(2);
    for (std::int64_t k = 0; k <= p_.pairings; ++k) {
      if (k > 0) rng.shuffle(order);
      // Round 0: ranks 0 and 1 alone; then every rank of the first half with one of the second.
      const int pairs = k == 0 ? 1 : n / 2;
      Round round{2 * pairs, Signal(layer.kernel()), {}};
      for (int i = 0; i < pairs; ++i) {
        const Rank a = k == 0 ? 0 : order[static_cast<std::size_t>(i)];
        const Rank b = k == 0 ? 1 : order[static_cast<std::size_t>(i + n / 2)];
        layer.kernel().spawn(exchange(Comm(layer, a), b, static_cast<rt::Tag>(k), round));
        layer.kernel().spawn(exchange(Comm(layer, b), a, static_cast<rt::Tag>(k), round));
      }
      co_await round.done;
      record(k, round.bandwidth);
    }
  }

  Task<> exchange(Comm c, Rank partner, rt::Tag tag, Round& round) {
    const Time begin = c.now();
    for (std::int64_t m = 0; m < p_.messages; ++m) {
      rt::Request in = c.irecv(partner, tag);
      rt::Request out = co_await c.isend(partner, p_.size, tag);
      co_await in;
      co_await out;
    }
    round.bandwidth.push_back(megabytes_per_second(p_.size * p_.messages, c.now() - begin));
    if (--round.left == 0) round.done.fire();
  }

  void record(std::int64_t k, const std::vector<double>& bandwidth) {
    const double sum = std::accumulate(bandwidth.begin(), bandwidth.end(), 0.0);
    const double mean = sum / static_cast<double>(bandwidth.size());
    if (k == 0) {
      lone_ = mean;
      return;
    }
    mean_.push_back(mean);
    min_.push_back(*std::min_element(bandwidth.begin(), bandwidth.end()));
  }

  const BisectionParams p_;
  double lone_ = 0;
  std::vector<double> mean_, min_;
};

}  // namespace

const WorkloadEntry kBisectionWorkload{"bisection",
                                       "effective bisection bandwidth over random bisections (Hoefler et al. 2008)",
                                       &kParams, &make_from<Bisection>};

}  // namespace torsim::apps
