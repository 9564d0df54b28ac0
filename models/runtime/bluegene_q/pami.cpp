#include "models/runtime/bluegene_q/pami.hpp"

#include "models/runtime/layer_params.hpp"
#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {
constexpr Field<PamiParams> kFields[] = {
    layer_field<PamiParams>("pami"),
    bind<&PamiParams::header>({"header", ParamKind::size, "0B", "B", "0B", "1KiB",
                               "application header sent with each message",
                               "assumption: the benchmark sends its data alone"}),
    bind<&PamiParams::immediate_max>({"immediate_max", ParamKind::size, "128B", "B", "0B", "512B",
                                      "largest header + data sent by PAMI_Send_immediate",
                                      "[C-code] PAMI (jedbrown/pami@a9ce6a01) BG/Q MU device"}),
    bind<&PamiParams::immediate_cpu>({"immediate_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                      "PAMI_Send_immediate: copy into a descriptor slot, inject", "preset"}),
    bind<&PamiParams::send_cpu>({"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                 "PAMI_Send: allocate the send state, build and inject the descriptor(s)", "preset"}),
    bind<&PamiParams::dispatch_cpu>(
        {"dispatch_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "advance: find a message's first packet in the reception FIFO and call its dispatch handler", "preset"}),
    bind<&PamiParams::packet_cpu>({"packet_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                   "advance: each further packet of a multi-packet message (the copy is charged apart)",
                                   "preset"}),
    bind<&PamiParams::completion_cpu>(
        {"completion_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "advance: a completion (descriptor done, remote get or put completion) found and its callback run", "preset"}),
    bind<&PamiParams::rget_cpu>({"rget_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                 "PAMI_Rget: build and inject a remote get", "preset"}),
    bind<&PamiParams::rput_cpu>({"rput_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                 "PAMI_Rput: build and inject the direct put and its remote-completion ping",
                                 "preset"}),
    bind<&PamiParams::memregion_cpu>(
        {"memregion_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "PAMI_Memregion_create", "preset"}),
    bind<&PamiParams::combine_cpu>({"combine_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                    "combining 8 B of one more rank's contribution on a node before the MU collective",
                                    "preset"}),
    unbound<PamiParams>({"collectives", ParamKind::object, "{}", "", "", "",
                         "algorithms of the collectives without a class route; see runtime.collectives", "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
}  // namespace

const ParamTable kPamiLayerParams{"runtime (layer: pami)", "PAMI on the Blue Gene/Q message unit.", kSpecs};

PamiParams parse_pami(const ParamReader& r) { return parse_fields(r, kFields); }

PamiLayer::PamiLayer(Job& job, const nic::MuParams& mu, const PamiParams& params)
    : ProtocolLayer(job), mu_(job, mu), class_route_(job), pami_(params) {}

// ---- Sends

// Send_immediate copies header and data into the descriptor slot; a single-packet Send packs
// them into one packet; a longer Send's descriptor points at the user's buffer.
CpuCharge PamiLayer::call_cost(Bytes wire) const {
  const bool packed = wire <= job_.machine.packet.payload;
  return CpuCharge(CpuUse::send, immediate(wire) ? pami_.immediate_cpu : pami_.send_cpu)
      .add(CpuUse::copy, packed ? copy_time(wire) : 0);
}

CpuCharge PamiLayer::send_overhead(const Message& m) { return call_cost(wire_size(m)); }

Task<> PamiLayer::protocol(Message m) {
  const Bytes wire = wire_size(m);
  return eager(m, immediate(wire), {});
}

// Send_immediate's request is done when the call returns; Send's when the sender's advance
// finds that the MU has read the data.
Task<> PamiLayer::eager(Message m, bool is_immediate, CpuCharge handler) {
  const Envelope& e = m.envelope;
  Signal injected(kernel());
  if (is_immediate)
    complete_send(m);
  else
    kernel().spawn(complete_locally(m, injected));
  co_await transfer(e.src, e.dst, wire_size(m), &injected, handler);
  arrive(m);
}

Task<> PamiLayer::complete_locally(Message m, Signal& injected) {
  co_await injected;
  co_await cores().run(m.envelope.src, pami_.completion_cpu, CpuUse::poll);
  complete_send(m);
}

// ---- Moving a message and receiving it

CpuCharge PamiLayer::receive_cost(Bytes wire) const {
  const std::int64_t packets = job_.machine.packet.packets(wire);
  return CpuCharge(CpuUse::receive, pami_.dispatch_cpu + (packets - 1) * pami_.packet_cpu)
      .add(CpuUse::copy, copy_time(wire));
}

// The receiver takes packets out of its reception FIFO as they stream in (booked on its core
// from the moment the MU starts sending); what is left when the last one lands is the
// dispatch, the last packet's copy and the layer's handler.
Task<> PamiLayer::transfer(Rank src, Rank dst, Bytes wire, Signal* injected, CpuCharge handler) {
  const NodeId node = job_.node_of(src);
  if (node == job_.node_of(dst)) {  // shared memory: one copy by the receiver
    co_await net::Delivery(job_.network, node, node, wire);
    if (injected) injected->fire();
    co_await cores().run(dst, handler.add(CpuUse::receive, pami_.dispatch_cpu).add(CpuUse::copy, copy_time(wire)));
    co_return;
  }
  Signal started(kernel()), arrived(kernel());
  kernel().spawn(inject(src, dst, wire, &started, &arrived, injected));
  co_await started;
  const PacketFormat& format = job_.machine.packet;
  const Bytes last = wire - (format.packets(wire) - 1) * format.payload;
  const CpuCharge whole = receive_cost(wire);
  CpuCharge streamed = whole;
  streamed.parts[static_cast<std::size_t>(CpuUse::receive)] -= pami_.dispatch_cpu;
  streamed.parts[static_cast<std::size_t>(CpuUse::copy)] -= copy_time(last);
  if (streamed.total() > 0) cores().occupy(dst, streamed);
  co_await arrived;
  co_await cores().run(dst, handler.add(CpuUse::receive, pami_.dispatch_cpu).add(CpuUse::copy, copy_time(last)));
}

Task<> PamiLayer::inject(Rank src, Rank dst, Bytes wire, Signal* started, Signal* arrived, Signal* injected) {
  co_await mu_.inject(src, dst, wire, arrived, started);
  if (injected) injected->fire();
}

// ---- One-sided

Task<> PamiLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, pami_.rput_cpu, CpuUse::send);
  co_await mu_.put_acknowledged(self, target, size);
  co_await cores().run(self, pami_.completion_cpu, CpuUse::poll);
}

Task<> PamiLayer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, pami_.rget_cpu, CpuUse::send);
  co_await mu_.remote_get(self, target, size);
  co_await cores().run(self, pami_.completion_cpu, CpuUse::poll);
}

// ---- Collectives

Time PamiLayer::reduce_time(Bytes bytes) const { return (bytes + 7) / 8 * pami_.combine_cpu; }

namespace {

// The node's ranks combine their contributions in shared memory (the last to arrive does it),
// the MU combines the nodes' in the network, every rank copies the result out.
class ClassRouteCollectives final : public coll::Algorithms {
 public:
  ClassRouteCollectives(const coll::Selection& selection, PamiLayer& layer) : Algorithms(selection), layer_(layer) {}

  Task<std::uint64_t> allreduce(Comm c, Bytes bytes, std::uint64_t word) const override {
    if (!layer_.class_route().available()) co_return co_await Algorithms::allreduce(c, bytes, word);
    const Time local = (layer_.job().placement.ranks_per_node - 1) * layer_.reduce_time(bytes);
    const std::uint64_t sum = co_await layer_.class_route().allreduce(c.rank(), bytes, word, local);
    co_await layer_.cores().run(c.rank(), transfer_time(bytes, layer_.job().machine.node.memcpy_bandwidth),
                                CpuUse::copy);
    co_return sum;
  }

  Task<> barrier(Comm c) const override {
    if (!layer_.class_route().available()) co_return co_await Algorithms::barrier(c);
    co_await layer_.class_route().allreduce(c.rank(), 0, 0, 0);
  }

 private:
  PamiLayer& layer_;
};

}  // namespace

void install_collectives(PamiLayer& layer, const ParamReader& r) {
  const auto selection = coll::parse_selection(
      ParamReader(r.nested("collectives"), r.where("collectives"), coll::kSelectionParams), layer.size());
  layer.set_collectives(std::make_unique<ClassRouteCollectives>(selection, layer));
}

std::unique_ptr<MessagingLayer> make_pami_layer(const ParamReader& r, Job& job) {
  // The NIC first: on another machine, its message says so rather than that a calibration is missing.
  const nic::MuParams mu = nic::mu_of(job.machine, r.where());
  auto layer = std::make_unique<PamiLayer>(job, mu, parse_pami(r));
  install_collectives(*layer, r);
  return layer;
}

}  // namespace torsim::rt
