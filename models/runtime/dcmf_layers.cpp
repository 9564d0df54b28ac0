#include "models/runtime/dcmf_layers.hpp"

#include "models/collectives/collectives.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::rt {

namespace {

constexpr ParamSpec kDcmfSpecs[] = {
    {"layer", ParamKind::text, "dcmf", "", "", "", "messaging layer name", "-"},
    {"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "DCMF_Send: descriptor and header into an injection FIFO",
     "preset"},
    {"put_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "DCMF_Put: a direct-put descriptor and the remote get that brings its ack", "preset"},
    {"get_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "DCMF_Get: a remote-get descriptor", "preset"},
    {"control_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "DCMF_Control: one control message", "preset"},
    {"poll_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "one DCMF_Messager_advance that finds an event (a packet or a counter at zero) and runs its callback", "preset"},
    {"packet_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "per memory-FIFO packet taken out of the reception FIFO (plus copying its payload)", "preset"},
    {"header", ParamKind::size, "16B", "B", "0B", "1KiB", "DCMF protocol metadata in a message's first packet",
     "preset"},
    {"eager_limit", ParamKind::size, "1024B", "B", "0B", "1GiB",
     "largest DCMF_Send sent as memory-FIFO packets; larger ones go by rendezvous (remote get)", "preset"},
};

constexpr ParamSpec kMpiSpecs[] = {
    {"layer", ParamKind::text, "mpi_dcmf", "", "", "", "messaging layer name", "-"},
    {"header", ParamKind::size, "16B", "B", "0B", "1KiB", "MPI envelope carried with each message",
     "[C-code] MPICH dcmfd (pmodels/mpich src/mpid/dcmfd @ fbe1f262): 16 B MPI header"},
    {"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "MPI_Isend's path down to DCMF, request included",
     "preset"},
    {"recv_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "MPI's receive callback and request completion on the receiver's core", "preset"},
    {"match_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "matching one message in the posted queue",
     "preset"},
    {"memregion_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "DCMF_Memregion_create: pinning a buffer for a rendezvous, on each side", "preset"},
    {"eager_limit", ParamKind::size, "1200B", "B", "0B", "1GiB", "messages of this size or more use MPI's rendezvous",
     "[C-code] MPICH dcmfd: DCMF_EAGER 1200"},
    {"rts_bytes", ParamKind::size, "48B", "B", "0B", "1KiB",
     "request to send: MPI header, memory region, offset and length",
     "[C-code] MPICH dcmfd: the RTS carries the envelope, a memregion and its offset and length"},
    {"ack_bytes", ParamKind::size, "16B", "B", "0B", "1KiB", "the receiver's acknowledgement (a DCMF control message)",
     "preset"},
};

}  // namespace

const ParamTable kDcmfLayerParams{"runtime (layer: dcmf)",
                                  "DCMF on the BG/P torus DMA; also the calibration the MPI and GASNet layers use.",
                                  kDcmfSpecs};
const ParamTable kMpiDcmfLayerParams{"runtime (layer: mpi_dcmf)", "MPICH's DCMF device on Blue Gene/P.", kMpiSpecs};

DcmfParams parse_dcmf(const ParamReader& r) {
  return {r.time("send_cpu"),   r.time("put_cpu"),    r.time("get_cpu"), r.time("control_cpu"),
          r.time("poll_cpu"),   r.time("packet_cpu"), r.size("header"),  r.size("eager_limit")};
}

DcmfParams dcmf_of(const Machine& machine) {
  return parse_dcmf(ParamReader(machine.runtimes.value("dcmf", Json::object()), machine.where / "runtimes" / "dcmf",
                                kDcmfLayerParams));
}

namespace {
MpiDcmfParams parse_mpi_dcmf(const ParamReader& r) {
  return {r.size("header"),        r.time("send_cpu"),      r.time("recv_cpu"),  r.time("match_cpu"),
          r.time("memregion_cpu"), r.size("eager_limit"),   r.size("rts_bytes"), r.size("ack_bytes")};
}
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
    coll::Selection s;
    s.alltoall = coll::AlltoallAlgorithm::linear;
    return s;
  }
  DcmfLayer& layer_;
  bool tree_;
};

}  // namespace

// ---- DCMF

DcmfLayer::DcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf)
    : ProtocolLayer(job), dma_(job, nic), d_(dcmf), meeting_(job.kernel, job.size()) {
  set_collectives(std::make_unique<BgpCollectives>(*this, false));
}

CpuCharge DcmfLayer::fifo_receive_cost(Bytes bytes) const {
  const std::int64_t packets = job_.machine.packet.packets(bytes);
  return CpuCharge(CpuUse::poll, d_.poll_cpu).add(CpuUse::receive, packets * d_.packet_cpu).add(CpuUse::copy, copy_time(bytes));
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

// ---- MPI over DCMF

CpuCharge MpiDcmfLayer::send_overhead(const Message& m) {
  CpuCharge cost(CpuUse::send, m_.send_cpu + d_.send_cpu);
  if (m.envelope.size >= m_.eager_limit) cost.add(CpuUse::registration, m_.memregion_cpu);
  return cost;
}

CpuCharge MpiDcmfLayer::arrival_cost(const Message&) const {
  return CpuCharge(CpuUse::match, m_.match_cpu).add(CpuUse::receive, m_.recv_cpu);
}

void MpiDcmfLayer::launch(const Message& m) {
  if (m.envelope.size < m_.eager_limit) return DcmfLayer::launch(m);
  kernel().at(kernel().now(), step(this, rendezvous_.add({m, 0}), Step::send_rts));
}

Callback MpiDcmfLayer::step(MpiDcmfLayer* layer, SlotPool<Rendezvous>::Index index, Step next) {
  return member_callback<MpiDcmfLayer, &MpiDcmfLayer::advance>(
      layer, index | std::uint64_t{static_cast<std::uint8_t>(next)} << 32);
}

void MpiDcmfLayer::after_cpu(Rank r, const CpuCharge& charge, SlotPool<Rendezvous>::Index index, Step next) {
  kernel().at(cores().occupy(r, charge), step(this, index, next));
}

void MpiDcmfLayer::transfer_then(Rank from, Rank to, Bytes bytes, SlotPool<Rendezvous>::Index index, Step next) {
  dma_.start_transfer(from, to, bytes, step(this, index, next));
}

// MPI's own rendezvous (DCMF's is off in MPICH's DCMF device): a request to send; once a
// receive matches, the receiver pins its buffer and gets the data (a remote get: descriptor
// out, the sender's DMA turns it round, data back); its acknowledgement (a control message)
// completes the send. A send never completes before its receive is posted.
void MpiDcmfLayer::advance(std::uint64_t index_and_step) {
  const auto index = static_cast<SlotPool<Rendezvous>::Index>(index_and_step);
  const Envelope e = rendezvous_[index].m.envelope;
  switch (static_cast<Step>(index_and_step >> 32)) {
    case Step::send_rts:
      return transfer_then(e.src, e.dst, m_.rts_bytes + d_.header, index, Step::rts_in);
    case Step::rts_in:
      return after_cpu(e.dst, fifo_receive_cost(m_.rts_bytes + d_.header).add(CpuUse::match, m_.match_cpu), index,
                       Step::rts_handled);
    case Step::rts_handled:
      return rts_handled(index);
    case Step::request_data:
      return transfer_then(e.dst, e.src, dma_.params().descriptor_bytes, index, Step::descriptor_in);
    case Step::descriptor_in:
      return kernel().after(dma_.params().remote_get_turnaround, step(this, index, Step::send_data));
    case Step::send_data:
      return transfer_then(e.src, e.dst, e.size, index, Step::data_in);
    case Step::data_in:
      return after_cpu(e.dst, CpuCharge(CpuUse::poll, d_.poll_cpu).add(CpuUse::receive, m_.recv_cpu)
                                  .add(CpuUse::send, d_.control_cpu), index, Step::data_handled);
    case Step::data_handled:
      return data_handled(index);
    case Step::ack_in:
      return after_cpu(e.src, fifo_receive_cost(m_.ack_bytes).add(CpuUse::receive, m_.recv_cpu), index, Step::done);
    case Step::done:
      requests_.complete(rendezvous_[index].m.send_request);
      return rendezvous_.release(index);
  }
}

// The RTS is handled: wait for a matching receive (an active message has none), then pin
// the buffer and post the get.
void MpiDcmfLayer::rts_handled(SlotPool<Rendezvous>::Index index) {
  Rendezvous& r = rendezvous_[index];
  if (!r.m.active_message &&
      !match_or_wait(r.m.envelope, r.receive, member_callback<MpiDcmfLayer, &MpiDcmfLayer::receive_matched>(this, index)))
    return;
  receive_matched(index | std::uint64_t{r.receive} << 32);
}

void MpiDcmfLayer::receive_matched(std::uint64_t index_and_request) {
  const auto index = static_cast<SlotPool<Rendezvous>::Index>(index_and_request);
  rendezvous_[index].receive = static_cast<std::uint32_t>(index_and_request >> 32);
  after_cpu(rendezvous_[index].m.envelope.dst,
            CpuCharge(CpuUse::registration, m_.memregion_cpu).add(CpuUse::send, d_.get_cpu), index,
            Step::request_data);
}

// The data is in: the receive completes (which may run the receiver's program and post
// more messages: the record is read before), and the ack goes back.
void MpiDcmfLayer::data_handled(SlotPool<Rendezvous>::Index index) {
  const Rendezvous r = rendezvous_[index];
  complete_receive(r.m, r.receive);
  transfer_then(r.m.envelope.dst, r.m.envelope.src, m_.ack_bytes, index, Step::ack_in);
}

// MPI_Put / MPI_Get on a window: DCMF_Put / DCMF_Get with MPI's call path around them.
Task<> MpiDcmfLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, m_.send_cpu, CpuUse::send);
  co_await DcmfLayer::put(self, target, size);
}

Task<> MpiDcmfLayer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, m_.send_cpu, CpuUse::send);
  co_await DcmfLayer::get(self, target, size);
}

MpiDcmfLayer::MpiDcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf, const MpiDcmfParams& mpi)
    : DcmfLayer(job, nic, dcmf), m_(mpi) {
  set_collectives(std::make_unique<BgpCollectives>(*this, true));
  // A step reads its record a network crossing or a core's queue after the last: asked for
  // one event ahead.
  job.kernel.add_prefetcher(member_callback<MpiDcmfLayer, &MpiDcmfLayer::advance>(this).fn,
                            [](const void* layer, std::uint64_t index_and_step) {
                              __builtin_prefetch(&static_cast<const MpiDcmfLayer*>(layer)->rendezvous_[
                                  static_cast<SlotPool<Rendezvous>::Index>(index_and_step)]);
                            });
}

std::unique_ptr<MessagingLayer> make_dcmf_layer(const ParamReader& r, Job& job) {
  return std::make_unique<DcmfLayer>(job, nic::bgp_of(job.machine, r.where()), parse_dcmf(r));
}

std::unique_ptr<MessagingLayer> make_mpi_dcmf_layer(const ParamReader& r, Job& job) {
  return std::make_unique<MpiDcmfLayer>(job, nic::bgp_of(job.machine, r.where()), dcmf_of(job.machine),
                                        parse_mpi_dcmf(r));
}

}  // namespace torsim::rt
