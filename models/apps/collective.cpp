// Collective: every rank runs `iterations` broadcasts (from rank 0), allreduces or gathers (to
// rank 0) of `size` back to back, with the messaging layer's algorithms. Reports the time until
// the last rank is done, and per operation (a gather also the bytes the root collects per
// second); and, where the layer has an analytical model of its collectives,
// the model's time for one operation (model_us). Small on purpose: the cross-check of the
// network models runs it.
#include <algorithm>
#include <optional>

#include "models/apps/micro.hpp"

namespace torsim::apps {
namespace {

constexpr ChoiceName<rt::CollectiveOp> kOperationNames[] = {{"bcast", rt::CollectiveOp::bcast},
                                                            {"allreduce", rt::CollectiveOp::allreduce},
                                                            {"gather", rt::CollectiveOp::gather}};

struct CollectiveParams {
  rt::CollectiveOp operation{};
  Bytes size = 0;
  std::int64_t iterations = 0;
};
using P = CollectiveParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind_choice<&P::operation, kOperationNames>(
        {"operation", ParamKind::choice, "allreduce", "", "", "",
         "bcast: from rank 0 (binomial tree by default); allreduce: recursive doubling by default; gather: to rank 0 "
         "(binomial tree by default)",
         "-", "bcast|allreduce|gather"}),
    bind<&P::size>(
        {"size", ParamKind::size, "64KiB", "B", "0B", "1GiB", "bytes broadcast, reduced or gathered per rank", "-"}),
    bind<&P::iterations>(
        {"iterations", ParamKind::integer, "1", "", "1", "1000000", "operations run back to back", "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: collective)",
                         "Back-to-back broadcasts, allreduces or gathers over all ranks.", kSpecs};

class Collective final : public Workload {
 public:
  explicit Collective(const ParamReader& r) : p_(parse_fields(r, kFields)) {}

  int minimum_ranks() const override { return 2; }

  void start(rt::MessagingLayer& layer) override {
    predicted_ = layer.collectives().predicted(p_.operation, layer.size(), p_.size);
    spawn_all(layer, [this](Comm c) { return rank(c); });
  }

  void finish(RunOutput& out) const override {
    out.metrics["completion_time_us"] = microseconds(last_done_);
    out.metrics["per_operation_us"] = microseconds(last_done_) / static_cast<double>(p_.iterations);
    out.metrics["ranks_done"] = static_cast<double>(ranks_done_);
    if (predicted_) out.metrics["model_us"] = microseconds(*predicted_);
    if (p_.operation == rt::CollectiveOp::gather)
      out.metrics["gathered_MBps"] = megabytes_per_second(p_.size * ranks_done_ * p_.iterations, last_done_);
  }

 private:
  Task<> rank(Comm c) {
    for (std::int64_t i = 0; i < p_.iterations; ++i) {
      if (p_.operation == rt::CollectiveOp::bcast)
        co_await c.bcast(0, p_.size);
      else if (p_.operation == rt::CollectiveOp::gather)
        co_await c.gather(0, p_.size);
      else
        co_await c.allreduce(p_.size);
    }
    last_done_ = std::max(last_done_, c.now());
    ++ranks_done_;
  }

  const CollectiveParams p_;
  Time last_done_ = 0;
  std::int64_t ranks_done_ = 0;
  std::optional<Time> predicted_;
};

}  // namespace

const WorkloadEntry kCollectiveWorkload{"collective", "back-to-back broadcasts, allreduces or gathers", &kParams,
                                        &make_from<Collective>};

}  // namespace torsim::apps
