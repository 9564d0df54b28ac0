#include "models/runtime/via/via_layer.hpp"

#include <algorithm>

#include "models/network/route.hpp"

namespace torsim::rt {

namespace {
void complete_request(void* pool, std::uint64_t index) {
  static_cast<RequestPool*>(pool)->complete(static_cast<std::uint32_t>(index));
}
}  // namespace

ViaLayer::ViaLayer(Job& job, const nic::ViaParams& nic)
    : ProtocolLayer(job),
      nic_(job, nic),
      reduction_byte_(job.machine.compute_cost("reduction_byte", job.machine.where / "compute")) {}

// The sender's part (library path, post) is done when isend returns; a sender without a
// receive credit waits for one there.
Task<> ViaLayer::post(const Message& m) { return post_send(m.envelope.src, m.envelope.dst, send_overhead(m)); }

Task<> ViaLayer::post_send(Rank src, Rank dst, CpuCharge path) {
  co_await nic_.take_receive_credit(src, dst);
  co_await cores().run(src, path.add(CpuUse::send, nic_.params().post_cpu));
}

Task<> ViaLayer::land(Rank src, Rank dst, Bytes bytes, CpuCharge receive_cost, Callback left) {
  co_await nic_.send(src, dst, bytes, left);
  const auto& via = nic_.params();
  co_await cores().run(dst, receive_cost.add(CpuUse::poll, via.completion_poll_cpu).add(CpuUse::receive, via.post_cpu));
  nic_.repost(src, dst);
}

Task<> ViaLayer::eager(Message m) {
  Callback left{complete_request, &requests_, m.send_request};
  if (buffered_send()) {  // the data is in a send buffer: the user's may be reused
    left();
    left = {};
  }
  co_await land(m.envelope.src, m.envelope.dst, wire_size(m), receive_path(m), left);
  arrive(m);
}

Task<> ViaLayer::control(Rank from, Rank to, Bytes bytes, CpuCharge send_cost, CpuCharge receive_cost) {
  co_await post_send(from, to, send_cost);
  co_await land(from, to, bytes, receive_cost, {});
}

// Put: the initiator registers its buffer (cache) and posts the write; it learns of the
// remote completion from the reliable-delivery acknowledgement, a header-only packet back.
Task<> ViaLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, CpuCharge(CpuUse::registration, nic_.register_memory(self, user_buffer(size), size))
                                 .add(CpuUse::send, nic_.params().post_cpu));
  co_await nic_.rdma_write(self, target, size);
  co_await nic_.header(target, self);
  co_await cores().run(self, nic_.params().completion_poll_cpu, CpuUse::poll);
}

// Get without RDMA read: a request through send/receive, and the target's RDMA write back,
// which the initiator finds by polling a flag.
Task<> ViaLayer::get(Rank self, Rank target, Bytes size) {
  const auto& via = nic_.params();
  co_await cores().run(self, nic_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  co_await control(self, target, 0, {}, {});
  co_await cores().run(target, CpuCharge(CpuUse::registration, nic_.register_memory(target, user_buffer(size), size))
                                   .add(CpuUse::send, via.post_cpu));
  co_await nic_.rdma_write(target, self, size);
  co_await cores().run(self, via.flag_poll_cpu, CpuUse::poll);
}

ViaCosts ViaLayer::model_costs() const {
  const Machine& machine = job_.machine;
  const net::RouteCost route = net::route_cost(*machine.topology, 0, machine.node_count() > 1 ? 1 : 0);
  ViaCosts c;
  c.latency = machine.node.nic_latency + route.latency;
  c.rate = std::min({machine.node.injection_bandwidth, machine.node.ejection_bandwidth, route.bottleneck});
  c.format = machine.packet;
  c.copy_rate = machine.node.memcpy_bandwidth;
  c.combine_per_byte_ps = reduction_byte_;
  const auto& via = nic_.params();
  c.post = via.post_cpu;
  c.completion_poll = via.completion_poll_cpu;
  c.flag_poll = via.flag_poll_cpu;
  c.receive_descriptor = via.receive_descriptor;
  c.flag_bytes = via.flag_bytes;
  return c;
}

}  // namespace torsim::rt
