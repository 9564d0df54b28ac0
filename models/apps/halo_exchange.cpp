// HaloExchange: the COSMO model's halo exchange between GPUs (models/apps/cosmo_halo.hpp),
// every field in GPU memory, through a CUDA-aware MPI's non-contiguous path
// (models/runtime/cuda/mvapich2_cuda.hpp) in the chosen design. One rank per GPU. An exchange: every rank
// posts a receive per neighbour and field, then a send per neighbour and field (in GCL's
// order: field outer, direction inner), then waits for all of them. `warmup` exchanges, a
// barrier, then `iterations` timed ones back to back; the time of an exchange is from the
// barrier to the last rank's end, over the iterations. The breakdown puts beside it what the
// busiest rank's messages ask of its GPU when nothing overlaps: its pack and unpack kernels
// alone, its copies across PCI Express one direction at a time, and the host's calls.
#include <algorithm>
#include <memory>

#include "models/apps/cosmo_halo.hpp"
#include "models/apps/micro.hpp"
#include "models/runtime/cuda/mvapich2_cuda.hpp"

namespace torsim::apps {
namespace {

struct HaloParams : CosmoDomain {
  rt::GpuDesign design{};
  std::int64_t fields = 0, iterations = 0, warmup = 0;
};
using P = HaloParams;
using D = CosmoDomain;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind_choice<&P::design, rt::kGpuDesignNames>(
        {"design", ParamKind::choice, "baseline", "", "", "",
         "baseline: pack, synchronise, then send, one message at a time; overlap: chunks on streams with callbacks "
         "(models/runtime/cuda/mvapich2_cuda.hpp)",
         "-", "baseline|overlap"}),
    bind<&D::points_i, P>(
        {"points_i", ParamKind::integer, "520", "", "3", "100000", "horizontal grid points along i (the whole domain)",
         "[E] COSMO-2, MeteoSwiss's 2.2 km set-up: 520 x 350 points, 60 levels (not checked against a primary source; "
         "docs/models/gpu.md)"}),
    bind<&D::points_j, P>({"points_j", ParamKind::integer, "350", "", "3", "100000",
                           "horizontal grid points along j (the whole domain)", "[E] COSMO-2, as points_i"}),
    bind<&D::levels, P>({"levels", ParamKind::integer, "60", "", "1", "10000", "vertical levels (not decomposed)",
                         "[E] COSMO-2, as points_i"}),
    bind<&D::halo, P>({"halo", ParamKind::integer, "3", "", "1", "100",
                       "halo lines on each side in i and j (nboundlines)",
                       "[C-code] C2SM/DECREMENT lm_c_defaults.sh @437cf2b7: nboundlines = 3"}),
    bind<&P::fields>({"fields", ParamKind::integer, "3", "", "1", "1000",
                      "3-D fields exchanged, a message each per neighbour",
                      "assumption (docs/models/gpu.md: sensitivity)"}),
    bind<&D::element, P>({"element", ParamKind::size, "8B", "B", "1B", "64B", "bytes per grid value",
                          "assumption: double precision, COSMO's default working precision"}),
    bind<&P::iterations>({"iterations", ParamKind::integer, "10", "", "1", "1000000", "timed exchanges", "-"}),
    bind<&P::warmup>(
        {"warmup", ParamKind::integer, "1", "", "0", "1000000", "untimed exchanges before the barrier", "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: halo_exchange)",
                         "COSMO's halo exchange between GPUs: 8 neighbours, a subarray datatype per neighbour and "
                         "field.",
                         kSpecs};

struct Message {
  Rank peer = 0;
  rt::Tag tag = 0;  // direction of travel and field
  gpu::Layout layout;
};

// A message's tag: its field and its direction of travel.
rt::Tag tag(std::int64_t field, int di, int dj) { return static_cast<rt::Tag>(field * 9 + direction_index(di, dj)); }

// One rank's messages of one exchange.
struct RankPlan {
  std::vector<Message> sends, receives;
};

class HaloExchange final : public Workload {
 public:
  explicit HaloExchange(const ParamReader& r) : p_(parse_fields(r, kFields)), domain_(p_) {}

  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    const ProcessGrid grid = ProcessGrid::of(job.size());
    if (domain_.points_i / grid.x < domain_.halo || domain_.points_j / grid.y < domain_.halo)
      where.fail("a " + std::to_string(grid.x) + " x " + std::to_string(grid.y) +
                 " process grid leaves subdomains narrower than the halo (" + std::to_string(domain_.halo) +
                 " lines); use fewer ranks or more points");
    (void)gpu::gpu_of(job.machine, where);
    (void)rt::mvapich2_cuda_of(job.machine, p_.design);
  }

  void start(rt::MessagingLayer& layer) override {
    const rt::Job& job = layer.job();
    gpu_ = gpu::gpu_of(job.machine, job.machine.where);
    mpi_ = std::make_unique<rt::Mvapich2Cuda>(layer, gpu_, rt::mvapich2_cuda_of(job.machine, p_.design), p_.design);
    grid_ = ProcessGrid::of(job.size());
    for (Rank r = 0; r < job.size(); ++r) plans_.push_back(plan(r));
    end_.assign(plans_.size(), 0);
    spawn_all(layer, [this](Comm c) { return run(c); });
  }

  void finish(RunOutput& out) const override {
    const Time last = *std::max_element(end_.begin(), end_.end());
    const Time exchange = (last - start_) / p_.iterations;
    out.metrics["exchange_us"] = microseconds(exchange);
    out.metrics["process_grid_x"] = grid_.x;
    out.metrics["process_grid_y"] = grid_.y;
    std::int64_t messages = 0;
    for (const RankPlan& p : plans_) messages += static_cast<std::int64_t>(p.sends.size());
    out.metrics["messages"] = static_cast<double>(messages);
    add_breakdown(out, exchange);
  }

 private:
  RankPlan plan(Rank self) const {
    RankPlan p;
    const std::vector<HaloNeighbour> neighbours = halo_neighbours(domain_, grid_, self);
    for (std::int64_t f = 0; f < p_.fields; ++f)
      for (const HaloNeighbour& n : neighbours) {
        p.sends.push_back({n.rank, tag(f, n.di, n.dj), n.send.layout()});
        p.receives.push_back({n.rank, tag(f, -n.di, -n.dj), n.receive.layout()});
      }
    return p;
  }

  Task<> run(Comm c) {
    for (std::int64_t k = 0; k < p_.warmup + p_.iterations; ++k) {
      if (k == p_.warmup) {
        co_await c.barrier();
        if (c.rank() == 0) start_ = c.now();
      }
      co_await exchange(c, static_cast<rt::Tag>(k % 2) * static_cast<rt::Tag>(p_.fields) * 9);
    }
    end_[static_cast<std::size_t>(c.rank())] = c.now();
  }

  // Tags of successive exchanges alternate between two ranges: a neighbour may already be in
  // the next one.
  Task<> exchange(Comm c, rt::Tag offset) {
    const RankPlan& p = plans_[static_cast<std::size_t>(c.rank())];
    std::vector<gpu::SignalPtr> pending;
    for (const Message& m : p.receives) pending.push_back(mpi_->irecv(c.rank(), m.peer, m.layout, offset + m.tag));
    for (const Message& m : p.sends)
      pending.push_back(co_await mpi_->isend(c.rank(), m.peer, m.layout, offset + m.tag));
    for (const gpu::SignalPtr& s : pending) {
      Signal& done = *s;
      co_await done;
    }
  }

  // The rank with the most packed bytes to send.
  void add_breakdown(RunOutput& out, Time exchange) const {
    std::size_t busiest = 0;
    Bytes most = -1;
    for (std::size_t r = 0; r < plans_.size(); ++r) {
      Bytes sent = 0;
      for (const Message& m : plans_[r].sends) sent += m.layout.bytes();
      if (sent > most) {
        most = sent;
        busiest = r;
      }
    }
    Time kernels = 0, pcie = 0;
    for (const std::vector<Message>* list : {&plans_[busiest].sends, &plans_[busiest].receives})
      for (const Message& m : *list) {
        kernels += mpi_->device_of(0).kernel_time(mpi_->pack(m.layout, 0, m.layout.bytes()));
        if (mpi_->path_of(static_cast<Rank>(busiest), m.peer, m.layout.bytes()) != rt::GpuPath::gpudirect)
          pcie += transfer_time(m.layout.bytes(), gpu_.pcie_bandwidth);
      }
    auto& table = out.add_series("breakdown", {"rank", "exchange_us", "sent_bytes", "kernels_us", "pcie_us"});
    table.add({static_cast<double>(busiest), microseconds(exchange), static_cast<double>(most), microseconds(kernels),
               microseconds(pcie)});
  }

  const HaloParams p_;
  const CosmoDomain domain_;  // the parameters' domain part
  gpu::GpuParams gpu_;
  std::unique_ptr<rt::Mvapich2Cuda> mpi_;
  ProcessGrid grid_;
  std::vector<RankPlan> plans_;
  Time start_ = 0;
  std::vector<Time> end_;  // per rank: when its last exchange ended
};

}  // namespace

const WorkloadEntry kHaloExchangeWorkload{
    "halo_exchange", "COSMO's halo exchange between GPUs (8 neighbours, a datatype per neighbour and field)", &kParams,
    &make_from<HaloExchange>};

}  // namespace torsim::apps
