#include "models/runtime/infiniband/infiniband_layer.hpp"

namespace torsim::rt {

InfinibandLayer::InfinibandLayer(Job& job, const nic::InfinibandParams& hca) : ProtocolLayer(job), hca_(job, hca) {}

Task<std::uint32_t> InfinibandLayer::matching_receive(const Message& m) {
  if (m.active_message) co_return 0;  // a handler takes it: nothing to match
  co_return co_await match_receive(m.envelope);
}

void InfinibandLayer::connect(Rank receiver, Rank sender, int depth) {
  if (connected_.insert(pair_key(receiver, sender)).second) hca_.post_receives(receiver, sender, depth);
}

Task<> InfinibandLayer::take_receive(Rank receiver, Rank sender) {
  const auto& hca = hca_.params();
  co_await cores().run(receiver, CpuCharge(CpuUse::poll, hca.poll_cpu).add(CpuUse::receive, hca.post_receive_cpu));
  hca_.post_receives(receiver, sender, 1);
}

Task<> InfinibandLayer::send_received(Rank src, Rank dst, Bytes bytes, int rail, int depth) {
  connect(dst, src, depth);
  Signal landed(kernel());
  kernel().spawn(hca_.send(src, dst, bytes, rail, landed.firing()));
  co_await landed;
  co_await take_receive(dst, src);
}

}  // namespace torsim::rt
