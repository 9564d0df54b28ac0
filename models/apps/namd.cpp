// A NAMD-like molecular dynamics step (ApoA1 by default: 92,224 atoms in a 108.86 x 108.86 x
// 77.76 A box, 12 A cutoff, 13.5 A pairlist distance, PME on a 108 x 108 x 80 grid every 4
// steps). Spatial decomposition as NAMD does it:
//  - patches: a grid of cells at least the pairlist distance wide, each owning its atoms;
//  - computes: one per patch (self) and one per pair of neighbouring patches, placed by a
//    greedy load balancer (largest first, on the least loaded PE), each costing its atom pairs
//    within the pairlist distance times the machine's cost per pair;
//  - each step every patch multicasts its coordinates to the PEs of its computes, computes
//    send forces back, a patch integrates once all have reported;
//  - on PME steps patches also spread charges onto pencils of the PME grid; the pencils run a
//    3-D FFT with two transposes each way and send forces back to the patches.
// Simplifications (docs/models/charm.md): uniform atom density, no bonded terms, no migration,
// no multiple-timestepping beyond PME's frequency, no compute splitting at large scale.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "models/apps/micro.hpp"
#include "sim/core/random.hpp"

namespace torsim::apps {
namespace {

// box and pme_grid hold three values each (checked by the constructor).
struct NamdParams {
  std::int64_t atoms = 0, pme_every = 0, steps = 0;
  std::vector<std::string> box;
  double cutoff = 0, pairlist = 0;
  std::vector<std::int64_t> pme_grid;
  Bytes coordinate_bytes = 0, force_bytes = 0;
};
using P = NamdParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind<&P::atoms>(
        {"atoms", ParamKind::integer, "92224", "", "1", "100000000", "atoms in the system", "[C] the ApoA1 benchmark"}),
    bind<&P::box>({"box", ParamKind::text_list, "[\"108.86\", \"108.86\", \"77.76\"]", "", "", "",
                   "periodic box, x y z in angstroms", "[C] the ApoA1 benchmark (cellBasisVector)"}),
    bind<&P::cutoff>(
        {"cutoff", ParamKind::number, "12", "", "1", "100", "non-bonded cutoff in angstroms", "[C] ApoA1 benchmark"}),
    bind<&P::pairlist>({"pairlist_distance", ParamKind::number, "13.5", "", "1", "100",
                        "pairlist distance in angstroms: the minimum patch width",
                        "[C] ApoA1 benchmark (pairlistdist)"}),
    bind<&P::pme_grid>({"pme_grid", ParamKind::integer_list, "[108, 108, 80]", "", "1", "4096", "PME grid points x y z",
                        "[C] ApoA1 benchmark (PMEGridSize)"}),
    bind<&P::pme_every>({"pme_every", ParamKind::integer, "4", "", "1", "1000", "steps between PME evaluations",
                         "[C] ApoA1 benchmark (fullElectFrequency)"}),
    bind<&P::steps>({"steps", ParamKind::integer, "9", "", "2", "100000",
                     "steps simulated; the first is left out of the timing", "-"}),
    bind<&P::coordinate_bytes>({"coordinate_bytes", ParamKind::size, "32B", "B", "1B", "1KiB",
                                "bytes per atom of a coordinate message",
                                "assumption: position, charge and type, as NAMD's CompAtom"}),
    bind<&P::force_bytes>({"force_bytes", ParamKind::size, "24B", "B", "1B", "1KiB",
                           "bytes per atom of a force message", "assumption: three doubles"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: namd)", "NAMD-like molecular dynamics step over a core sweep.", kSpecs};

// A box length in angstroms: the whole text a positive finite number.
double box_length(const std::string& text, const Where& where) {
  char* end = nullptr;
  const double length = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(length) || length <= 0)
    where.fail("expected a box length in angstroms, a positive number such as \"108.86\", got \"" + text + "\"");
  return length;
}

// Most patches a box may imply. Assumption: each patch costs about 1 KB (its 14 computes, their
// entries in the patches' lists, its PEs and the messages of a step), so 2^20 patches need about
// 1 GiB; that is over three times the ~350,000 patches of the largest system (atoms, 10^8) at
// ApoA1's density.
constexpr double kMaxPatches = 1 << 20;

// Fails at `where` when the box, cut into cells at least `pairlist` wide, implies more than
// kMaxPatches patches; decided in doubles, before any count is cast to an integer.
void check_patch_count(const double (&box)[3], double pairlist, const Where& where) {
  double patches = 1;
  for (const double side : box) patches *= std::max(1.0, std::floor(side / pairlist));
  if (patches <= kMaxPatches) return;
  char count[32];
  std::snprintf(count, sizeof count, "%.3g", patches);
  where.fail(std::string("this box implies ") + count +
             " patches (cells at least pairlist_distance wide); at most 1,048,576 patches (2^20) are supported: "
             "expected a smaller box or a larger pairlist_distance");
}

enum Kind : std::uint64_t { kCoordinates = 1, kForces, kCharges, kTranspose, kPmeForces };

std::uint64_t word(Kind kind, std::int64_t step, std::int64_t id, std::int64_t phase = 0) {
  return static_cast<std::uint64_t>(kind) | static_cast<std::uint64_t>(phase) << 4 |
         static_cast<std::uint64_t>(step) << 8 | static_cast<std::uint64_t>(id) << 32;
}

struct Compute {
  int a, b;  // patches (b == a for a self compute)
  double pairs;
  Rank pe = 0;
};

struct Patch {
  std::int64_t atoms;
  std::vector<int> computes;      // indices
  std::vector<Rank> compute_pes;  // distinct PEs of its computes
  std::vector<int> pencils;       // PME pencils its x-y footprint overlaps
  Rank pe = 0;
};

class Namd final : public Workload {
 public:
  explicit Namd(const ParamReader& r) : where_(r.where()), p_(parse_fields(r, kFields)) {
    if (p_.box.size() != 3) r.where("box").fail("expected three box lengths, x y z");
    for (std::size_t i = 0; i < 3; ++i) box_[i] = box_length(p_.box[i], r.where("box") / i);
    check_patch_count(box_, p_.pairlist, r.where("box"));
    if (p_.pme_grid.size() != 3) r.where("pme_grid").fail("expected three grid sizes, x y z");
    for (std::size_t i = 0; i < 3; ++i) grid_[i] = p_.pme_grid[i];
  }

  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    pair_cost_ = job.machine.compute_cost("namd_pair", where_);
    atom_cost_ = job.machine.compute_cost("namd_integrate", where_);
    fft_cost_ = job.machine.compute_cost("namd_fft_point", where_);
  }

  void start(rt::MessagingLayer& layer) override {
    build_patches();
    build_computes(layer.job());
    place(layer.job());
    build_pme(layer.size());
    handler_ = layer.register_handler(rt::AmHandler([this](Comm c, Envelope e) { return on_message(c, e); }));
    for (std::size_t p = 0; p < patches_.size(); ++p)
      layer.kernel().spawn(begin_step(Comm(layer, patches_[p].pe), static_cast<int>(p), 0));
  }

  void finish(RunOutput& out) const override {
    const Time timed = step_end_.size() > 1 ? step_end_.back() - step_end_.front() : 0;
    out.metrics["time_per_step_ms"] =
        to_seconds(timed) * 1e3 / static_cast<double>(std::max<std::int64_t>(1, p_.steps - 1));
    out.metrics["patches"] = static_cast<double>(patches_.size());
    out.metrics["computes"] = static_cast<double>(computes_.size());
    out.metrics["pme_pencils"] = static_cast<double>(pencils_);
    out.metrics["pairs_per_step"] = total_pairs_;
    out.metrics["messages_per_step"] = static_cast<double>(messages_) / static_cast<double>(p_.steps);
    out.metrics["mean_message_bytes"] = messages_ ? static_cast<double>(bytes_) / static_cast<double>(messages_) : 0.0;
    auto& steps = out.add_series("steps", {"step", "end_ms"});  // when every patch has finished each step
    for (std::size_t i = 0; i < step_end_.size(); ++i)
      steps.add({static_cast<double>(i), to_seconds(step_end_[i]) * 1e3});
  }

 private:
  // ---- Geometry

  void build_patches() {
    for (std::size_t i = 0; i < 3; ++i) dims_[i] = std::max(1, static_cast<int>(box_[i] / p_.pairlist));
    const int count = dims_[0] * dims_[1] * dims_[2];
    patches_.assign(static_cast<std::size_t>(count), {});
    for (int p = 0; p < count; ++p)
      patches_[static_cast<std::size_t>(p)].atoms = p_.atoms / count + (p < p_.atoms % count ? 1 : 0);
  }

  int patch_at(int x, int y, int z) const {
    auto wrap = [](int v, int n) { return ((v % n) + n) % n; };
    return wrap(x, dims_[0]) + dims_[0] * (wrap(y, dims_[1]) + dims_[1] * wrap(z, dims_[2]));
  }

  // Fraction of atom pairs, one in each of two cells offset by (dx, dy, dz) cells, that lie
  // within the cutoff: a fixed-seed Monte Carlo estimate (uniform density).
  double within_cutoff(int dx, int dy, int dz, const rt::Job& job) const {
    Rng rng(job.seed, 7000 + static_cast<std::uint64_t>((dx + 1) * 9 + (dy + 1) * 3 + (dz + 1)));
    const double w[3] = {box_[0] / dims_[0], box_[1] / dims_[1], box_[2] / dims_[2]};
    const int offset[3] = {dx, dy, dz};
    int hits = 0;
    const int samples = 20000;
    for (int s = 0; s < samples; ++s) {
      double d2 = 0;
      for (int i = 0; i < 3; ++i) {
        const double d = (offset[i] + rng.uniform() - rng.uniform()) * w[i];
        d2 += d * d;
      }
      hits += d2 <= p_.cutoff * p_.cutoff;
    }
    return static_cast<double>(hits) / samples;
  }

  void build_computes(const rt::Job& job) {
    std::map<std::array<int, 3>, double> fraction;
    for (int x = 0; x < dims_[0]; ++x)
      for (int y = 0; y < dims_[1]; ++y)
        for (int z = 0; z < dims_[2]; ++z) add_computes_of(x, y, z, fraction, job);
  }

  // The self compute and the pair computes with the 13 "forward" neighbours (each pair once).
  void add_computes_of(int x, int y, int z, std::map<std::array<int, 3>, double>& fraction, const rt::Job& job) {
    const int a = patch_at(x, y, z);
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::array<int, 3> d{dx, dy, dz};
          if (d < std::array<int, 3>{0, 0, 0}) continue;
          const int b = patch_at(x + dx, y + dy, z + dz);
          if (d != std::array<int, 3>{0, 0, 0} && b == a) continue;
          if (!fraction.count(d)) fraction[d] = within_cutoff(dx, dy, dz, job);
          const double na = static_cast<double>(patches_[static_cast<std::size_t>(a)].atoms);
          const double nb = static_cast<double>(patches_[static_cast<std::size_t>(b)].atoms);
          const double pairs = a == b ? fraction[d] * na * (na - 1) / 2 : fraction[d] * na * nb;
          total_pairs_ += pairs;
          computes_.push_back({a, b, pairs, 0});
        }
  }

  // Patches in blocks of consecutive PEs (x fastest, so spatial neighbours share or neighbour
  // nodes); computes largest first onto the least loaded PE of their patches' nodes: NAMD's
  // greedy balancing, kept communication-aware as its load balancers are (an assumption of the
  // model: placing computes anywhere would put all coordinate traffic on the network).
  void place(const rt::Job& job) {
    const int pes = job.size();
    std::vector<Time> load(static_cast<std::size_t>(pes), 0);
    for (std::size_t p = 0; p < patches_.size(); ++p) {
      patches_[p].pe =
          static_cast<Rank>(static_cast<std::int64_t>(p) * pes / static_cast<std::int64_t>(patches_.size()));
      load[static_cast<std::size_t>(patches_[p].pe)] += patches_[p].atoms * atom_cost_;
    }
    std::vector<std::size_t> order(computes_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](auto l, auto r) { return computes_[l].pairs > computes_[r].pairs; });
    for (auto c : order) {
      const Rank pe = least_loaded_near(computes_[c], job, load);
      computes_[c].pe = pe;
      load[static_cast<std::size_t>(pe)] += compute_time(computes_[c]);
    }
    for (std::size_t c = 0; c < computes_.size(); ++c) {
      for (int p : {computes_[c].a, computes_[c].b}) {
        auto& patch = patches_[static_cast<std::size_t>(p)];
        if (patch.computes.empty() || patch.computes.back() != static_cast<int>(c))
          patch.computes.push_back(static_cast<int>(c));
        if (std::find(patch.compute_pes.begin(), patch.compute_pes.end(), computes_[c].pe) == patch.compute_pes.end())
          patch.compute_pes.push_back(computes_[c].pe);
      }
    }
  }

  // The least loaded PE among those on the nodes of the compute's patches (ties: lowest rank).
  Rank least_loaded_near(const Compute& c, const rt::Job& job, const std::vector<Time>& load) const {
    Rank best = -1;
    for (int p : {c.a, c.b}) {
      const Rank home = patches_[static_cast<std::size_t>(p)].pe;
      const int per_node = job.placement.ranks_per_node;
      const Rank first = job.placement.round_robin ? home : home - home % per_node;
      for (int k = 0; k < per_node; ++k) {
        const Rank pe = job.placement.round_robin ? static_cast<Rank>(home) : first + k;
        if (pe >= job.size()) break;
        if (best < 0 || load[static_cast<std::size_t>(pe)] < load[static_cast<std::size_t>(best)]) best = pe;
        if (job.placement.round_robin) break;
      }
    }
    return best;
  }

  Time compute_time(const Compute& c) const { return static_cast<Time>(c.pairs * static_cast<double>(pair_cost_)); }

  // Pencils: an rx x ry grid of z-pencils, at most one per PE and at least kColumnsPerPencil
  // grid columns each (an assumption: NAMD keeps PME pencils coarse; one per PE at thousands
  // of PEs would make every transpose a storm of ~100-byte messages).
  void build_pme(int pes) {
    constexpr int kColumnsPerPencil = 16;
    const int side = static_cast<int>(
        std::sqrt(static_cast<double>(std::min<std::int64_t>(pes, grid_[0] * grid_[1] / kColumnsPerPencil))));
    rx_ = std::max(1, std::min(static_cast<int>(grid_[0]), side));
    ry_ = std::max(1, std::min(static_cast<int>(grid_[1]), side));
    pencils_ = rx_ * ry_;
    for (auto& patch : patches_) patch.pencils.clear();
    for (int x = 0; x < dims_[0]; ++x)
      for (int y = 0; y < dims_[1]; ++y)
        for (int z = 0; z < dims_[2]; ++z) {
          auto& patch = patches_[static_cast<std::size_t>(patch_at(x, y, z))];
          for (int i = x * rx_ / dims_[0]; i <= ((x + 1) * rx_ - 1) / dims_[0]; ++i)
            for (int j = y * ry_ / dims_[1]; j <= ((y + 1) * ry_ - 1) / dims_[1]; ++j)
              patch.pencils.push_back(i * ry_ + j);
        }
    pencil_points_ = grid_[0] * grid_[1] * grid_[2] / pencils_;
  }

  Rank pencil_pe(int pencil, int pes) const {
    return static_cast<Rank>((static_cast<std::int64_t>(pencil) * 7919) % pes);
  }
  bool pme_step(std::int64_t step) const { return step % p_.pme_every == 0; }

  // ---- The step, driven by messages

  // Every message of the step goes through here, counted with its bytes.
  Task<> send(Comm c, Rank pe, Bytes bytes, std::uint64_t w, rt::Tag tag = 0) {
    ++messages_;
    bytes_ += bytes;
    co_await co_await c.am_isend(pe, handler_, bytes, w, tag);
  }

  Task<> begin_step(Comm c, int patch, std::int64_t step) {
    if (step >= p_.steps) co_return;
    const auto& p = patches_[static_cast<std::size_t>(patch)];
    for (Rank pe : p.compute_pes) co_await send(c, pe, p.atoms * p_.coordinate_bytes, word(kCoordinates, step, patch));
    if (!pme_step(step)) co_return;
    co_await c.compute(p.atoms * atom_cost_);  // charge spreading
    const Bytes share = pencil_points_ * 8 / static_cast<Bytes>(std::max<std::size_t>(1, p.pencils.size()));
    for (int pencil : p.pencils)
      co_await send(c, pencil_pe(pencil, c.size()), share, word(kCharges, step, pencil), rt::kPersistent);
  }

  Task<> on_message(Comm c, Envelope e) {
    const auto kind = static_cast<Kind>(e.word & 15);
    const auto phase = static_cast<std::int64_t>((e.word >> 4) & 15);
    const auto step = static_cast<std::int64_t>((e.word >> 8) & 0xffffff);
    const auto id = static_cast<int>(e.word >> 32);
    switch (kind) {
      case kCoordinates:
        co_return co_await coordinates_in(c, id, step);
      case kForces:
        co_return co_await forces_in(c, id, step, 1);
      case kCharges:
        co_return co_await pme_phase(c, id, step, 0);
      case kTranspose:
        co_return co_await pme_phase(c, id, step, phase);
      case kPmeForces:
        co_return co_await forces_in(c, id, step, 0);
    }
  }

  // A patch's coordinates reached this PE: every compute here that now has all its patches runs.
  Task<> coordinates_in(Comm c, int patch, std::int64_t step) {
    for (int ci : patches_[static_cast<std::size_t>(patch)].computes) {
      const Compute& comp = computes_[static_cast<std::size_t>(ci)];
      if (comp.pe != c.rank()) continue;
      const int needed = comp.a == comp.b ? 1 : 2;
      if (++arrived_[{ci, step}] < needed) continue;
      arrived_.erase({ci, step});
      co_await c.compute(compute_time(comp));
      for (int p : {comp.a, comp.b}) {
        const auto& target = patches_[static_cast<std::size_t>(p)];
        co_await send(c, target.pe, target.atoms * p_.force_bytes, word(kForces, step, p));
        if (comp.a == comp.b) break;
      }
    }
  }

  // Forces from a compute (or from PME): once all are in, integrate and start the next step.
  Task<> forces_in(Comm c, int patch, std::int64_t step, int from_compute) {
    auto& got = force_count_[{patch, step}];
    got += from_compute ? 1 : 0;
    if (!from_compute) pme_done_[{patch, step}] = true;
    const auto& p = patches_[static_cast<std::size_t>(patch)];
    const std::size_t expected = p.computes.size();
    if (got < static_cast<int>(expected) || (pme_step(step) && !pme_done_[{patch, step}])) co_return;
    force_count_.erase({patch, step});
    pme_done_.erase({patch, step});
    co_await c.compute(p.atoms * atom_cost_);
    if (++patches_done_[step] == static_cast<std::int64_t>(patches_.size())) step_end_.push_back(c.now());
    co_await begin_step(c, patch, step + 1);
  }

  // PME on a pencil: phase 0 collects charges; phases 1-4 are the transposes (two forward,
  // two back), each after an FFT pass over the pencil's points; then forces to the patches.
  Task<> pme_phase(Comm c, int pencil, std::int64_t step, std::int64_t phase) {
    const std::size_t expected = phase == 0 ? charge_senders(pencil) : static_cast<std::size_t>(phase % 2 ? ry_ : rx_);
    if (++pme_count_[{pencil, step, phase}] < static_cast<std::int64_t>(expected)) co_return;
    pme_count_.erase({pencil, step, phase});
    co_await c.compute(pencil_points_ * fft_cost_);
    if (phase < 4) {
      const int peers = phase % 2 == 0 ? ry_ : rx_;
      const Bytes block = pencil_points_ * 16 / peers;  // complex doubles
      for (int k = 0; k < peers; ++k) {
        const int to = phase % 2 == 0 ? (pencil / ry_) * ry_ + k : k * ry_ + pencil % ry_;
        co_await send(c, pencil_pe(to, c.size()), block, word(kTranspose, step, to, phase + 1), rt::kPersistent);
      }
      co_return;
    }
    for (std::size_t p = 0; p < patches_.size(); ++p) {
      const auto& patch = patches_[p];
      if (std::find(patch.pencils.begin(), patch.pencils.end(), pencil) == patch.pencils.end()) continue;
      co_await send(c, patch.pe, patch.atoms * p_.force_bytes / static_cast<Bytes>(patch.pencils.size()),
                    word(kPmeForces, step, static_cast<std::int64_t>(p)));
    }
  }

  std::size_t charge_senders(int pencil) const {
    std::size_t n = 0;
    for (const auto& patch : patches_) n += std::count(patch.pencils.begin(), patch.pencils.end(), pencil);
    return n;
  }

  Where where_;
  const NamdParams p_;
  double box_[3] = {}, total_pairs_ = 0;
  std::int64_t grid_[3] = {};
  int dims_[3] = {};
  mutable Time pair_cost_ = 0, atom_cost_ = 0, fft_cost_ = 0;  // the machine's, read in check() (as the run is built)
  std::vector<Patch> patches_;
  std::vector<Compute> computes_;
  int rx_ = 1, ry_ = 1, pencils_ = 1;
  std::int64_t pencil_points_ = 0;
  rt::HandlerId handler_ = 0;
  std::map<std::pair<int, std::int64_t>, int> arrived_, force_count_;
  std::map<std::pair<int, std::int64_t>, bool> pme_done_;
  std::map<std::tuple<int, std::int64_t, std::int64_t>, std::int64_t> pme_count_;
  std::map<std::int64_t, std::int64_t> patches_done_;
  std::vector<Time> step_end_;
  std::int64_t messages_ = 0;
  Bytes bytes_ = 0;
};

}  // namespace

const WorkloadEntry kNamdWorkload{
    "namd", "NAMD-like MD step: patches, pair computes, coordinate multicast, force return, PME transposes", &kParams,
    [](const ParamReader& r) -> std::unique_ptr<Workload> { return std::make_unique<Namd>(r); }};

}  // namespace torsim::apps
