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

constexpr ParamSpec kSpecs[] = {
    {"name", ParamKind::text, kRequired, "", "", "", "workload name", "-"},
    {"operation", ParamKind::choice, "allreduce", "", "", "",
     "bcast: from rank 0 (binomial tree by default); allreduce: recursive doubling by default; gather: to rank 0 "
     "(binomial tree by default)",
     "-", "bcast|allreduce|gather"},
    {"size", ParamKind::size, "64KiB", "B", "0B", "1GiB", "bytes broadcast, reduced or gathered per rank", "-"},
    {"iterations", ParamKind::integer, "1", "", "1", "1000000", "operations run back to back", "-"},
};
const ParamTable kParams{"workload (name: collective)",
                         "Back-to-back broadcasts, allreduces or gathers over all ranks.", kSpecs};

class Collective final : public Workload {
 public:
  explicit Collective(const ParamReader& r)
      : operation_(r.choice<rt::CollectiveOp>("operation", {{"bcast", rt::CollectiveOp::bcast},
                                                            {"allreduce", rt::CollectiveOp::allreduce},
                                                            {"gather", rt::CollectiveOp::gather}})),
        size_(r.size("size")),
        iterations_(r.integer("iterations")) {}

  int minimum_ranks() const override { return 2; }

  void start(rt::MessagingLayer& layer) override {
    predicted_ = layer.collectives().predicted(operation_, layer.size(), size_);
    spawn_all(layer, [this](Comm c) { return rank(c); });
  }

  void finish(RunOutput& out) const override {
    out.metrics["completion_time_us"] = microseconds(last_done_);
    out.metrics["per_operation_us"] = microseconds(last_done_) / static_cast<double>(iterations_);
    out.metrics["ranks_done"] = static_cast<double>(ranks_done_);
    if (predicted_) out.metrics["model_us"] = microseconds(*predicted_);
    if (operation_ == rt::CollectiveOp::gather)
      out.metrics["gathered_MBps"] = megabytes_per_second(size_ * ranks_done_ * iterations_, last_done_);
  }

 private:
  Task<> rank(Comm c) {
    for (std::int64_t i = 0; i < iterations_; ++i) {
      if (operation_ == rt::CollectiveOp::bcast)
        co_await c.bcast(0, size_);
      else if (operation_ == rt::CollectiveOp::gather)
        co_await c.gather(0, size_);
      else
        co_await c.allreduce(size_);
    }
    last_done_ = std::max(last_done_, c.now());
    ++ranks_done_;
  }

  rt::CollectiveOp operation_;
  Bytes size_;
  std::int64_t iterations_;
  Time last_done_ = 0;
  std::int64_t ranks_done_ = 0;
  std::optional<Time> predicted_;
};

}  // namespace

const WorkloadEntry kCollectiveWorkload{"collective", "back-to-back broadcasts, allreduces or gathers", &kParams,
                                        &make_from<Collective>};

}  // namespace torsim::apps
