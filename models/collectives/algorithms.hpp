// Collective algorithms over a point-to-point interface (point_to_point.hpp), so that every
// messaging layer and machine runs the same code: each is one rank's part, called on every
// rank of the job with the same arguments. Ranks are numbered relative to the root where
// there is one. Words stand for the data (see rt::CollectiveAlgorithms): reductions sum them.
//
// The schedules (who sends what to whom in which step) are those of MPICH's classic
// algorithms (Thakur, Rabenseifner, Gropp, IJHPCA 2005) and of the k-nomial tree; the unit
// tests (tests/unit/collectives_test.cpp) spell them out.
#pragma once

#include <span>

#include "models/collectives/point_to_point.hpp"

namespace torsim::coll {

/// Dissemination barrier (Hensgen, Finkel, Manber 1988): in round i every rank sends to
/// rank + 2^i and waits for rank - 2^i; ceil(log2 n) rounds, any n.
Task<> dissemination_barrier(PointToPoint& p);

/// Binomial-tree broadcast: a rank receives from the rank that differs in its lowest set bit
/// (relative to the root), then sends to relative + 2^j for every 2^j below that bit, the
/// farthest first. ceil(log2 n) steps. Returns the root's word.
Task<std::uint64_t> binomial_bcast(PointToPoint& p, Rank root, Bytes bytes, std::uint64_t word);

/// k-nomial-tree reduction of degree k >= 2 (k = 2: the binomial reduce). At level l (stride
/// k^l) a rank whose base-k digit l is non-zero sends its partial result to the rank with that
/// digit cleared and is done; the others receive from their up to k-1 children relative +
/// j k^l (j = 1..k-1; all posted, then combined in j order), combining each. ceil(log_k n)
/// levels. Returns the sum at the root.
Task<std::uint64_t> knomial_reduce(PointToPoint& p, Rank root, Bytes bytes, std::uint64_t word, int degree);

/// Recursive-doubling allreduce (n a power of two): in step i, exchange with rank XOR 2^i and
/// combine. log2 n steps.
Task<std::uint64_t> recursive_doubling_allreduce(PointToPoint& p, Bytes bytes, std::uint64_t word);

/// Allreduce as a k-nomial reduce to rank 0, then a binomial broadcast from it (two phases).
Task<std::uint64_t> reduce_bcast_allreduce(PointToPoint& p, Bytes bytes, std::uint64_t word, int degree);

/// Binomial-tree gather: like the binomial reduce, but a subtree's blocks travel up
/// concatenated (a message grows with the subtree). Returns the sum of every word at the root.
Task<std::uint64_t> binomial_gather(PointToPoint& p, Rank root, Bytes size_per_rank, std::uint64_t word);

/// Linear gather: the root posts a receive from every rank (in rank order) and every other
/// rank sends its block straight to it.
Task<std::uint64_t> linear_gather(PointToPoint& p, Rank root, Bytes size_per_rank, std::uint64_t word);

/// Pairwise-exchange all-to-all: in step i (1..n-1), send to rank + i and receive from
/// rank - i, one pair at a time.
Task<std::uint64_t> pairwise_alltoall(PointToPoint& p, Bytes size_per_pair, std::uint64_t word);

/// Linear all-to-all: every receive posted (from rank + 1 on), then every send (to rank + 1 on),
/// then all awaited: all n-1 messages of a rank in flight at once.
Task<std::uint64_t> linear_alltoall(PointToPoint& p, Bytes size_per_pair, std::uint64_t word);

// ---- Operations with a block per rank (scatter, allgather, the v-variants), reduce-scatter
// and scan. Where a rank's block sizes differ (the v-variants), the sizes a rank passes are
// those MPI gives it: a sender knows what it sends, so a receiver need not know the size.

/// The block size of each of n ranks: one size for all (scatter, allgather) or one each
/// (scatterv, allgatherv, alltoallv, reduce_scatter); a view, the sizes outlive it.
class Blocks {
 public:
  Blocks(Bytes each, int ranks) : each_(each), ranks_(ranks) {}
  explicit Blocks(std::span<const Bytes> sizes) : sizes_(sizes), ranks_(static_cast<int>(sizes.size())) {}
  int ranks() const { return ranks_; }
  Bytes operator[](int rank) const { return sizes_.empty() ? each_ : sizes_[static_cast<std::size_t>(rank)]; }
  /// Bytes of ranks first .. first + count - 1.
  Bytes sum(int first, int count) const;

 private:
  std::span<const Bytes> sizes_;
  Bytes each_ = 0;
  int ranks_;
};

/// Binomial-tree scatter: the root's blocks travel down the broadcast's tree, a subtree's
/// blocks in one message (a rank receives its subtree's, keeps its own, sends each child
/// subtree its part, the farthest first). ceil(log2 n) steps. Returns the root's word.
Task<std::uint64_t> binomial_scatter(PointToPoint& p, Rank root, Bytes size_per_rank, std::uint64_t word);

/// Linear scatter(v): the root sends every other rank its block (sizes[r]), all posted at
/// once, then waits for them. Returns the root's word.
Task<std::uint64_t> linear_scatterv(PointToPoint& p, Rank root, Blocks sizes, std::uint64_t word);

/// Ring allgather(v): in step i (0..n-2) a rank sends block rank - i to rank + 1 and receives
/// block rank - i - 1 from rank - 1. Returns the sum of every rank's word.
Task<std::uint64_t> ring_allgatherv(PointToPoint& p, Blocks sizes, std::uint64_t word);

/// Recursive-doubling allgather(v), n a power of two: in step i a rank exchanges the 2^i
/// blocks it holds with rank XOR 2^i. log2 n steps. Returns the sum of every rank's word.
Task<std::uint64_t> recursive_doubling_allgatherv(PointToPoint& p, Blocks sizes, std::uint64_t word);

/// Pairwise-exchange all-to-all(v): in step i (1..n-1), send sizes[rank + i] to rank + i and
/// receive from rank - i, one pair at a time (`sizes` are this rank's send sizes).
Task<std::uint64_t> pairwise_alltoallv(PointToPoint& p, Blocks sizes, std::uint64_t word);

/// Linear all-to-all(v): every receive posted, then every send (to rank + 1 on), then all
/// awaited.
Task<std::uint64_t> linear_alltoallv(PointToPoint& p, Blocks sizes, std::uint64_t word);

/// Pairwise-exchange reduce-scatter (MPICH's for non-commutative or long data): in step i
/// (1..n-1), send rank + i the partial block it owns (sizes[rank + i]), receive from rank - i
/// its contribution to this rank's block and combine it. Returns the sum of every rank's word
/// (this rank's block, fully reduced).
Task<std::uint64_t> pairwise_reduce_scatter(PointToPoint& p, Blocks sizes, std::uint64_t word);

/// Recursive-doubling scan (MPICH's, any n): in step i exchange the partial result of the
/// 2^i-aligned group with rank XOR 2^i (if below n); fold it into the partial result, and into
/// this rank's result when it comes from below. Returns the sum of the words of ranks 0..rank
/// (inclusive), or of ranks 0..rank-1 with `exclusive` (0 on rank 0).
Task<std::uint64_t> recursive_doubling_scan(PointToPoint& p, Bytes bytes, std::uint64_t word, bool exclusive);

/// Levels of a k-nomial tree over n ranks: ceil(log_k n) (0 for one rank).
int knomial_levels(int ranks, int degree);

}  // namespace torsim::coll
