#include "models/runtime/via/collectives.hpp"

#include <vector>

namespace torsim::rt {

namespace {

// One rank's messages in one call, as RDMA writes into the readers' slots.
class RdmaChannel final : public coll::PointToPoint {
 public:
  RdmaChannel(MvichLayer& layer, Comm c)
      : layer_(layer), c_(c), tag_(layer.next_collective_tag(c.rank())), arrivals_(layer.slot_arrivals(c.rank())) {}
  Rank rank() const override { return c_.rank(); }
  int size() const override { return c_.size(); }

  // The flag will be in this rank's slot for src.
  Request irecv(Rank src) override {
    writers_.push_back(src);
    return c_.irecv(src, tag_);
  }

  // A free slot at the reader, the data in registered memory, the write posted; completes at
  // once: the write reads registered memory, no user buffer.
  Task<Request> isend(Rank dst, Bytes bytes, std::uint64_t word) override {
    co_await layer_.slots().take(c_.rank(), dst);
    CpuCharge cost(CpuUse::send, layer_.nic().params().post_cpu);
    if (copies_in()) cost.add(CpuUse::copy, layer_.copy_time(bytes));
    in_registered_memory_ = true;
    co_await layer_.cores().run(c_.rank(), cost);
    layer_.write_slot(c_.rank(), dst, bytes, tag_, word);
    co_return layer_.completed_request();
  }

  Task<> combine(Bytes bytes) override {
    in_registered_memory_ = true;
    return c_.compute(layer_.reduce_time(bytes));
  }
  void next_phase() override { tag_ = layer_.next_collective_tag(c_.rank()); }

  // A result that arrived in a slot is copied out to the user's buffer; then the slots are
  // given back to their writers, after the call.
  Task<> finish(Bytes result_bytes) override {
    if (!writers_.empty() && result_bytes > 0)
      co_await layer_.cores().run(c_.rank(), layer_.copy_time(result_bytes), CpuUse::copy);
    if (!writers_.empty()) layer_.kernel().spawn(free_slots(layer_, c_.rank(), std::move(writers_)));
  }

 private:
  // The data a rank sends is in registered memory once something has landed in its slots in
  // this call, or it has combined something there; before that, it is the user's, copied into
  // registered memory unless the user's buffer is registered. (A slot write of the next call
  // landing early cannot fool the count: the ranks whose first message is their own data -- a
  // broadcast's root, a reduction's leaves, the first step of recursive doubling -- cannot be
  // written to by a call that has not had their data yet.)
  bool copies_in() const {
    return !in_registered_memory_ && layer_.slot_arrivals(c_.rank()) == arrivals_ &&
           !layer_.params().user_buffers_registered;
  }

  static Task<> free_slots(MvichLayer& layer, Rank self, std::vector<Rank> writers) {
    for (const Rank writer : writers) {
      co_await layer.cores().run(self, layer.nic().params().post_cpu, CpuUse::send);
      layer.slots().give_back(writer, self);
    }
  }

  MvichLayer& layer_;
  Comm c_;
  Tag tag_;
  std::vector<Rank> writers_;
  std::uint64_t arrivals_;  // the rank's slot arrivals when the call began
  bool in_registered_memory_ = false;
};

bool rdma_capable(CollectiveOp op) {
  return op == CollectiveOp::barrier || op == CollectiveOp::bcast || op == CollectiveOp::reduce ||
         op == CollectiveOp::allreduce;
}

}  // namespace

ViaCollectives::ViaCollectives(MvichLayer& layer, const coll::Selection& selection)
    : coll::Algorithms(selection),
      layer_(layer),
      send_receive_(layer.model_costs(), Transport::send_receive),
      rdma_(layer.model_costs(), Transport::rdma) {}

Transport ViaCollectives::transport(CollectiveOp op, Bytes bytes) const {
  const auto& p = layer_.params();
  return p.collective_transport == Transport::rdma && rdma_capable(op) && bytes <= p.rdma_slot_size
             ? Transport::rdma
             : Transport::send_receive;
}

std::unique_ptr<coll::PointToPoint> ViaCollectives::channel(Comm c, CollectiveOp op, Bytes bytes) const {
  if (transport(op, bytes) == Transport::rdma) return std::make_unique<RdmaChannel>(layer_, c);
  return coll::Algorithms::channel(c, op, bytes);
}

int ViaCollectives::preferred_degree(int ranks, Bytes bytes) const {
  const auto [it, fresh] = degrees_.try_emplace({ranks, bytes}, 0);
  if (fresh) it->second = model(transport(CollectiveOp::reduce, bytes)).best_degree(ranks, bytes);
  return it->second;
}

// The model covers eager messages and slots, not the rendezvous.
std::optional<Time> ViaCollectives::predicted(CollectiveOp op, int ranks, Bytes bytes) const {
  const Transport t = transport(op, bytes);
  if (t == Transport::send_receive && bytes > layer_.params().eager_limit) return std::nullopt;
  const ViaModel& m = model(t);
  switch (op) {
    case CollectiveOp::barrier:
      return m.barrier(ranks);
    case CollectiveOp::bcast:
      return m.bcast(ranks, bytes);
    case CollectiveOp::reduce:
      return m.reduce(ranks, bytes, reduce_degree(ranks, bytes));
    case CollectiveOp::allreduce:
      if (recursive_doubling(ranks)) return m.recursive_doubling_allreduce(ranks, bytes);
      return m.reduce_bcast_allreduce(ranks, bytes, reduce_degree(ranks, bytes));
    default:
      return std::nullopt;
  }
}

}  // namespace torsim::rt
