#include "models/runtime/bluegene_p/dcmf.hpp"

#include "models/collectives/collectives.hpp"
#include "models/runtime/layer_params.hpp"
#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {

constexpr Field<DcmfParams> kDcmfFields[] = {
    layer_field<DcmfParams>("dcmf"),
    bind<&DcmfParams::send_cpu>({"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                 "DCMF_Send: descriptor and header into an injection FIFO", "preset"}),
    bind<&DcmfParams::put_cpu>({"put_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                "DCMF_Put: a direct-put descriptor and the remote get that brings its ack", "preset"}),
    bind<&DcmfParams::get_cpu>(
        {"get_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "DCMF_Get: a remote-get descriptor", "preset"}),
    bind<&DcmfParams::control_cpu>(
        {"control_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "DCMF_Control: one control message", "preset"}),
    bind<&DcmfParams::poll_cpu>(
        {"poll_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "one DCMF_Messager_advance that finds an event (a packet or a counter at zero) and runs its callback",
         "preset"}),
    bind<&DcmfParams::packet_cpu>({"packet_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                   "per memory-FIFO packet taken out of the reception FIFO (plus copying its payload)",
                                   "preset"}),
    bind<&DcmfParams::header>({"header", ParamKind::size, "16B", "B", "0B", "1KiB",
                               "DCMF protocol metadata in a message's first packet", "preset"}),
    bind<&DcmfParams::eager_limit>(
        {"eager_limit", ParamKind::size, "1024B", "B", "0B", "1GiB",
         "largest DCMF_Send sent as memory-FIFO packets; larger ones go by rendezvous (remote get)", "preset"}),
};
constexpr auto kDcmfSpecs = specs_of(kDcmfFields);

}  // namespace

const ParamTable kDcmfLayerParams{"runtime (layer: dcmf)",
                                  "DCMF on the BG/P torus DMA; also the calibration the MPI and GASNet layers use.",
                                  kDcmfSpecs};

DcmfParams parse_dcmf(const ParamReader& r) { return parse_fields(r, kDcmfFields); }

DcmfParams dcmf_of(const Machine& machine) {
  return parse_dcmf(ParamReader(machine.runtimes.value("dcmf", Json::object()), machine.where / "runtimes" / "dcmf",
                                kDcmfLayerParams));
}

namespace {
std::uint64_t with_rank(std::uint32_t index, Rank rank) {
  return index | std::uint64_t{static_cast<std::uint32_t>(rank)} << 32;
}
CpuCharge operator+(CpuCharge a, const CpuCharge& b) {
  for (std::size_t i = 0; i < kCpuUses; ++i) a.parts[i] += b.parts[i];
  return a;
}
}  // namespace

namespace {

// BG/P's hardware collectives over the point-to-point algorithms: barriers on the barrier
// network; with `tree` (MPI on COMM_WORLD), broadcasts and reductions on the collective network
// (reductions of doubles: two passes), all-to-all with everything posted at once.
class BgpCollectives final : public coll::Algorithms {
 public:
  BgpCollectives(DcmfLayer& layer, bool tree) : coll::Algorithms(selection()), layer_(layer), tree_(tree) {}
  Task<> barrier(Comm c) const override { return layer_.hardware_barrier(c.rank()); }
  Task<std::uint64_t> bcast(Comm c, Rank root, Bytes bytes, std::uint64_t word) const override {
    if (!tree_) return coll::Algorithms::bcast(c, root, bytes, word);
    return layer_.tree_collective(c.rank(), c.rank() == root ? word : 0, bytes, 1, false, true);
  }
  Task<std::uint64_t> reduce(Comm c, Rank root, Bytes bytes, std::uint64_t word) const override {
    if (!tree_) return coll::Algorithms::reduce(c, root, bytes, word);
    return layer_.tree_collective(c.rank(), word, bytes, 2, true, false);
  }
  Task<std::uint64_t> allreduce(Comm c, Bytes bytes, std::uint64_t word) const override {
    if (!tree_) return coll::Algorithms::allreduce(c, bytes, word);
    return layer_.tree_collective(c.rank(), word, bytes, 2, true, true);
  }

 private:
  static coll::Selection selection() {
    coll::Selection s = coll::default_selection();
    s.alltoall = coll::AlltoallAlgorithm::linear;
    return s;
  }
  DcmfLayer& layer_;
  bool tree_;
};

}  // namespace

DcmfLayer::DcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf)
    : ProtocolLayer(job), dma_(job, nic), d_(dcmf), meeting_(job.kernel, job.size()) {
  set_collectives(std::make_unique<BgpCollectives>(*this, false));
}

CpuCharge DcmfLayer::fifo_receive_cost(Bytes bytes) const {
  const std::int64_t packets = job_.machine.packet.packets(bytes);
  return CpuCharge(CpuUse::poll, d_.poll_cpu)
      .add(CpuUse::receive, packets * d_.packet_cpu)
      .add(CpuUse::copy, copy_time(bytes));
}

CpuCharge DcmfLayer::send_overhead(const Message&) { return CpuCharge(CpuUse::send, d_.send_cpu); }

Callback DcmfLayer::local_completion(const Message& m) {
  return member_callback<DcmfLayer, &DcmfLayer::complete_after_poll>(this, with_rank(m.send_request, m.envelope.src));
}

void DcmfLayer::complete_after_poll(std::uint64_t request_and_rank) {
  const Time polled = cores().occupy(static_cast<Rank>(request_and_rank >> 32), d_.poll_cpu, CpuUse::poll);
  kernel().at(polled, member_callback<DcmfLayer, &DcmfLayer::complete_request>(this, request_and_rank & 0xffffffffu));
}

Task<> DcmfLayer::protocol(Message m) { return m.envelope.size <= eager_limit() ? eager(m) : rendezvous(m); }

// Memory-FIFO packets: the sender's buffer is free once injected; the receiver's core copies
// the packets out of its reception FIFO.
Task<> DcmfLayer::eager(Message m) {
  const Envelope& e = m.envelope;
  co_await dma_.transfer(e.src, e.dst, e.size + header_bytes(), local_completion(m));
  co_await cores().run(e.dst, fifo_receive_cost(e.size + header_bytes()) + arrival_cost(m));
  arrive(m);
}

// DCMF's rendezvous: the header in one packet; the receiver's callback gives a buffer and its
// DMA gets the data from the sender's, with no work by the sender's core until its local
// completion.
Task<> DcmfLayer::rendezvous(Message m) {
  const Envelope& e = m.envelope;
  co_await dma_.transfer(e.src, e.dst, header_bytes() + dma_.params().descriptor_bytes);
  co_await cores().run(e.dst, fifo_receive_cost(header_bytes()).add(CpuUse::send, d_.get_cpu));
  co_await dma_.remote_get(e.dst, e.src, e.size, local_completion(m));
  co_await cores().run(e.dst, CpuCharge(CpuUse::poll, d_.poll_cpu) + arrival_cost(m));
  arrive(m);
}

Task<> DcmfLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, d_.put_cpu, CpuUse::send);
  co_await dma_.put_with_ack(self, target, size);
  co_await cores().run(self, fifo_receive_cost(0));
}

Task<> DcmfLayer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, d_.get_cpu, CpuUse::send);
  co_await dma_.remote_get(self, target, size);
  co_await cores().run(self, d_.poll_cpu, CpuUse::poll);
}

// The global barrier network: released one latency after the last rank entered.
Task<> DcmfLayer::hardware_barrier(Rank self) {
  co_await cores().run(self, d_.poll_cpu, CpuUse::poll);
  const Time latency = dma_.params().barrier_latency;
  co_await meeting_.enter(0, [latency](Time last) { return last + latency; });
}

Task<std::uint64_t> DcmfLayer::tree_collective(Rank self, std::uint64_t word, Bytes bytes, int passes, bool up,
                                               bool down) {
  co_await cores().run(self, d_.poll_cpu, CpuUse::poll);
  co_return co_await meeting_.enter(
      word, [this, bytes, passes, up, down](Time last) { return dma_.tree_operation(last, bytes, passes, up, down); });
}

void DcmfLayer::use_tree_collectives() { set_collectives(std::make_unique<BgpCollectives>(*this, true)); }

std::unique_ptr<MessagingLayer> make_dcmf_layer(const ParamReader& r, Job& job) {
  // The NIC first: on another machine, its message says so rather than that a calibration is missing.
  const nic::BgpParams bgp = nic::bgp_of(job.machine, r.where());
  return std::make_unique<DcmfLayer>(job, bgp, parse_dcmf(r));
}

}  // namespace torsim::rt
