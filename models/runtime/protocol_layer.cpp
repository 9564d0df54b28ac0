#include "models/runtime/protocol_layer.hpp"

namespace torsim::rt {

namespace {
constexpr std::uint32_t kCompleted = UINT32_MAX;
}

Task<Request> ProtocolLayer::start(Message m) {
  m.send_request = requests_.allocate();
  Request request(&requests_, m.send_request);
  co_await post(m);
  if (sends_complete_at_post()) complete_send(m);
  launch(m);
  co_return request;
}

Task<> ProtocolLayer::post(const Message& m) {
  if (const CpuCharge overhead = send_overhead(m); overhead.total() > 0) co_await cores().run(m.envelope.src, overhead);
}

void ProtocolLayer::complete_send(Message& m) {
  if (m.send_request == kCompleted) return;
  requests_.complete(m.send_request);
  m.send_request = kCompleted;
}

Task<Request> ProtocolLayer::isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) {
  return start({{self, dst, tag, size, word}, false, 0, 0});
}

Task<Request> ProtocolLayer::am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag) {
  return start({{self, dst, tag, size, word}, true, handler, 0});
}

void ProtocolLayer::arrive(const Message& m) {
  if (m.active_message)
    deliver_am(m.handler, m.envelope);
  else
    deliver(m.envelope);
}

void ProtocolLayer::complete_receive(const Message& m, std::uint32_t receive_request) {
  if (m.active_message)
    deliver_am(m.handler, m.envelope);
  else
    requests_.complete(receive_request, m.envelope);
}

}  // namespace torsim::rt
