// The Blue Gene/Q message unit's collective class routes: a spanning tree of the job's nodes
// set up in the torus routers, up which the routers combine every node's contribution (sums,
// minima, maxima, bitwise operations, integer and double precision) and down which the
// result is broadcast; there is no separate collective network. MPI over PAMI uses route 0
// for MPI_COMM_WORLD when the job's nodes form a rectangular block of the torus.
//
// Timing of one operation (every rank of the job calls it):
//  - a node is ready when its last rank has arrived and combined the node's contributions
//    (a cost the messaging layer gives, charged on that rank's core);
//  - up the tree, a router forwards once its node and all its children are in:
//    up(v) = max(ready(v), max over children c of up(c) + hop(c, v));
//  - at the root the result turns round: down(root) = up(root) + the rest of the stream (the
//    packets after the first at the slowest link's rate); down(c) = down(parent) + hop;
//  - a node's ranks resume at down(v) + the node's NIC latency (injection, ejection, host).
// hop = the link's latency + one packet's serialisation on it. The class route's packets
// do not book time on the packet model's links (a separate virtual channel; a documented
// limitation: collectives and point-to-point traffic do not slow each other down).
#pragma once

#include <vector>

#include "models/node/job.hpp"
#include "sim/core/fifo.hpp"

namespace torsim::topo {
class Torus;
}

namespace torsim::nic {

using node::Rank;
using topo::NodeId;

class ClassRoute {
 public:
  explicit ClassRoute(node::Job& job);
  /// Whether the job has a class route: its nodes are a rectangular block of a torus.
  bool available() const { return !parent_.empty(); }
  /// Hops from the deepest node to the root.
  int depth() const { return depth_; }
  /// An allreduce of `bytes` (a barrier: 0) of every rank's `word` (summed, wrapping):
  /// returns the sum when the result is back at `self`. `local_combine` is charged on the
  /// core of the node's last rank to arrive.
  Task<std::uint64_t> allreduce(Rank self, Bytes bytes, std::uint64_t word, Time local_combine);

 private:
  class Arrival;
  struct NodeState {
    int arrived = 0;
    int pending = 0;  // inputs still to come: the node's own and its children's
    Time up = 0;
    Fifo<std::coroutine_handle<>> waiting;
  };
  struct Block;
  void build(const topo::Torus& torus);
  void number_nodes(const topo::Torus& torus, const Block& block);
  void link_towards_root(const topo::Torus& torus, const Block& block);
  void link_children();
  void arrive(std::size_t node, Bytes bytes, Time ready);
  void node_ready(std::size_t node, Time ready);
  void turn_round(std::size_t root);
  void wake(std::uint64_t node);
  /// Latency and one packet's serialisation on the link between a node and its parent.
  Time hop(std::size_t child) const;

  node::Job& job_;
  std::vector<NodeId> nodes_;                          // the block's nodes, in tree-index order
  std::vector<std::size_t> index_of_node_;             // node id -> tree index (or npos)
  std::vector<std::uint32_t> parent_;                  // per tree index; the root is its own parent
  std::vector<std::uint32_t> child_begin_, children_;  // children of i: [begin[i], begin[i+1])
  std::vector<topo::LinkId> up_link_;                  // per tree index: the link to its parent
  std::vector<NodeState> state_;
  std::uint32_t root_ = 0;
  int depth_ = 0;
  Bytes bytes_ = 0;           // of the operation in progress
  std::uint64_t sum_ = 0;     // of the words arrived so far
  std::uint64_t result_ = 0;  // of the last operation (its ranks wake before the next can end)
};

}  // namespace torsim::nic
