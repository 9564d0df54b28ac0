#include "models/collectives/algorithms.hpp"

#include <algorithm>
#include <vector>

namespace torsim::coll {

namespace {
int relative_to(Rank self, Rank root, int n) { return (self - root + n) % n; }
Rank absolute(std::int64_t relative, Rank root, int n) { return static_cast<Rank>((relative + root) % n); }
}  // namespace

Task<> dissemination_barrier(PointToPoint& p) {
  const int n = p.size();
  const Rank self = p.rank();
  for (int distance = 1; distance < n; distance *= 2) {
    Request in = p.irecv((self - distance + n) % n);
    co_await co_await p.isend((self + distance) % n, 0, 0);
    co_await in;
  }
}

Task<std::uint64_t> binomial_bcast(PointToPoint& p, Rank root, Bytes bytes, std::uint64_t word) {
  const int n = p.size();
  const int relative = relative_to(p.rank(), root, n);
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (relative & mask) {
      word = (co_await p.irecv(absolute(relative - mask, root, n))).word;
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (relative + mask < n) co_await co_await p.isend(absolute(relative + mask, root, n), bytes, word);
  co_return word;
}

Task<std::uint64_t> knomial_reduce(PointToPoint& p, Rank root, Bytes bytes, std::uint64_t word, int degree) {
  const int n = p.size();
  const int relative = relative_to(p.rank(), root, n);
  std::vector<Request> children;
  for (std::int64_t stride = 1; stride < n; stride *= degree) {
    if (const std::int64_t digit = relative / stride % degree; digit != 0) {
      co_await co_await p.isend(absolute(relative - digit * stride, root, n), bytes, word);
      break;
    }
    children.clear();
    for (std::int64_t child = relative + stride; child < n && child < relative + degree * stride; child += stride)
      children.push_back(p.irecv(absolute(child, root, n)));
    for (Request& child : children) {
      word += (co_await child).word;
      co_await p.combine(bytes);
    }
  }
  co_return word;
}

Task<std::uint64_t> recursive_doubling_allreduce(PointToPoint& p, Bytes bytes, std::uint64_t word) {
  const int n = p.size();
  const Rank self = p.rank();
  for (int mask = 1; mask < n; mask <<= 1) {
    Request in = p.irecv(self ^ mask);
    Request out = co_await p.isend(self ^ mask, bytes, word);
    word += (co_await in).word;
    co_await out;
    co_await p.combine(bytes);
  }
  co_return word;
}

Task<std::uint64_t> reduce_bcast_allreduce(PointToPoint& p, Bytes bytes, std::uint64_t word, int degree) {
  const std::uint64_t reduced = co_await knomial_reduce(p, 0, bytes, word, degree);
  p.next_phase();
  co_return co_await binomial_bcast(p, 0, bytes, reduced);
}

Task<std::uint64_t> binomial_gather(PointToPoint& p, Rank root, Bytes size_per_rank, std::uint64_t word) {
  const int n = p.size();
  const int relative = relative_to(p.rank(), root, n);
  std::int64_t held = 1;  // blocks this rank holds: its own and its subtree's so far
  for (int mask = 1; mask < n; mask <<= 1) {
    if (relative & mask) {
      co_await co_await p.isend(absolute(relative - mask, root, n), held * size_per_rank, word);
      break;
    }
    const int child = relative | mask;
    if (child < n) {
      word += (co_await p.irecv(absolute(child, root, n))).word;
      held += std::min(mask, n - child);
    }
  }
  co_return word;
}

Task<std::uint64_t> linear_gather(PointToPoint& p, Rank root, Bytes size_per_rank, std::uint64_t word) {
  const int n = p.size();
  if (p.rank() != root) {
    co_await co_await p.isend(root, size_per_rank, word);
    co_return word;
  }
  std::vector<Request> blocks;
  for (Rank r = 0; r < n; ++r)
    if (r != root) blocks.push_back(p.irecv(r));
  for (Request& block : blocks) word += (co_await block).word;
  co_return word;
}

Task<std::uint64_t> pairwise_alltoall(PointToPoint& p, Bytes size_per_pair, std::uint64_t word) {
  return pairwise_alltoallv(p, Blocks(size_per_pair, p.size()), word);
}

Task<std::uint64_t> linear_alltoall(PointToPoint& p, Bytes size_per_pair, std::uint64_t word) {
  return linear_alltoallv(p, Blocks(size_per_pair, p.size()), word);
}

Bytes Blocks::sum(int first, int count) const {
  if (sizes_.empty()) return each_ * count;
  Bytes total = 0;
  for (int r = first; r < first + count; ++r) total += sizes_[static_cast<std::size_t>(r)];
  return total;
}

Task<std::uint64_t> binomial_scatter(PointToPoint& p, Rank root, Bytes size_per_rank, std::uint64_t word) {
  const int n = p.size();
  const int relative = relative_to(p.rank(), root, n);
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if (relative & mask) {
      word = (co_await p.irecv(absolute(relative - mask, root, n))).word;
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    const int child = relative + mask;
    if (child < n) co_await co_await p.isend(absolute(child, root, n), std::min(mask, n - child) * size_per_rank, word);
  }
  co_return word;
}

Task<std::uint64_t> linear_scatterv(PointToPoint& p, Rank root, Blocks sizes, std::uint64_t word) {
  const int n = p.size();
  if (p.rank() != root) co_return (co_await p.irecv(root)).word;
  std::vector<Request> blocks;
  for (Rank r = 0; r < n; ++r)
    if (r != root) blocks.push_back(co_await p.isend(r, sizes[r], word));
  for (Request& block : blocks) co_await block;
  co_return word;
}

Task<std::uint64_t> ring_allgatherv(PointToPoint& p, Blocks sizes, std::uint64_t word) {
  const int n = p.size();
  const Rank self = p.rank();
  std::uint64_t sum = word, passing = word;
  for (int step = 0; step < n - 1; ++step) {
    Request in = p.irecv((self - 1 + n) % n);
    Request out = co_await p.isend((self + 1) % n, sizes[(self - step + n) % n], passing);
    passing = (co_await in).word;
    sum += passing;
    co_await out;
  }
  co_return sum;
}

Task<std::uint64_t> recursive_doubling_allgatherv(PointToPoint& p, Blocks sizes, std::uint64_t word) {
  const int n = p.size();
  const Rank self = p.rank();
  for (int mask = 1; mask < n; mask <<= 1) {
    Request in = p.irecv(self ^ mask);
    Request out = co_await p.isend(self ^ mask, sizes.sum(self & ~(mask - 1), mask), word);
    word += (co_await in).word;
    co_await out;
  }
  co_return word;
}

Task<std::uint64_t> pairwise_alltoallv(PointToPoint& p, Blocks sizes, std::uint64_t word) {
  const int n = p.size();
  const Rank self = p.rank();
  std::uint64_t held = word;  // the block a rank keeps for itself
  for (int step = 1; step < n; ++step) {
    Request in = p.irecv((self - step + n) % n);
    Request out = co_await p.isend((self + step) % n, sizes[(self + step) % n], word);
    held += (co_await in).word;
    co_await out;
  }
  co_return held;
}

Task<std::uint64_t> linear_alltoallv(PointToPoint& p, Blocks sizes, std::uint64_t word) {
  const int n = p.size();
  const Rank self = p.rank();
  std::vector<Request> in, out;
  for (int step = 1; step < n; ++step) in.push_back(p.irecv((self + step) % n));
  for (int step = 1; step < n; ++step)
    out.push_back(co_await p.isend((self + step) % n, sizes[(self + step) % n], word));
  std::uint64_t held = word;
  for (Request& block : in) held += (co_await block).word;
  for (Request& sent : out) co_await sent;
  co_return held;
}

Task<std::uint64_t> pairwise_reduce_scatter(PointToPoint& p, Blocks sizes, std::uint64_t word) {
  const int n = p.size();
  const Rank self = p.rank();
  std::uint64_t mine = word;
  for (int step = 1; step < n; ++step) {
    Request in = p.irecv((self - step + n) % n);
    Request out = co_await p.isend((self + step) % n, sizes[(self + step) % n], word);
    mine += (co_await in).word;
    co_await out;
    co_await p.combine(sizes[self]);
  }
  co_return mine;
}

Task<std::uint64_t> recursive_doubling_scan(PointToPoint& p, Bytes bytes, std::uint64_t word, bool exclusive) {
  const int n = p.size();
  const Rank self = p.rank();
  std::uint64_t partial = word, result = exclusive ? 0 : word;
  bool holds_result = !exclusive;  // an exclusive scan's first part is copied, not combined
  for (int mask = 1; mask < n; mask <<= 1) {
    const Rank partner = self ^ mask;
    if (partner >= n) continue;
    Request in = p.irecv(partner);
    Request out = co_await p.isend(partner, bytes, partial);
    const std::uint64_t theirs = (co_await in).word;
    co_await out;
    partial += theirs;
    co_await p.combine(bytes);
    if (partner > self) continue;
    result += theirs;
    if (holds_result) co_await p.combine(bytes);
    holds_result = true;
  }
  co_return result;
}

int knomial_levels(int ranks, int degree) {
  int levels = 0;
  for (std::int64_t span = 1; span < ranks; span *= degree) ++levels;
  return levels;
}

}  // namespace torsim::coll
