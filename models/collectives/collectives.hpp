// The collectives a messaging layer runs by default: the algorithms of algorithms.hpp over a
// point-to-point channel, chosen per operation by the scenario's "runtime.collectives" object
// (default: MPICH's classic choices). make_messaging_layer installs them on every layer that
// did not install its own; a layer with a transport of its own for collectives derives from
// Algorithms and overrides channel() (and preferred_degree()).
#pragma once

#include <memory>

#include "models/collectives/algorithms.hpp"

namespace torsim::coll {

enum class ReduceAlgorithm : std::uint8_t { binomial, knomial };
enum class AllreduceAlgorithm : std::uint8_t { automatic, recursive_doubling, reduce_bcast };
enum class GatherAlgorithm : std::uint8_t { binomial, linear };
enum class AlltoallAlgorithm : std::uint8_t { pairwise, linear };
enum class AllgatherAlgorithm : std::uint8_t { automatic, ring, recursive_doubling };

/// Which algorithm each operation runs. Barrier (dissemination), broadcast and scatter
/// (binomial), gatherv and scatterv (linear), reduce-scatter (pairwise) and scan (recursive
/// doubling) have one each so far. The defaults are kSelectionParams's: default_selection().
struct Selection {
  ReduceAlgorithm reduce{};
  int degree = 0;  // of the k-nomial reduce; 0: the layer's choice (preferred_degree)
  AllreduceAlgorithm allreduce{};
  GatherAlgorithm gather{};
  AlltoallAlgorithm alltoall{};
  AlltoallAlgorithm alltoallv{};
  AllgatherAlgorithm allgather{};  // and allgatherv
};

/// Below this many bytes gathered in all, "auto" allgathers run recursive doubling on a
/// power-of-two number of ranks (MPICH's MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE, 81,920 B).
inline constexpr Bytes kAllgatherShortBytes = 81920;

/// The operations whose algorithm the selection picks, run over any channel: the whole job's
/// (Algorithms) or a group's (GroupChannel). On a channel whose size is not a power of two,
/// recursive doubling (allreduce, allgather) gives way to the other algorithm. `degree` is the
/// k-nomial reduce's (Algorithms::reduce_degree).
Task<std::uint64_t> run_allreduce(PointToPoint& p, const Selection& s, Bytes bytes, std::uint64_t word, int degree);
Task<std::uint64_t> run_gather(PointToPoint& p, const Selection& s, Rank root, Bytes size_per_rank, std::uint64_t word);
Task<std::uint64_t> run_alltoallv(PointToPoint& p, AlltoallAlgorithm algorithm, Blocks sizes, std::uint64_t word);
Task<std::uint64_t> run_allgatherv(PointToPoint& p, const Selection& s, Blocks sizes, std::uint64_t word);

extern const ParamTable kSelectionParams;
/// Parses a "collectives" object for a job of `ranks` ranks (recursive doubling needs a power
/// of two); errors name the JSON path.
Selection parse_selection(const ParamReader& r, int ranks);
/// The selection of a "collectives" object that gives nothing: every declared default.
Selection default_selection();

class Algorithms : public rt::CollectiveAlgorithms {
 public:
  explicit Algorithms(const Selection& selection) : selection_(selection) {}
  Task<> barrier(Comm c) const override;
  Task<std::uint64_t> bcast(Comm c, Rank root, Bytes bytes, std::uint64_t word) const override;
  Task<std::uint64_t> reduce(Comm c, Rank root, Bytes bytes, std::uint64_t word) const override;
  Task<std::uint64_t> allreduce(Comm c, Bytes bytes, std::uint64_t word) const override;
  Task<std::uint64_t> gather(Comm c, Rank root, Bytes size_per_rank, std::uint64_t word) const override;
  Task<std::uint64_t> alltoall(Comm c, Bytes size_per_pair, std::uint64_t word) const override;
  const Selection& selection() const { return selection_; }

  /// The degree the reduce (and a reduce-then-broadcast allreduce) uses for `bytes` on `ranks`
  /// ranks: the selection's, or the layer's choice, or 2 for the binomial reduce.
  int reduce_degree(int ranks, Bytes bytes) const;
  /// Whether allreduce runs recursive doubling on `ranks` ranks (else reduce then broadcast).
  bool recursive_doubling(int ranks) const;

 protected:
  /// The channel one rank's part of one call of `op` on `bytes` (per rank, or per pair) runs
  /// over. Default: the layer's two-sided messages (TwoSided).
  virtual std::unique_ptr<PointToPoint> channel(Comm c, rt::CollectiveOp op, Bytes bytes) const;
  /// The k-nomial degree when the selection leaves it to the layer. Default: 2.
  virtual int preferred_degree(int /*ranks*/, Bytes /*bytes*/) const { return 2; }

 private:
  Selection selection_;
};

/// The default collectives for `ranks` ranks, from a "collectives" object (may be empty).
std::unique_ptr<Algorithms> make_algorithms(const Json& spec, const Where& where, int ranks);

}  // namespace torsim::coll
