#include "models/runtime/via/collective_model.hpp"

#include <algorithm>

#include "models/collectives/algorithms.hpp"

namespace torsim::rt {

namespace {
int ceil_log2(int n) {
  int c = 0;
  while ((std::int64_t{1} << c) < n) ++c;
  return c;
}
bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }
}  // namespace

Time ViaModel::send(Bytes m) const {
  if (transport_ == Transport::rdma) return c_.post;
  return c_.send_cpu + (c_.send_copies ? copy(m) : 0) + c_.post;
}

Time ViaModel::receive_cpu(Bytes m) const {
  if (transport_ == Transport::rdma) return c_.flag_poll;
  return c_.completion_poll + c_.recv_cpu + c_.match_cpu + copy(m) + c_.post;  // the last: the re-post
}

Time ViaModel::wire(Bytes m) const {
  const Bytes extra = transport_ == Transport::rdma ? c_.flag_bytes : c_.header;
  return transfer_time(c_.format.wire_bytes(m + extra), c_.rate);
}

Time ViaModel::ends(Bytes in, Bytes out) const {
  if (transport_ != Transport::rdma) return 0;
  return (c_.send_copies ? copy(in) : 0) + copy(out);
}

// A rank r (relative to the root) gets the data after popcount(r) hops and, at the ranks it
// passes through, after c - popcount(r) earlier sends that each hold the sender for
// max(send, wire) (c = ceil(log2 n)). A hop is longer than a send, so the deepest rank
// decides: all c hops on a power of two, c - 1 hops and one earlier send otherwise.
Time ViaModel::tree(int ranks, Bytes m) const {
  if (ranks <= 1) return 0;
  const int c = ceil_log2(ranks);
  const int hops = power_of_two(ranks) ? c : c - 1;
  return hops * hop(m) + (c - hops) * std::max(send(m), wire(m));
}

Time ViaModel::level(int children, Bytes m) const {
  const Time each = receive_cpu(m) + combine(m);
  return send(m) + c_.latency + wire(m) + receive_nic() + each + (children - 1) * std::max(wire(m), each);
}

Time ViaModel::levels(int ranks, Bytes m, int degree) const {
  const int depth = coll::knomial_levels(ranks, degree);
  if (depth == 0) return 0;
  std::int64_t span = 1;  // ranks under one child of the top level
  for (int i = 1; i < depth; ++i) span *= degree;
  const int top_children = static_cast<int>((ranks + span - 1) / span) - 1;
  return (depth - 1) * level(degree - 1, m) + level(top_children, m);
}

Time ViaModel::barrier(int ranks) const { return ceil_log2(ranks) * hop(0); }

Time ViaModel::bcast(int ranks, Bytes m) const { return ends(m, m) + tree(ranks, m); }

Time ViaModel::reduce(int ranks, Bytes m, int degree) const { return ends(m, m) + levels(ranks, m, degree); }

Time ViaModel::reduce_bcast_allreduce(int ranks, Bytes m, int degree) const {
  return ends(m, m) + levels(ranks, m, degree) + tree(ranks, m);
}

Time ViaModel::recursive_doubling_allreduce(int ranks, Bytes m) const {
  return ends(m, m) + ceil_log2(ranks) * (hop(m) + combine(m));
}

int ViaModel::best_degree(int ranks, Bytes m) const {
  int best = 2;
  for (int k = 3; k <= ranks; ++k)
    if (levels(ranks, m, k) < levels(ranks, m, best)) best = k;
  return best;
}

}  // namespace torsim::rt
