// "verbs": messaging at the verbs level of InfiniBand HCAs: a send is ibv_post_send into a
// receive the peer posted in advance (re-posted as each is consumed), put and get are RDMA
// write and read; every completion is found by polling a completion queue.
#pragma once

#include <memory>

#include "models/runtime/infiniband/infiniband_layer.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::rt {

extern const ParamTable kVerbsLayerParams;

class VerbsLayer final : public InfinibandLayer {
 public:
  VerbsLayer(Job& job, const nic::InfinibandParams& hca, int receive_depth)
      : InfinibandLayer(job, hca), receive_depth_(receive_depth) {}
  std::string_view name() const override { return "verbs"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;

 private:
  Task<> protocol(Message m) override;
  /// A message's receive completion is in its receiver's CQ (index into landing_).
  void landed(std::uint64_t index);
  Task<> take_in(Message m);
  int receive_depth_;
  SlotPool<Message> landing_;  // messages on their way, until their receiver's CQ has them
};

std::unique_ptr<MessagingLayer> make_verbs_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
