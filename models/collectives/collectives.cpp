#include "models/collectives/collectives.hpp"

#include "models/collectives/algorithms.hpp"
#include "sim/config/fields.hpp"
#include "sim/config/provenance.hpp"
#include "sim/config/unused.hpp"

namespace torsim::coll {

namespace {

constexpr ChoiceName<ReduceAlgorithm> kReduceNames[] = {{"binomial", ReduceAlgorithm::binomial},
                                                        {"knomial", ReduceAlgorithm::knomial}};
constexpr ChoiceName<AllreduceAlgorithm> kAllreduceNames[] = {
    {"auto", AllreduceAlgorithm::automatic},
    {"recursive_doubling", AllreduceAlgorithm::recursive_doubling},
    {"reduce_bcast", AllreduceAlgorithm::reduce_bcast}};
constexpr ChoiceName<GatherAlgorithm> kGatherNames[] = {{"binomial", GatherAlgorithm::binomial},
                                                        {"linear", GatherAlgorithm::linear}};
constexpr ChoiceName<AlltoallAlgorithm> kAlltoallNames[] = {{"pairwise", AlltoallAlgorithm::pairwise},
                                                            {"linear", AlltoallAlgorithm::linear}};
constexpr ChoiceName<AllgatherAlgorithm> kAllgatherNames[] = {
    {"auto", AllgatherAlgorithm::automatic},
    {"ring", AllgatherAlgorithm::ring},
    {"recursive_doubling", AllgatherAlgorithm::recursive_doubling}};

using S = Selection;
constexpr Field<S> kFields[] = {
    bind_choice<&S::reduce, kReduceNames>({"reduce", ParamKind::choice, "binomial", "", "", "",
                                           "reduce algorithm: binomial tree, or k-nomial tree of degree `degree`",
                                           "MPICH-1's binomial reduce by default", "binomial|knomial"}),
    bind<&S::degree>(
        {"degree", ParamKind::integer, "0", "", "0", "1024",
         "k of the k-nomial reduce (k-1 children per level); 0: the layer's choice (2 unless the layer has a model to "
         "pick it)",
         "-"}),
    bind_choice<&S::allreduce, kAllreduceNames>(
        {"allreduce", ParamKind::choice, "auto", "", "", "",
         "auto: recursive doubling on a power-of-two rank count, else reduce then broadcast; recursive_doubling "
         "(powers "
         "of two only); reduce_bcast: the reduce algorithm to rank 0, then a binomial broadcast",
         "MPICH's classic choice by default", "auto|recursive_doubling|reduce_bcast"}),
    bind_choice<&S::gather, kGatherNames>({"gather", ParamKind::choice, "binomial", "", "", "", "gather algorithm",
                                           "MPICH's binomial gather by default", "binomial|linear"}),
    bind_choice<&S::alltoall, kAlltoallNames>({"alltoall", ParamKind::choice, "pairwise", "", "", "",
                                               "pairwise: one exchange per step; linear: every message posted at once",
                                               "-", "pairwise|linear"}),
    bind_choice<&S::alltoallv, kAlltoallNames>({"alltoallv", ParamKind::choice, "linear", "", "", "",
                                                "all-to-all with a size per pair (trace replay): "
                                                "pairwise or linear, as for alltoall",
                                                "MPICH's MPIR_Alltoallv_intra posts every isend and irecv at once",
                                                "pairwise|linear"}),
    bind_choice<&S::allgather, kAllgatherNames>(
        {"allgather", ParamKind::choice, "auto", "", "", "",
         "allgather and allgatherv (trace replay): auto: recursive doubling on a power-of-two rank count below 80 KiB "
         "gathered in all, else ring; ring; recursive_doubling (powers of two only)",
         "MPICH's MPIR_Allgather_intra (its Bruck algorithm for short data on other rank counts is not modelled: ring "
         "instead)",
         "auto|ring|recursive_doubling"}),
};

constexpr auto kSpecs = specs_of(kFields);

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Recursive doubling where the selection asks for it (on a power-of-two channel) or leaves
// the choice and the channel is a power of two.
bool allreduce_doubles(const Selection& s, int ranks) {
  return power_of_two(ranks) && s.allreduce != AllreduceAlgorithm::reduce_bcast;
}

}  // namespace

const ParamTable kSelectionParams{"runtime.collectives",
                                  "Which collective algorithm each operation runs, for any messaging layer "
                                  "(models/collectives; docs/models/collectives.md). Barrier: dissemination; "
                                  "broadcast: binomial tree.",
                                  kSpecs};

Selection parse_selection(const ParamReader& r, int ranks) {
  const Selection s = parse_fields(r, kFields);
  if (s.degree == 1) r.where("degree").fail("a k-nomial tree needs a degree of at least 2 (0: the layer's choice)");
  if (r.has("degree") && s.reduce != ReduceAlgorithm::knomial)
    not_used(r.where("degree"), "degree is read only with reduce knomial (the binomial tree has none)");
  if (s.allreduce == AllreduceAlgorithm::recursive_doubling && !power_of_two(ranks))
    r.where("allreduce")
        .fail("recursive doubling needs a power-of-two number of ranks; the job has " + std::to_string(ranks) +
              " (use \"auto\" or \"reduce_bcast\")");
  if (s.allgather == AllgatherAlgorithm::recursive_doubling && !power_of_two(ranks))
    r.where("allgather")
        .fail("recursive doubling needs a power-of-two number of ranks; the job has " + std::to_string(ranks) +
              " (use \"auto\" or \"ring\")");
  return s;
}

Selection default_selection() {
  static const Json nothing_given = Json::object();
  const ReadLog::Pause not_input;  // no scenario key: nothing to record as read
  return parse_fields(ParamReader(nothing_given, Where("(defaults)"), kSelectionParams), kFields);
}

std::unique_ptr<Algorithms> make_algorithms(const Json& spec, const Where& where, int ranks) {
  return std::make_unique<Algorithms>(parse_selection(ParamReader(spec, where, kSelectionParams), ranks));
}

std::unique_ptr<PointToPoint> Algorithms::channel(Comm c, rt::CollectiveOp, Bytes) const {
  return std::make_unique<TwoSided>(c);
}

int Algorithms::reduce_degree(int ranks, Bytes bytes) const {
  if (selection_.reduce == ReduceAlgorithm::binomial) return 2;
  return selection_.degree > 0 ? selection_.degree : preferred_degree(ranks, bytes);
}

bool Algorithms::recursive_doubling(int ranks) const { return allreduce_doubles(selection_, ranks); }

Task<std::uint64_t> run_allreduce(PointToPoint& p, const Selection& s, Bytes bytes, std::uint64_t word, int degree) {
  if (allreduce_doubles(s, p.size())) return recursive_doubling_allreduce(p, bytes, word);
  return reduce_bcast_allreduce(p, bytes, word, degree);
}

Task<std::uint64_t> run_gather(PointToPoint& p, const Selection& s, Rank root, Bytes size_per_rank,
                               std::uint64_t word) {
  if (s.gather == GatherAlgorithm::linear) return linear_gather(p, root, size_per_rank, word);
  return binomial_gather(p, root, size_per_rank, word);
}

Task<std::uint64_t> run_alltoallv(PointToPoint& p, AlltoallAlgorithm algorithm, Blocks sizes, std::uint64_t word) {
  if (algorithm == AlltoallAlgorithm::linear) return linear_alltoallv(p, sizes, word);
  return pairwise_alltoallv(p, sizes, word);
}

Task<std::uint64_t> run_allgatherv(PointToPoint& p, const Selection& s, Blocks sizes, std::uint64_t word) {
  const bool doubling =
      power_of_two(p.size()) &&
      (s.allgather == AllgatherAlgorithm::recursive_doubling ||
       (s.allgather == AllgatherAlgorithm::automatic && sizes.sum(0, sizes.ranks()) < kAllgatherShortBytes));
  if (doubling) return recursive_doubling_allgatherv(p, sizes, word);
  return ring_allgatherv(p, sizes, word);
}

Task<> Algorithms::barrier(Comm c) const {
  const auto ch = channel(c, rt::CollectiveOp::barrier, 0);
  co_await dissemination_barrier(*ch);
  co_await ch->finish(0);
}

Task<std::uint64_t> Algorithms::bcast(Comm c, Rank root, Bytes bytes, std::uint64_t word) const {
  const auto ch = channel(c, rt::CollectiveOp::bcast, bytes);
  const std::uint64_t result = co_await binomial_bcast(*ch, root, bytes, word);
  co_await ch->finish(bytes);
  co_return result;
}

Task<std::uint64_t> Algorithms::reduce(Comm c, Rank root, Bytes bytes, std::uint64_t word) const {
  const auto ch = channel(c, rt::CollectiveOp::reduce, bytes);
  const std::uint64_t result = co_await knomial_reduce(*ch, root, bytes, word, reduce_degree(c.size(), bytes));
  co_await ch->finish(c.rank() == root ? bytes : 0);
  co_return result;
}

Task<std::uint64_t> Algorithms::allreduce(Comm c, Bytes bytes, std::uint64_t word) const {
  const auto ch = channel(c, rt::CollectiveOp::allreduce, bytes);
  const std::uint64_t result = co_await run_allreduce(*ch, selection_, bytes, word, reduce_degree(c.size(), bytes));
  co_await ch->finish(bytes);
  co_return result;
}

Task<std::uint64_t> Algorithms::gather(Comm c, Rank root, Bytes size_per_rank, std::uint64_t word) const {
  const auto ch = channel(c, rt::CollectiveOp::gather, size_per_rank);
  const std::uint64_t result = co_await run_gather(*ch, selection_, root, size_per_rank, word);
  co_await ch->finish(c.rank() == root ? size_per_rank * c.size() : 0);
  co_return result;
}

Task<std::uint64_t> Algorithms::alltoall(Comm c, Bytes size_per_pair, std::uint64_t word) const {
  const auto ch = channel(c, rt::CollectiveOp::alltoall, size_per_pair);
  const std::uint64_t result = co_await run_alltoallv(*ch, selection_.alltoall, Blocks(size_per_pair, c.size()), word);
  co_await ch->finish(size_per_pair * c.size());
  co_return result;
}

}  // namespace torsim::coll
