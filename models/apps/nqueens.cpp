// N-Queens as Charm++'s NQueen example runs it: a state-space search that creates a chare for
// every partial placement of the first rows, each seeded on a random PE (the random seed
// balancer) by a 20-byte state message; a chare on the last `grain` rows solves its subtree
// sequentially, at the machine's calibrated cost per node of the search tree. The subtree
// sizes are counted exactly (bitboard search), so the work per chare is the real one.
//
// The board is kept as three N-bit masks and the row in the message's word (N <= 19).
#include <memory>

#include "models/apps/micro.hpp"
#include "sim/core/random.hpp"

namespace torsim::apps {
namespace {

constexpr ParamSpec kSpecs[] = {
    {"name", ParamKind::text, kRequired, "", "", "", "workload name", "-"},
    {"board", ParamKind::integer, "16", "", "4", "19", "N, the board's side and number of queens", "-"},
    {"grain", ParamKind::integer, "9", "", "1", "19",
     "rows solved sequentially by a chare (the example's grainsize): chares are created for the first N - grain rows",
     "-"},
    {"state_bytes", ParamKind::size, "20B", "B", "0B", "1KiB", "payload of a seed message: five ints",
     "[C-code] Charm++ examples/charm++/NQueen (QueenState)"},
};
const ParamTable kParams{"workload (name: nqueens)", "Charm++-style N-Queens state-space search.", kSpecs};

struct Board {
  std::uint32_t cols, left, right, row;
};

std::uint64_t pack(const Board& b, int n) {
  return static_cast<std::uint64_t>(b.cols) | static_cast<std::uint64_t>(b.left) << n |
         static_cast<std::uint64_t>(b.right) << (2 * n) | static_cast<std::uint64_t>(b.row) << (3 * n);
}

Board unpack(std::uint64_t w, int n) {
  const std::uint64_t mask = (1ULL << n) - 1;
  return {static_cast<std::uint32_t>(w & mask), static_cast<std::uint32_t>((w >> n) & mask),
          static_cast<std::uint32_t>((w >> (2 * n)) & mask), static_cast<std::uint32_t>(w >> (3 * n))};
}

Board place(const Board& b, std::uint32_t bit, int n) {
  const std::uint32_t mask = (1u << n) - 1;
  return {b.cols | bit, ((b.left | bit) << 1) & mask, (b.right | bit) >> 1, b.row + 1};
}

// Nodes of the search tree below and including `b`, and the solutions among them.
void count_subtree(const Board& b, int n, std::int64_t& nodes, std::int64_t& solutions) {
  ++nodes;
  if (static_cast<int>(b.row) == n) {
    ++solutions;
    return;
  }
  std::uint32_t free = ~(b.cols | b.left | b.right) & ((1u << n) - 1);
  while (free) {
    const std::uint32_t bit = free & (0u - free);
    free ^= bit;
    count_subtree(place(b, bit, n), n, nodes, solutions);
  }
}

class NQueens final : public Workload {
 public:
  explicit NQueens(const ParamReader& r)
      : n_(static_cast<int>(r.integer("board"))), grain_(static_cast<int>(r.integer("grain"))),
        state_bytes_(r.size("state_bytes")), where_(r.where()) {
    if (grain_ > n_) r.where("grain").fail("the grain cannot exceed the board size " + std::to_string(n_));
  }

  void start(rt::MessagingLayer& layer) override {
    node_cost_ = layer.job().machine.compute_cost("nqueens_node", where_);
    rngs_.clear();
    for (Rank r = 0; r < layer.size(); ++r) rngs_.emplace_back(layer.job().seed, 5000 + static_cast<std::uint64_t>(r));
    handler_ = layer.register_handler(rt::AmHandler([this](Comm c, Envelope e) { return chare(c, e); }));
    live_ = 1;
    layer.kernel().spawn(seed_root(Comm(layer, 0)));
  }

  void finish(RunOutput& out) const override {
    out.metrics["time_ms"] = to_seconds(done_at_) * 1e3;
    out.metrics["chares"] = static_cast<double>(chares_);
    out.metrics["tree_nodes"] = static_cast<double>(nodes_);
    out.metrics["solutions"] = static_cast<double>(solutions_);
    out.metrics["mean_leaf_work_us"] = leaves_ ? to_microseconds(leaf_time_ / leaves_) : 0.0;
  }

 private:
  Task<> seed_root(Comm c) { co_await c.am_send(0, handler_, state_bytes_, pack({0, 0, 0, 0}, n_)); }

  // A chare: above the grain it seeds one chare per free column on random PEs; at the grain
  // it searches its subtree sequentially.
  Task<> chare(Comm c, Envelope e) {
    const Board b = unpack(e.word, n_);
    ++chares_;
    if (static_cast<int>(b.row) >= n_ - grain_) {
      std::int64_t nodes = 0, solutions = 0;
      count_subtree(b, n_, nodes, solutions);
      nodes_ += nodes;
      solutions_ += solutions;
      ++leaves_;
      leaf_time_ += nodes * node_cost_;
      co_await c.compute(nodes * node_cost_);
    } else {
      ++nodes_;
      co_await c.compute(node_cost_);
      std::uint32_t free = ~(b.cols | b.left | b.right) & ((1u << n_) - 1);
      while (free) {
        const std::uint32_t bit = free & (0u - free);
        free ^= bit;
        ++live_;
        const auto pe = static_cast<Rank>(rngs_[static_cast<std::size_t>(c.rank())].below(static_cast<std::uint64_t>(c.size())));
        co_await co_await c.am_isend(pe, handler_, state_bytes_, pack(place(b, bit, n_), n_));
      }
    }
    if (--live_ == 0) done_at_ = c.now();
  }

  int n_, grain_;
  Bytes state_bytes_;
  Where where_;
  Time node_cost_ = 0;
  std::vector<Rng> rngs_;
  rt::HandlerId handler_ = 0;
  std::int64_t live_ = 0, chares_ = 0, nodes_ = 0, solutions_ = 0, leaves_ = 0;
  Time leaf_time_ = 0, done_at_ = 0;
};

}  // namespace

const WorkloadEntry kNQueensWorkload{
    "nqueens", "Charm++-style N-Queens: a chare per partial placement above the grain, random seed placement", &kParams,
    [](const ParamReader& r) -> std::unique_ptr<Workload> { return std::make_unique<NQueens>(r); }};

}  // namespace torsim::apps
