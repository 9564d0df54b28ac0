#include "models/runtime/raw.hpp"

#include "models/runtime/layer_params.hpp"

namespace torsim::rt {

namespace {
constexpr ParamSpec kSpecs[] = {
    layer_spec("raw"),
};

// A one-sided operation in progress: lives in the initiator's coroutine frame.
struct OneSided {
  net::NetworkModel* network;
  NodeId initiator, target;
  Bytes size;
  Signal done;
};

void fire(void* ctx, std::uint64_t) { static_cast<OneSided*>(ctx)->done.fire(); }

// The data (or the request) reached the target: send the ack (or the data) back.
void reply_with(void* ctx, std::uint64_t reply_bytes) {
  auto* op = static_cast<OneSided*>(ctx);
  op->network->start({op->target, op->initiator, static_cast<Bytes>(reply_bytes), {}, {fire, op, 0}});
}

}  // namespace

const ParamTable kRawLayerParams{"runtime (layer: raw)", "NIC-level transfers with no software overhead.", kSpecs};

// An arrival's event argument carries its in-flight index and, above it, the sending rank,
// so that the hint for the next arrival can name the sender without reading the record; a
// local completion's carries its request index and the sending rank.
namespace {
std::uint64_t with_rank(std::uint32_t index, Rank src) {
  return index | std::uint64_t{static_cast<std::uint32_t>(src)} << 32;
}
Rank rank_in(std::uint64_t argument) { return static_cast<Rank>(argument >> 32); }
}  // namespace

RawLayer::RawLayer(Job& job) : MessagingLayer(job) {
  kernel().add_prefetcher(member_callback<RawLayer, &RawLayer::arrived>(this).fn,
                          [](const void* ctx, std::uint64_t arg) {
                            const auto* layer = static_cast<const RawLayer*>(ctx);
                            __builtin_prefetch(&layer->in_flight_[static_cast<std::uint32_t>(arg)]);
                            layer->hint_arrival(rank_in(arg));
                          });
  // A local completion resumes the sender waiting for it, whose frame is likely out of cache;
  // reading the request's slot here also brings it in for complete(). (A workload's own
  // completion hint may ask for the frame again: skipping this one then measured slower.)
  kernel().add_prefetcher(member_callback<RawLayer, &RawLayer::sent>(this).fn, [](const void* ctx, std::uint64_t arg) {
    const auto* layer = static_cast<const RawLayer*>(ctx);
    layer->requests_.prefetch_waiter(static_cast<std::uint32_t>(arg));
    layer->hint_send_completion(rank_in(arg));
  });
}

void RawLayer::arrived(std::uint64_t arg) {
  const auto index = static_cast<std::uint32_t>(arg);
  const InFlight& m = in_flight_[index];
  const Envelope envelope{m.src, m.dst, m.tag, m.size, m.word};
  const HandlerId handler = m.handler;
  // Copied out first: a handler may send, and a send may grow in_flight_ (m would dangle).
  in_flight_.release(index);
  if (handler != kTwoSided)
    deliver_am(handler, envelope);
  else
    deliver(envelope);
}

void RawLayer::sent(std::uint64_t arg) { requests_.complete(static_cast<std::uint32_t>(arg)); }

Request RawLayer::start_send(const InFlight& message) {
  const auto request = requests_.allocate();
  const auto index = in_flight_.add(message);
  job_.network.start({job_.node_of(message.src), job_.node_of(message.dst), message.size,
                      member_callback<RawLayer, &RawLayer::sent>(this, with_rank(request, message.src)),
                      member_callback<RawLayer, &RawLayer::arrived>(this, with_rank(index, message.src))});
  return Request(&requests_, request);
}

// No software overhead, so nothing to wait for: the transfer starts at the call (every caller
// awaits at once), and a ready task spares a coroutine frame per message.
Task<Request> RawLayer::isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) {
  return Task<Request>::ready(start_send({self, dst, tag, kTwoSided, size, word}));
}

Task<Request> RawLayer::am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag) {
  return Task<Request>::ready(start_send({self, dst, tag, handler, size, word}));
}

// Put: the data goes to the target, a zero-byte ack comes back.
Task<> RawLayer::put(Rank self, Rank target, Bytes size) {
  OneSided op{&job_.network, job_.node_of(self), job_.node_of(target), size, Signal(kernel())};
  job_.network.start({op.initiator, op.target, size, {}, {reply_with, &op, 0}});
  co_await op.done;
}

// Get: a zero-byte request goes to the target, the data comes back.
Task<> RawLayer::get(Rank self, Rank target, Bytes size) {
  OneSided op{&job_.network, job_.node_of(self), job_.node_of(target), size, Signal(kernel())};
  job_.network.start({op.initiator, op.target, 0, {}, {reply_with, &op, static_cast<std::uint64_t>(size)}});
  co_await op.done;
}

}  // namespace torsim::rt
