// DDTBench ping-pong between two GPUs (Schneider, Gerstenberger and Hoefler, EuroMPI 2012;
// src_c/ddtbench.c): rank 0 sends one instance of a test's datatype from its GPU's memory and
// rank 1 sends it back, blocking MPI_Send / MPI_Recv of count 1, for every parameter set of
// the test in turn; the datatype is built outside the timed loop. The transfers go through a
// CUDA-aware MPI's non-contiguous path (models/runtime/cuda/mvapich2_cuda.hpp) in the chosen design.
// One-way time is half the round trip. The breakdown puts beside it what the message asks of
// the hardware and the host when nothing overlaps: pack and unpack kernels alone on their
// GPUs, the copies across PCI Express, and the host's CUDA calls; "overlap" is the latency
// minus their sum (negative where they overlap).
#include <memory>

#include "models/apps/ddtbench_layouts.hpp"
#include "models/apps/micro.hpp"
#include "models/runtime/cuda/mvapich2_cuda.hpp"

namespace torsim::apps {
namespace {

struct DdtbenchParams {
  std::string test;
  rt::GpuDesign design{};
  std::int64_t iterations = 0;
  std::int64_t warmup = 0;
};
using P = DdtbenchParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind<&P::test>({"test", ParamKind::choice, kRequired, "", "", "",
                    "the DDTBench test (all its parameter sets are run)", "-", "SPECFEM3D_oc|SPECFEM3D_cm|WRF_y_sa"}),
    bind_choice<&P::design, rt::kGpuDesignNames>(
        {"design", ParamKind::choice, "baseline", "", "", "",
         "baseline: pack, synchronise, then send; overlap: chunks on streams with callbacks "
         "(models/runtime/cuda/mvapich2_cuda.hpp)",
         "-", "baseline|overlap"}),
    bind<&P::iterations>({"iterations", ParamKind::integer, "20", "", "1", "1000000",
                          "timed round trips per parameter set", "[C-code] DDTBench's inner loop: 20"}),
    bind<&P::warmup>({"warmup", ParamKind::integer, "2", "", "0", "1000000", "untimed round trips before timing", "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: ddtbench)", "DDTBench ping-pong between the two GPUs of a node.", kSpecs};

class DdtbenchPingPong final : public Workload {
 public:
  explicit DdtbenchPingPong(const ParamReader& r) : p_(parse_fields(r, kFields)) {}

  int minimum_ranks() const override { return 2; }
  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    if (job.node_of(0) != job.node_of(1))
      where.fail("the GPU ping-pong is within a node: ranks 0 and 1 must share one (see 'placement')");
    (void)gpu::gpu_of(job.machine, where);
    (void)rt::mvapich2_cuda_of(job.machine, p_.design);
  }

  void start(rt::MessagingLayer& layer) override {
    const rt::Job& job = layer.job();
    const Where where = job.machine.where;
    gpu_ = gpu::gpu_of(job.machine, where);
    mpi_ = std::make_unique<rt::Mvapich2Cuda>(layer, gpu_, rt::mvapich2_cuda_of(job.machine, p_.design), p_.design);
    Rng rng = job.rng(7100);
    for (const DdtbenchSet& set : ddtbench_sets(p_.test, rng)) layouts_.push_back(set.type.layout());
    latency_.assign(layouts_.size(), 0);
    cpu_.assign(layouts_.size(), 0);
    layer.kernel().spawn(ping(Comm(layer, 0)));
    layer.kernel().spawn(pong(Comm(layer, 1)));
  }

  void finish(RunOutput& out) const override {
    auto& table = out.add_series("latency", {"size_bytes", "latency_us", "blocks"});
    for (std::size_t i = 0; i < layouts_.size(); ++i)
      table.add({static_cast<double>(layouts_[i].bytes()), microseconds(latency_[i]),
                 static_cast<double>(layouts_[i].block_count())});
    add_breakdown(out);
    out.metrics["largest_size_latency_us"] = microseconds(latency_.back());
  }

 private:
  // Added after "latency": adding a series may move the others.
  void add_breakdown(RunOutput& out) const {
    auto& table = out.add_series("latency_breakdown",
                                 {"size_bytes", "latency_us", "kernels_us", "pcie_us", "host_calls_us", "overlap_us"});
    for (std::size_t i = 0; i < layouts_.size(); ++i) {
      const Time kernels = 2 * mpi_->device_of(0).kernel_time(mpi_->pack(layouts_[i], 0, layouts_[i].bytes()));
      const Time pcie = 2 * transfer_time(layouts_[i].bytes(), gpu_.pcie_bandwidth);
      table.add({static_cast<double>(layouts_[i].bytes()), microseconds(latency_[i]), microseconds(kernels),
                 microseconds(pcie), microseconds(cpu_[i]), microseconds(latency_[i] - kernels - pcie - cpu_[i])});
    }
  }

  Task<> ping(Comm c) {
    for (std::size_t i = 0; i < layouts_.size(); ++i) {
      for (std::int64_t k = 0; k < p_.warmup; ++k) co_await round_trip(c, layouts_[i]);
      const Time begin = c.now();
      const Time cpu_before = c.layer().cores().time_by_use().total();
      for (std::int64_t k = 0; k < p_.iterations; ++k) co_await round_trip(c, layouts_[i]);
      latency_[i] = (c.now() - begin) / (2 * p_.iterations);
      cpu_[i] = (c.layer().cores().time_by_use().total() - cpu_before) / (2 * p_.iterations);
    }
  }

  Task<> round_trip(Comm c, const gpu::Layout& layout) {
    co_await mpi_->send(c.rank(), 1, layout);
    co_await mpi_->recv(c.rank(), 1, layout);
  }

  Task<> pong(Comm c) {
    for (const gpu::Layout& layout : layouts_) {
      for (std::int64_t k = 0; k < p_.warmup + p_.iterations; ++k) {
        co_await mpi_->recv(c.rank(), 0, layout);
        co_await mpi_->send(c.rank(), 0, layout);
      }
    }
  }

  const DdtbenchParams p_;
  gpu::GpuParams gpu_;
  std::unique_ptr<rt::Mvapich2Cuda> mpi_;
  std::vector<gpu::Layout> layouts_;
  std::vector<Time> latency_, cpu_;  // per set, per one-way message
};

}  // namespace

const WorkloadEntry kDdtbenchWorkload{
    "ddtbench", "DDTBench ping-pong of non-contiguous datatypes between the two GPUs of a node", &kParams,
    [](const ParamReader& r) -> std::unique_ptr<Workload> { return std::make_unique<DdtbenchPingPong>(r); }};

}  // namespace torsim::apps
