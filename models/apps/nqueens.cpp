// N-Queens as Charm++'s NQueen example (examples/charm++/NQueen, 2011-2024) runs it. The
// main chare seeds one chare per square of the first row in half the board (plus the middle
// column of an odd board; mirror images count twice). A chare holding a partial board of r
// rows expands the next row: a child board of fewer than `grain` rows becomes a new chare,
// seeded on a uniformly random PE (Charm++'s default "rand" seed balancer) by a 20-byte state
// message; a child of `grain` rows is solved in place, sequentially (bitmask search). So
// chares hold boards of 1 .. grain-1 rows, and those of grain-1 rows do the search. Each
// search-tree node costs the machine's `compute.nqueens_node`; the subtrees are counted
// exactly (bitboard search), so each chare's work is the real one. The end is found by
// quiescence detection: two waves over a spanning tree of the PEs once all are idle.
//
// A message word holds the board: three N-bit masks, the row count, and whether the first
// queen is in the middle column of an odd board (its solutions are not mirrored). N <= 19.
#include <memory>

#include "models/apps/micro.hpp"
#include "sim/core/random.hpp"

namespace torsim::apps {
namespace {

struct NQueensParams {
  int n = 0;
  int grain = 0;
  Bytes state_bytes = 0;
  int branching = 0;
  Bytes qd_bytes = 0;
};
using P = NQueensParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind<&P::n>({"board", ParamKind::integer, "16", "", "4", "19", "N, the board's side and number of queens",
                 "[C-code] the example's first argument"}),
    bind<&P::grain>(
        {"grain", ParamKind::integer, "8", "", "2", "19",
         "the example's grainsize: boards of fewer rows become chares, boards of this many rows are solved in place",
         "[C-code] the example's second argument"}),
    bind<&P::state_bytes>({"state_bytes", ParamKind::size, "20B", "B", "0B", "1KiB",
                           "payload of a seed message: five ints",
                           "[C-code] Charm++ examples/charm++/NQueen (QueenState)"}),
    bind<&P::branching>({"qd_branching", ParamKind::integer, "4", "", "1", "64",
                         "children per PE in the spanning tree quiescence detection's waves travel on",
                         "assumption: Converse's default spanning tree"}),
    bind<&P::qd_bytes>({"qd_bytes", ParamKind::size, "32B", "B", "0B", "1KiB",
                        "payload of a quiescence-detection message", "assumption: two message counters and a phase"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: nqueens)", "Charm++'s NQueen example: a state-space search.", kSpecs};

struct Board {
  std::uint32_t cols, left, right, row;
  bool middle;  // the first queen is in the middle column of an odd board
};

constexpr std::uint64_t kMiddleBit = 1ULL << 63;

std::uint64_t pack(const Board& b, int n) {
  return static_cast<std::uint64_t>(b.cols) | static_cast<std::uint64_t>(b.left) << n |
         static_cast<std::uint64_t>(b.right) << (2 * n) | static_cast<std::uint64_t>(b.row) << (3 * n) |
         (b.middle ? kMiddleBit : 0);
}

Board unpack(std::uint64_t w, int n) {
  const std::uint64_t mask = (1ULL << n) - 1;
  return {static_cast<std::uint32_t>(w & mask), static_cast<std::uint32_t>((w >> n) & mask),
          static_cast<std::uint32_t>((w >> (2 * n)) & mask), static_cast<std::uint32_t>((w & ~kMiddleBit) >> (3 * n)),
          (w & kMiddleBit) != 0};
}

Board place(const Board& b, std::uint32_t bit, int n) {
  const std::uint32_t mask = (1u << n) - 1;
  return {b.cols | bit, ((b.left | bit) << 1) & mask, (b.right | bit) >> 1, b.row + 1, b.middle};
}

std::uint32_t free_columns(const Board& b, int n) { return ~(b.cols | b.left | b.right) & ((1u << n) - 1); }

// Nodes of the search tree below and including `b`, and the solutions among them.
void count_subtree(const Board& b, int n, std::int64_t& nodes, std::int64_t& solutions) {
  ++nodes;
  if (static_cast<int>(b.row) == n) {
    ++solutions;
    return;
  }
  for (std::uint32_t free = free_columns(b, n); free;) {
    const std::uint32_t bit = free & (0u - free);
    free ^= bit;
    count_subtree(place(b, bit, n), n, nodes, solutions);
  }
}

class NQueens final : public Workload {
 public:
  explicit NQueens(const ParamReader& r) : p_(parse_fields(r, kFields)), where_(r.where()) {
    if (p_.grain > p_.n) r.where("grain").fail("the grain cannot exceed the board size " + std::to_string(p_.n));
  }

  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    node_cost_ = job.machine.compute_cost("nqueens_node", where_);
  }

  void start(rt::MessagingLayer& layer) override {
    rngs_.clear();
    for (Rank r = 0; r < layer.size(); ++r) rngs_.emplace_back(layer.job().seed, 5000 + static_cast<std::uint64_t>(r));
    handler_ = layer.register_handler(rt::AmHandler([this](Comm c, Envelope e) { return chare(c, e); }));
    qd_handler_ = layer.register_handler(rt::AmHandler([this](Comm c, Envelope e) { return wave(c, e); }));
    qd_replies_.assign(static_cast<std::size_t>(layer.size()), 0);
    layer.kernel().spawn(main_chare(Comm(layer, 0)));
  }

  void finish(RunOutput& out) const override {
    out.metrics["time_ms"] = to_seconds(done_at_) * 1e3;
    out.metrics["search_done_ms"] = to_seconds(search_done_at_) * 1e3;
    out.metrics["chares"] = static_cast<double>(chares_);
    out.metrics["messages_per_pe"] = static_cast<double>(chares_) / static_cast<double>(pes_);
    out.metrics["tree_nodes"] = static_cast<double>(nodes_);
    out.metrics["solutions"] = static_cast<double>(solutions_);
    out.metrics["mean_leaf_work_us"] = leaves_ ? to_microseconds(leaf_time_ / leaves_) : 0.0;
  }

 private:
  // The main chare seeds the first row's chares: half the board, and the middle of an odd one.
  Task<> main_chare(Comm c) {
    pes_ = c.size();
    ++live_;  // the main chare itself, until it has seeded the first row
    for (int column = 0; column < (p_.n + 1) / 2; ++column) {
      const Board b = place({0, 0, 0, 0, p_.n % 2 == 1 && column == p_.n / 2}, 1u << column, p_.n);
      co_await seed(c, b);
    }
    finished(c);
  }

  // Once nothing is left to do, quiescence detection's clean waves start from PE 0.
  void finished(Comm c) {
    if (--live_ > 0) return;
    search_done_at_ = c.now();
    c.kernel().spawn(wave(Comm(c.layer(), 0), Envelope{}));
  }

  Task<> seed(Comm c, const Board& b) {
    ++live_;
    const auto pe =
        static_cast<Rank>(rngs_[static_cast<std::size_t>(c.rank())].below(static_cast<std::uint64_t>(c.size())));
    co_await co_await c.am_isend(pe, handler_, p_.state_bytes, pack(b, p_.n));
  }

  // A chare expands the next row: children below the grain become chares, the others are
  // searched here.
  Task<> chare(Comm c, Envelope e) {
    const Board b = unpack(e.word, p_.n);
    ++chares_;
    if (static_cast<int>(b.row) + 1 >= p_.grain) {
      std::int64_t nodes = 0, solutions = 0;
      count_subtree(b, p_.n, nodes, solutions);
      nodes_ += nodes;
      solutions_ += solutions * (b.middle ? 1 : 2);
      ++leaves_;
      leaf_time_ += nodes * node_cost_;
      co_await c.compute(nodes * node_cost_);
    } else {
      ++nodes_;
      co_await c.compute(node_cost_);
      for (std::uint32_t free = free_columns(b, p_.n); free;) {
        const std::uint32_t bit = free & (0u - free);
        free ^= bit;
        co_await seed(c, place(b, bit, p_.n));
      }
    }
    finished(c);
  }

  // ---- Quiescence detection: PE 0 sends a wave down the spanning tree; each PE forwards it
  // to its children and answers its parent once its children have; two clean waves end it.

  Task<> wave(Comm c, Envelope e) {
    const int round = static_cast<int>(e.word >> 1);
    const bool up = e.word & 1;
    const Rank me = c.rank();
    const int children = child_count(me, c.size());
    if (!up) {
      for (int k = 1; k <= children; ++k)
        co_await co_await c.am_isend(me * p_.branching + k, qd_handler_, p_.qd_bytes, e.word);
    } else if (++qd_replies_[static_cast<std::size_t>(me)] < children) {
      co_return;
    }
    if (up || children == 0) co_await answer(c, round);
  }

  Task<> answer(Comm c, int round) {
    const Rank me = c.rank();
    qd_replies_[static_cast<std::size_t>(me)] = 0;
    if (me != 0)
      co_return co_await c.am_send((me - 1) / p_.branching, qd_handler_, p_.qd_bytes,
                                   static_cast<std::uint64_t>(round) << 1 | 1);
    if (round == 0) co_return co_await wave(c, Envelope{0, 0, 0, 0, std::uint64_t{1} << 1});
    done_at_ = c.now();
  }

  int child_count(Rank pe, int pes) const {
    const std::int64_t first = static_cast<std::int64_t>(pe) * p_.branching + 1;
    return static_cast<int>(std::clamp<std::int64_t>(pes - first, 0, p_.branching));
  }

  const NQueensParams p_;
  Where where_;
  mutable Time node_cost_ = 0;  // the machine's, read in check() (as the run is built)
  std::vector<Rng> rngs_;
  rt::HandlerId handler_ = 0, qd_handler_ = 0;
  std::vector<int> qd_replies_;
  int pes_ = 1;
  std::int64_t live_ = 0, chares_ = 0, nodes_ = 0, solutions_ = 0, leaves_ = 0;
  Time leaf_time_ = 0, done_at_ = 0, search_done_at_ = 0;
};

}  // namespace

const WorkloadEntry kNQueensWorkload{
    "nqueens",
    "Charm++'s NQueen example: a chare per partial board below the grain, random seed placement, quiescence detection",
    &kParams, [](const ParamReader& r) -> std::unique_ptr<Workload> { return std::make_unique<NQueens>(r); }};

}  // namespace torsim::apps
