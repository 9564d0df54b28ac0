// The NAS FT benchmark's 3D FFT as Berkeley UPC's "slabs" code runs it (NX x NY x NZ complex
// points, class D 2048 x 1024 x 1024, on a TY x TZ grid of threads; thread t is rank t):
//  - round 1, per local z-plane (NZ/TZ of them): 1-D FFTs along X of the thread's NY/TY rows,
//    then one message of (NX/TY)(NY/TY) points to each of the TY threads of its row team
//    (starting at the next one; its own block is a local copy). Then a local transpose.
//  - round 2, per z-plane: FFTs along Y of the NX/TY columns, then (NY/TZ)(NX/TY) points to
//    each of the TZ threads of its column team. Then FFTs along Z of the NX/TY x NY/TZ lines.
// Variants:
//  - upc_slabs: non-blocking puts as each plane finishes (they overlap the next plane's
//    FFTs), synced at the end of the round, then a barrier;
//  - mpi_slabs: the same schedule with Isend/Irecv; receives posted a few planes ahead;
//  - mpi_packed_slabs: all FFTs of the round, pack, one all-to-all in the team, no overlap.
// One iteration is simulated (evolve, the inverse FFT, the checksum's allreduce); the NAS
// time is the set-up FFT plus `iterations` iterations, taking each FFT as long as the
// simulated one. GFlop/s per the NAS formula.
#include <cmath>
#include <deque>

#include "models/apps/micro.hpp"
#include "models/collectives/algorithms.hpp"
#include "sim/config/unused.hpp"
#include "sim/core/huge_pages.hpp"

namespace torsim::apps {
namespace {

enum class Variant : std::uint8_t { upc_slabs, mpi_slabs, mpi_packed_slabs };
constexpr ChoiceName<Variant> kVariantNames[] = {{"upc_slabs", Variant::upc_slabs},
                                                 {"mpi_slabs", Variant::mpi_slabs},
                                                 {"mpi_packed_slabs", Variant::mpi_packed_slabs}};

struct Fft3dParams {
  Variant variant{};
  std::int64_t nx = 0;
  std::int64_t ny = 0;
  std::int64_t nz = 0;
  std::int64_t iterations = 0;
  std::int64_t ty = 0;
  std::int64_t max_outstanding = 0;
  std::int64_t receive_window = 0;
};
using P = Fft3dParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind_choice<&P::variant, kVariantNames>(
        {"variant", ParamKind::choice, "upc_slabs", "", "", "",
         "upc_slabs: puts per plane, overlapped; mpi_slabs: Isend/Irecv per plane; mpi_packed_slabs: pack, one "
         "all-to-all per round",
         "-", "upc_slabs|mpi_slabs|mpi_packed_slabs"}),
    bind<&P::nx>({"nx", ParamKind::integer, "2048", "", "2", "1048576", "grid points along X (class D: 2048)",
                  "[C] NAS FT class D: 2048 x 1024 x 1024"}),
    bind<&P::ny>(
        {"ny", ParamKind::integer, "1024", "", "2", "1048576", "grid points along Y (class D: 1024)", "[C] same"}),
    bind<&P::nz>(
        {"nz", ParamKind::integer, "1024", "", "2", "1048576", "grid points along Z (class D: 1024)", "[C] same"}),
    bind<&P::iterations>({"iterations", ParamKind::integer, "25", "", "1", "1000",
                          "NAS iterations the time and the flop count are for", "[C] NAS FT class D: 25 iterations"}),
    bind<&P::ty>(
        {"ty", ParamKind::integer, "0", "", "0", "1048576",
         "threads per row team (TY; TZ = ranks / TY); 0: the power of two at or above the square root of the ranks",
         "assumption: a square grid where the ranks allow one"}),
    bind<&P::max_outstanding>({"max_outstanding", ParamKind::integer, "256", "", "1", "1000000",
                               "slabs: messages a rank leaves in flight before it waits for the oldest", "assumption"}),
    bind<&P::receive_window>({"receive_window", ParamKind::integer, "2", "", "1", "1000000",
                              "mpi_slabs: planes ahead whose receives are posted", "assumption"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: fft3d)", "NAS FT's 3D FFT: UPC slabs, MPI slabs, MPI packed slabs.", kSpecs};

constexpr Bytes kComplex = 16;  // a double-precision complex point

// Flops of `lines` 1-D FFTs of length n: 5 n log2 n each (the NAS convention).
double fft_flops(std::int64_t lines, std::int64_t n) {
  return 5.0 * static_cast<double>(lines) * static_cast<double>(n) * std::log2(static_cast<double>(n));
}

// One exchange round: per plane, `plane_flops` of FFTs and one block to each team member.
struct Round {
  std::int64_t planes = 0;
  double plane_flops = 0;
  Bytes block = 0;  // bytes to each team member per plane
  Rank first = 0;   // rank of the team's member 0
  Rank stride = 1;  // between members
  int size = 1;     // members
  int me = 0;       // this rank's index in the team
  Rank member(int i) const { return first + static_cast<Rank>(i) * stride; }
};

struct RankTimes {
  Time computation = 0, packing = 0;
};

class Fft3d final : public Workload {
 public:
  explicit Fft3d(const ParamReader& r) : p_(parse_fields(r, kFields)), where_(r.where()) {
    if (r.has("receive_window") && p_.variant != Variant::mpi_slabs)
      not_used(r.where("receive_window"), "receive_window is read only with variant mpi_slabs; this run's is " +
                                              std::string(name_of(kVariantNames, p_.variant)));
    if (r.has("max_outstanding") && packed())
      not_used(r.where("max_outstanding"), "max_outstanding is read only by the slabs variants, not mpi_packed_slabs");
  }

  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    const std::int64_t p = job.size(), ty = grid_ty(p);
    if (ty <= 0 || p % ty != 0)
      (where / "ty").fail("give TY dividing the " + std::to_string(p) + " ranks (no default grid for them)");
    const std::int64_t tz = p / ty;
    if (p_.nx % ty || p_.ny % ty || p_.ny % tz || p_.nz % tz)
      where.fail("a " + std::to_string(ty) + " x " + std::to_string(tz) + " thread grid must divide the grid: TY " +
                 "divides nx and ny, TZ divides ny and nz");
    flop_ = job.machine.compute_cost("fft_flop", where_);
    copy_byte_ = job.machine.compute_cost("fft_transpose_byte", where_);
  }

  void start(rt::MessagingLayer& layer) override {
    ranks_ = layer.size();
    ty_used_ = grid_ty(ranks_);
    times_.assign(static_cast<std::size_t>(ranks_), {});
    spawn_all(layer, [this](Comm c) { return run(c); });
  }

  void finish(RunOutput& out) const override;

 private:
  std::int64_t grid_ty(std::int64_t p) const {
    if (p_.ty > 0) return p_.ty;
    if (p <= 0 || (p & (p - 1)) != 0) return 0;
    std::int64_t ty = 1;
    while (ty * ty < p) ty *= 2;
    return ty;
  }
  bool upc() const { return p_.variant == Variant::upc_slabs; }
  bool packed() const { return p_.variant == Variant::mpi_packed_slabs; }
  std::int64_t points_per_rank() const { return p_.nx * p_.ny * p_.nz / ranks_; }
  Round round_one(Rank r) const;
  Round round_two(Rank r) const;

  Task<> compute(Comm c, double flops) {
    const auto t = static_cast<Time>(flops * static_cast<double>(flop_));
    times_[static_cast<std::size_t>(c.rank())].computation += t;
    co_await c.compute(t);
  }
  Task<> copy(Comm c, Bytes bytes) {
    const Time t = bytes * copy_byte_;
    times_[static_cast<std::size_t>(c.rank())].packing += t;
    co_await c.copy(t);
  }

  Task<> run(Comm c);
  Task<> slabs_round(Comm c, Round r, int round);
  Task<> packed_round(Comm c, Round r, int round);
  Task<rt::Request> post_block(Comm c, Rank to, Bytes bytes, rt::Tag tag);

  const Fft3dParams p_;
  Where where_;
  mutable Time flop_ = 0, copy_byte_ = 0;  // the machine's, read in check() (as the run is built)
  std::int64_t ranks_ = 0, ty_used_ = 0;
  std::vector<RankTimes> times_;
  Time begin_ = 0, end_ = 0;
  std::int64_t done_ = 0;
};

Round Fft3d::round_one(Rank r) const {
  const std::int64_t ty = ty_used_, tz = ranks_ / ty;
  Round round;
  round.planes = p_.nz / tz;
  round.plane_flops = fft_flops(p_.ny / ty, p_.nx);
  round.block = (p_.nx / ty) * (p_.ny / ty) * kComplex;
  round.first = static_cast<Rank>((r / ty) * ty);
  round.stride = 1;
  round.size = static_cast<int>(ty);
  round.me = static_cast<int>(r % ty);
  return round;
}

Round Fft3d::round_two(Rank r) const {
  const std::int64_t ty = ty_used_, tz = ranks_ / ty;
  Round round;
  round.planes = p_.nz / tz;
  round.plane_flops = fft_flops(p_.nx / ty, p_.ny);
  round.block = (p_.ny / tz) * (p_.nx / ty) * kComplex;
  round.first = static_cast<Rank>(r % ty);
  round.stride = static_cast<Rank>(ty);
  round.size = static_cast<int>(tz);
  round.me = static_cast<int>(r / ty);
  return round;
}

Task<> Fft3d::run(Comm c) {
  co_await c.barrier();
  if (c.rank() == 0) begin_ = c.now();
  const std::int64_t points = points_per_rank();
  co_await compute(c, 5.23518 * static_cast<double>(points));  // evolve (NAS: 5.23518 flops a point)
  const Round one = round_one(c.rank()), two = round_two(c.rank());
  if (packed()) {
    co_await packed_round(c, one, 1);
    co_await packed_round(c, two, 2);
  } else {
    co_await slabs_round(c, one, 1);
    co_await slabs_round(c, two, 2);
  }
  const std::int64_t tz = ranks_ / ty_used_;
  co_await compute(c, fft_flops((p_.nx / ty_used_) * (p_.ny / tz), p_.nz));
  co_await c.allreduce(kComplex);  // the checksum
  end_ = std::max(end_, c.now());
  ++done_;
}

// Not a coroutine: the layer's task is returned as it is (a frame per message is millions).
Task<rt::Request> Fft3d::post_block(Comm c, Rank to, Bytes bytes, rt::Tag tag) {
  return upc() ? c.iput(to, bytes) : c.isend(to, bytes, tag);
}

namespace {
// A rank's requests in flight, oldest first. Every rank has two such queues, touched at
// random: their blocks come from huge pages (recycled, sim/core/huge_pages.hpp).
using Pending = std::deque<rt::Request, RecycledAllocator<rt::Request>>;
bool must_drain(const Pending& pending, std::size_t limit) {
  return !pending.empty() && (pending.front().done() || pending.size() > limit);
}
// Drops requests already done from the front, then waits for the oldest while over `limit`.
Task<> drain_slow(Pending& pending, std::size_t limit) {
  while (must_drain(pending, limit)) {
    rt::Request& oldest = pending.front();  // named: GCC would await a copy of front()'s result
    co_await oldest;
    pending.pop_front();
  }
}
// The same, with no coroutine frame when there is nothing to drop (after most sends).
Task<> drain(Pending& pending, std::size_t limit) {
  if (!must_drain(pending, limit)) return Task<>::done();
  return drain_slow(pending, limit);
}
}  // namespace

// Per plane: its FFTs, then its blocks to the team (own block copied), overlapping the next.
Task<> Fft3d::slabs_round(Comm c, Round r, int round) {
  Pending sends, receives;
  const auto tag_of = [&](std::int64_t plane) { return static_cast<rt::Tag>(round * r.planes + plane); };
  std::int64_t posted = 0;  // planes whose receives are posted (MPI)
  for (std::int64_t plane = 0; plane < r.planes; ++plane) {
    for (; !upc() && posted < std::min(r.planes, plane + p_.receive_window); ++posted)
      for (int j = 1; j < r.size; ++j)
        receives.push_back(c.irecv(r.member((r.me + r.size - j) % r.size), tag_of(posted)));
    co_await compute(c, r.plane_flops);
    for (int j = 1; j <= r.size; ++j) {
      const int to = (r.me + j) % r.size;
      if (to == r.me) {
        co_await copy(c, r.block);
        continue;
      }
      sends.push_back(co_await post_block(c, r.member(to), r.block, tag_of(plane)));
      co_await drain(sends, static_cast<std::size_t>(p_.max_outstanding));
    }
    co_await drain(receives, receives.size());
  }
  co_await drain(sends, 0);
  co_await drain(receives, 0);
  if (upc()) co_await c.barrier();                                 // puts tell only their initiator
  if (round == 1) co_await copy(c, points_per_rank() * kComplex);  // local transpose
}

namespace {
// A team (a row or a column of the thread grid) as a communicator of its own, for the
// collective algorithms: member i is rank first + i * stride.
class TeamChannel final : public coll::PointToPoint {
 public:
  TeamChannel(Comm c, const Round& r) : c_(c), r_(r), tag_(c.layer().next_collective_tag(c.rank())) {}
  Rank rank() const override { return r_.me; }
  int size() const override { return r_.size; }
  rt::Request irecv(Rank src) override { return c_.irecv(r_.member(src), tag_); }
  Task<rt::Request> isend(Rank dst, Bytes bytes, std::uint64_t word) override {
    return c_.isend(r_.member(dst), bytes, tag_, word);
  }
  Task<> combine(Bytes) override { co_return; }
  void next_phase() override { tag_ = c_.layer().next_collective_tag(c_.rank()); }
  Task<> finish(Bytes) override { co_return; }

 private:
  Comm c_;
  Round r_;
  rt::Tag tag_;
};
}  // namespace

// All FFTs of the round, pack, one all-to-all among the team (every receive posted, then every
// send: the shared linear algorithm, as DCMF's torus all-to-all posts everything), unpack.
Task<> Fft3d::packed_round(Comm c, Round r, int) {
  co_await compute(c, r.plane_flops * static_cast<double>(r.planes));
  const Bytes mine = points_per_rank() * kComplex;
  co_await copy(c, mine);  // pack
  TeamChannel team(c, r);
  co_await coll::linear_alltoall(team, r.block * r.planes, 0);
  co_await copy(c, mine);  // unpack (the slabs' local transpose in round 1)
}

void Fft3d::finish(RunOutput& out) const {
  const double n = static_cast<double>(p_.nx * p_.ny * p_.nz);
  const double iterations = static_cast<double>(p_.iterations);
  const double flops = n * (14.8157 + 7.19641 * std::log(n) + (5.23518 + 7.21113 * std::log(n)) * iterations);
  const Time iteration = end_ - begin_;
  const double total_s = to_seconds(iteration) * (iterations + 1);
  double computation = 0, packing = 0;
  for (const auto& t : times_) {
    computation += to_seconds(t.computation);
    packing += to_seconds(t.packing);
  }
  const double ranks = static_cast<double>(std::max<std::int64_t>(ranks_, 1));
  computation /= ranks;
  packing /= ranks;
  const double iteration_s = to_seconds(iteration);
  const double gflops = total_s > 0 ? flops / total_s / 1e9 : 0;
  const double cores = static_cast<double>(ranks_);
  out.metrics["cores"] = cores;
  out.metrics["thread_grid_ty"] = static_cast<double>(ty_used_);
  out.metrics["iteration_ms"] = iteration_s * 1e3;
  out.metrics["time_s"] = total_s;
  out.metrics["gflops"] = gflops;
  out.metrics["computation_ms"] = computation * 1e3;
  out.metrics["packing_ms"] = packing * 1e3;
  out.metrics["communication_ms"] = (iteration_s - computation - packing) * 1e3;
  out.metrics["ranks_done"] = static_cast<double>(done_);
  out.add_series("fft", {"cores", "gflops", "iteration_ms"}).add({cores, gflops, iteration_s * 1e3});
  // Where a rank's iteration goes, on average: what is not its FFTs or copies is communication.
  out.add_series("fft_breakdown", {"cores", "communication_ms", "computation_ms", "packing_ms"})
      .add({cores, (iteration_s - computation - packing) * 1e3, computation * 1e3, packing * 1e3});
}

}  // namespace

const WorkloadEntry kFft3dWorkload{"fft3d",
                                   "NAS FT's 3D FFT (class D by default): UPC slabs, MPI slabs or MPI packed slabs",
                                   &kParams, &make_from<Fft3d>};

}  // namespace torsim::apps
