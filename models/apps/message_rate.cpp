// Message rate (after osu_mbw_mr): `pairs` senders (ranks 0..pairs-1) each stream windows of
// messages to a receiver (ranks pairs..2*pairs-1); the rate is messages per second overall.
#include "models/apps/micro.hpp"

namespace torsim::apps {
namespace {

struct MessageRateParams {
  std::vector<Bytes> sizes;
  int pairs = 0;
  std::int64_t window = 0;
  std::int64_t iterations = 0;
};
using P = MessageRateParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind<&P::sizes>({"sizes", ParamKind::size_list, "[\"8B\"]", "B", "0B", "1GiB", "message sizes swept", "-"}),
    bind<&P::pairs>({"pairs", ParamKind::integer, "1", "", "1", "", "sender/receiver pairs", "-"}),
    bind<&P::window>({"window", ParamKind::integer, "64", "", "1", "100000", "messages per window", "-"}),
    bind<&P::iterations>({"iterations", ParamKind::integer, "20", "", "1", "10000000", "timed windows per size", "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: message_rate)", "Messages per second between rank pairs.", kSpecs};

constexpr rt::Tag kData = 1;
constexpr rt::Tag kAck = 2;

class MessageRate final : public Workload {
 public:
  explicit MessageRate(const ParamReader& r) : p_(parse_fields(r, kFields)) {}

  int minimum_ranks() const override { return 2 * p_.pairs; }

  void start(rt::MessagingLayer& layer) override {
    elapsed_.assign(p_.sizes.size(), 0);
    for (Rank p = 0; p < p_.pairs; ++p) {
      layer.kernel().spawn(sender(Comm(layer, p), p_.pairs + p));
      layer.kernel().spawn(receiver(Comm(layer, p_.pairs + p), p));
    }
  }

  void finish(RunOutput& out) const override {
    auto& table = out.add_series("message_rate", {"size_bytes", "million_messages_per_s"});
    double best = 0;
    for (std::size_t i = 0; i < p_.sizes.size(); ++i) {
      const double messages = static_cast<double>(p_.pairs * p_.window * p_.iterations);
      const double rate = elapsed_[i] > 0 ? messages / to_seconds(elapsed_[i]) / 1e6 : 0;
      table.add({static_cast<double>(p_.sizes[i]), rate});
      best = std::max(best, rate);
    }
    out.metrics["peak_million_messages_per_s"] = best;
  }

 private:
  Task<> sender(Comm c, Rank to) {
    for (std::size_t i = 0; i < p_.sizes.size(); ++i) {
      const Time begin = c.now();
      for (std::int64_t k = 0; k < p_.iterations; ++k) {
        std::vector<rt::Request> pending;
        for (std::int64_t m = 0; m < p_.window; ++m) pending.push_back(co_await c.isend(to, p_.sizes[i], kData));
        co_await Comm::wait_all(pending);
        co_await c.recv(to, kAck);
      }
      // The slowest pair defines the aggregate rate.
      elapsed_[i] = std::max(elapsed_[i], c.now() - begin);
    }
  }

  Task<> receiver(Comm c, Rank from) {
    for (std::size_t i = 0; i < p_.sizes.size(); ++i) {
      for (std::int64_t k = 0; k < p_.iterations; ++k) {
        std::vector<rt::Request> pending;
        for (std::int64_t m = 0; m < p_.window; ++m) pending.push_back(c.irecv(from, kData));
        co_await Comm::wait_all(pending);
        co_await c.send(from, 0, kAck);
      }
    }
  }

  const MessageRateParams p_;
  std::vector<Time> elapsed_;
};

}  // namespace

const WorkloadEntry kMessageRateWorkload{"message_rate", "messages per second from sender ranks to receiver ranks",
                                         &kParams, &make_from<MessageRate>};

}  // namespace torsim::apps
