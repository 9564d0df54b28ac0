#include "models/nic/bgq_classroute.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>

#include "topologies/torus.hpp"

namespace torsim::nic {

namespace {
constexpr std::size_t kNotInBlock = std::numeric_limits<std::size_t>::max();
}

ClassRoute::ClassRoute(node::Job& job) : job_(job) {
  if (const auto* torus = dynamic_cast<const topo::Torus*>(job_.machine.topology.get())) build(*torus);
}

// The job's nodes as a block of the torus: per dimension its lowest and highest coordinate,
// and the strides of its row-major numbering.
struct ClassRoute::Block {
  std::vector<int> lo, hi;
  std::vector<std::size_t> stride;
  std::size_t volume = 1;

  Block(const topo::Torus& torus, const std::vector<NodeId>& nodes)
      : lo(torus.dims().size(), std::numeric_limits<int>::max()),
        hi(torus.dims().size(), -1),
        stride(torus.dims().size()) {
    for (const NodeId n : nodes)
      for (std::size_t d = 0; d < lo.size(); ++d) {
        lo[d] = std::min(lo[d], torus.coordinate(torus.router_of(n), d));
        hi[d] = std::max(hi[d], torus.coordinate(torus.router_of(n), d));
      }
    for (std::size_t d = 0; d < lo.size(); ++d) {
      stride[d] = volume;
      volume *= static_cast<std::size_t>(hi[d] - lo[d] + 1);
    }
  }
};

// The tree: the root at the middle of the block; a node's parent is one step towards it along
// the first dimension in which they differ, so lines of dimension 0 gather first, then
// dimension 1, and so on. On a dimension the block spans whole, the step takes the ring's
// minimal direction (wrap-around links).
void ClassRoute::build(const topo::Torus& torus) {
  const auto& nodes = job_.placement.nodes;
  const Block block(torus, nodes);
  if (block.volume != nodes.size() || torus.concentration() != 1) return;  // not a rectangular block
  number_nodes(torus, block);
  link_towards_root(torus, block);
  link_children();
}

// Numbers the block's nodes row-major and puts the root at its middle.
void ClassRoute::number_nodes(const topo::Torus& torus, const Block& block) {
  nodes_.assign(block.volume, -1);
  index_of_node_.assign(static_cast<std::size_t>(job_.machine.node_count()), kNotInBlock);
  for (const NodeId n : job_.placement.nodes) {
    std::size_t index = 0;
    for (std::size_t d = 0; d < block.lo.size(); ++d)
      index += static_cast<std::size_t>(torus.coordinate(torus.router_of(n), d) - block.lo[d]) * block.stride[d];
    nodes_[index] = n;
    index_of_node_[static_cast<std::size_t>(n)] = index;
  }
  std::size_t root = 0;
  for (std::size_t d = 0; d < block.lo.size(); ++d)
    root += static_cast<std::size_t>((block.hi[d] - block.lo[d]) / 2) * block.stride[d];
  root_ = static_cast<std::uint32_t>(root);
}

// Each node's parent and the link up to it, and the tree's depth in hops.
void ClassRoute::link_towards_root(const topo::Torus& torus, const Block& block) {
  const auto root_router = torus.router_of(nodes_[root_]);
  parent_.assign(block.volume, root_);
  up_link_.assign(block.volume, topo::kNoLink);
  for (std::size_t i = 0; i < block.volume; ++i) {
    const auto router = torus.router_of(nodes_[i]);
    int distance = 0;
    for (std::size_t d = 0; d < block.lo.size(); ++d) {
      const int c = torus.coordinate(router, d), r = torus.coordinate(root_router, d);
      const bool ring = block.hi[d] - block.lo[d] + 1 == torus.dims()[d].size && torus.dims()[d].wrap;
      const int offset = ring ? torus.offset(d, router, root_router) : r - c;
      distance += std::abs(offset);
      if (offset == 0 || up_link_[i] != topo::kNoLink) continue;
      const int direction = offset > 0 ? 1 : -1;
      up_link_[i] = torus.port(router, d, direction);
      const int size = torus.dims()[d].size;
      const int next = ((c + direction) % size + size) % size;
      parent_[i] = static_cast<std::uint32_t>(static_cast<std::int64_t>(i) +
                                              (next - c) * static_cast<std::int64_t>(block.stride[d]));
    }
    depth_ = std::max(depth_, distance);
  }
}

// Every node's children, contiguous per parent, and the arrivals each node waits for.
void ClassRoute::link_children() {
  const std::size_t volume = parent_.size();
  std::vector<std::uint32_t> child_count(volume, 0);
  for (std::size_t i = 0; i < volume; ++i)
    if (i != root_) ++child_count[parent_[i]];
  child_begin_.assign(volume + 1, 0);
  for (std::size_t i = 0; i < volume; ++i) child_begin_[i + 1] = child_begin_[i] + child_count[i];
  children_.assign(child_begin_.back(), 0);
  std::vector<std::uint32_t> filled(child_begin_.begin(), child_begin_.end() - 1);
  for (std::size_t i = 0; i < volume; ++i)
    if (i != root_) children_[filled[parent_[i]]++] = static_cast<std::uint32_t>(i);
  state_.resize(volume);
  for (std::size_t i = 0; i < volume; ++i) state_[i].pending = 1 + static_cast<int>(child_count[i]);
}

class ClassRoute::Arrival {
 public:
  Arrival(ClassRoute& route, Rank self, Bytes bytes, std::uint64_t word, Time local_combine)
      : route_(route), self_(self), bytes_(bytes), word_(word), local_combine_(local_combine) {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    const std::size_t node = route_.index_of_node_[static_cast<std::size_t>(route_.job_.node_of(self_))];
    NodeState& s = route_.state_[node];
    s.waiting.push_back(h);
    route_.sum_ += word_;
    if (++s.arrived < route_.job_.placement.ranks_per_node) return;
    route_.arrive(node, bytes_, route_.job_.cores.occupy(self_, local_combine_, node::CpuUse::compute));
  }
  std::uint64_t await_resume() const noexcept { return route_.result_; }

 private:
  ClassRoute& route_;
  Rank self_;
  Bytes bytes_;
  std::uint64_t word_;
  Time local_combine_;
};

Task<std::uint64_t> ClassRoute::allreduce(Rank self, Bytes bytes, std::uint64_t word, Time local_combine) {
  co_return co_await Arrival(*this, self, bytes, word, local_combine);
}

void ClassRoute::arrive(std::size_t node, Bytes bytes, Time ready) {
  bytes_ = bytes;
  node_ready(node, ready);
}

// An input of `node` is in at `ready`; with the last one, its combined packet goes up a hop.
void ClassRoute::node_ready(std::size_t node, Time ready) {
  for (std::size_t i = node;;) {
    NodeState& s = state_[i];
    s.up = std::max(s.up, ready);
    if (--s.pending > 0) return;
    if (i == root_) return turn_round(i);
    ready = s.up + hop(i);
    i = parent_[i];
  }
}

Time ClassRoute::hop(std::size_t child) const {
  const auto& link = job_.machine.topology->link(up_link_[child]);
  const Bytes first_packet = job_.machine.packet.wire_bytes(std::min(bytes_, job_.machine.packet.payload));
  return link.latency + transfer_time(first_packet, link.bandwidth);
}

// The result goes down the tree; every node's ranks are woken when it is back, and the node
// is ready for the next operation.
void ClassRoute::turn_round(std::size_t root) {
  result_ = std::exchange(sum_, 0);
  const PacketFormat& format = job_.machine.packet;
  Rate slowest = std::numeric_limits<Rate>::max();
  for (const auto link : up_link_)
    if (link != topo::kNoLink) slowest = std::min(slowest, job_.machine.topology->link(link).bandwidth);
  const Bytes rest = format.wire_bytes(bytes_) - format.wire_bytes(std::min(bytes_, format.payload));
  std::vector<std::pair<std::uint32_t, Time>> stack{
      {static_cast<std::uint32_t>(root), state_[root].up + (rest > 0 ? transfer_time(rest, slowest) : 0)}};
  while (!stack.empty()) {
    const auto [i, down] = stack.back();
    stack.pop_back();
    NodeState& s = state_[i];
    s.arrived = 0;
    s.up = 0;
    s.pending = 1 + static_cast<int>(child_begin_[i + 1] - child_begin_[i]);
    job_.kernel.at(down + job_.machine.node.nic_latency, member_callback<ClassRoute, &ClassRoute::wake>(this, i));
    for (auto c = child_begin_[i]; c < child_begin_[i + 1]; ++c)
      stack.emplace_back(children_[c], down + hop(children_[c]));
  }
}

void ClassRoute::wake(std::uint64_t node) {
  NodeState& s = state_[static_cast<std::size_t>(node)];
  while (!s.waiting.empty()) job_.kernel.resume_now(s.waiting.pop_front());
}

}  // namespace torsim::nic
