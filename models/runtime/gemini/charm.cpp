#include "models/runtime/gemini/charm.hpp"

#include <algorithm>

#include "models/runtime/layer_params.hpp"
#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {

constexpr Field<CharmParams> kCharmFields[] = {
    bind<&CharmParams::envelope>({"envelope", ParamKind::size, kRequired, "B", "0B", "4KiB",
                                  "Converse header and Charm++ envelope per message", "preset"}),
    bind<&CharmParams::send_cpu>({"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                  "Charm++ send path (envelope, destination, CmiSyncSend) on the sender's core",
                                  "preset"}),
    bind<&CharmParams::scheduler_cpu>({"scheduler_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                       "scheduler dequeue and entry-method dispatch, per message", "preset"}),
    bind<&CharmParams::alloc_cpu>(
        {"alloc_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "CmiAlloc of a message buffer", "preset"}),
};
constexpr auto kCharmSpecs = specs_of(kCharmFields);
constexpr Field<CharmMpiParams> kCharmMpiFields[] = {
    layer_field<CharmMpiParams>("charm_mpi"),
    bind<&CharmMpiParams::iprobe_cpu>(
        {"iprobe_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "an MPI_Iprobe(MPI_ANY_SOURCE) that finds a message, and its MPI_Get_count, in the progress loop", "preset"}),
};
constexpr auto kCharmMpiSpecs = specs_of(kCharmMpiFields);
constexpr Field<CharmUgniParams> kCharmUgniFields[] = {
    layer_field<CharmUgniParams>("charm_ugni"),
    bind<&CharmUgniParams::fma_bte_threshold>({"fma_bte_threshold", ParamKind::size, "2048B", "B", "0B", "1GiB",
                                               "GETs of this size or more use BTE",
                                               "[C-code] Charm++ gemini_gni machine.c, 2011"}),
    bind<&CharmUgniParams::control_bytes>({"control_bytes", ParamKind::size, kRequired, "B", "0B", "1KiB",
                                           "control message of a large send: memory handle, size, source", "preset"}),
    bind<&CharmUgniParams::pool_alloc_cpu>({"pool_alloc_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                            "allocation from the pre-registered memory pool", "preset"}),
    bind<&CharmUgniParams::pxshm_cpu>({"pxshm_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                       "one side of a shared-memory (pxshm) message, besides its copy", "preset"}),
    bind<&CharmUgniParams::big_message>({"big_message", ParamKind::size, "4MiB", "B", "1B", "1GiB",
                                         "messages of this size or more go in segments",
                                         "[C-code] Charm++ gemini_gni machine.c, 2012-01-29 on"}),
    bind<&CharmUgniParams::big_segment>({"big_segment", ParamKind::size, "2MiB", "B", "1B", "1GiB",
                                         "segment of a big message, registered on the fly", "[C-code] same"}),
    bind<&CharmUgniParams::big_segments_in_flight>({"big_segments_in_flight", ParamKind::integer, "4", "", "1", "1000",
                                                    "segments of a big message in flight", "[C-code] same"}),
};
constexpr auto kCharmUgniSpecs = specs_of(kCharmUgniFields);

CharmParams parse_charm(const ParamReader& r) { return parse_fields(r, kCharmFields); }

CharmMpiParams parse_charm_mpi(const ParamReader& r) { return parse_fields(r, kCharmMpiFields); }

CharmUgniParams parse_charm_ugni(const ParamReader& r) { return parse_fields(r, kCharmUgniFields); }

// The target's side of a put or get: its runtime takes the message and sends an empty
// acknowledgement back.
Task<> acknowledge(MessagingLayer& layer, Rank target, Rank origin, Tag tag) {
  Request message = layer.irecv(target, origin, tag);
  co_await message;
  co_await co_await layer.isend(target, origin, 0, tag, 0);
}

// Charm++ has no one-sided operations: a put or a get is a message of its size, and an
// acknowledgement back; both machine layers do so.
Task<> message_and_ack(MessagingLayer& layer, Rank self, Rank target, Bytes size) {
  const Tag tag = layer.next_collective_tag(self);
  layer.kernel().spawn(acknowledge(layer, target, self, tag));
  Request ack = layer.irecv(self, target, tag);
  co_await co_await layer.isend(self, target, size, tag, 0);
  co_await ack;
}

}  // namespace

const ParamTable kCharmParams{"machine.runtimes.charm", "Charm++ costs shared by its machine layers.", kCharmSpecs};
const ParamTable kCharmMpiParams{"runtime (layer: charm_mpi)", "Charm++ over MPI on Gemini.", kCharmMpiSpecs};
const ParamTable kCharmUgniParams{"runtime (layer: charm_ugni)", "Charm++ over uGNI on Gemini.", kCharmUgniSpecs};

std::uint64_t HeapModel::allocate(Rank r, Bytes size) {
  const std::uint32_t k = live_[static_cast<std::size_t>(r)][size]++;
  return 1ULL << 63 | static_cast<std::uint64_t>(size) << 20 | k;
}

void HeapModel::release(Rank r, Bytes size) {
  auto& live = live_[static_cast<std::size_t>(r)];
  if (const auto it = live.find(size); it != live.end() && it->second > 0) --it->second;
}

// ---- Charm++ over MPI

CharmMpiLayer::CharmMpiLayer(Job& job, const nic::GeminiParams& nic, const CrayMpichParams& mpi,
                             const CharmParams& charm, const CharmMpiParams& params)
    : CrayMpichLayer(job, nic, mpi),
      charm_(charm),
      p_(params),
      two_sided_(register_handler(InstantHandler([this](Comm, const Envelope& e) { deliver(e); }))),
      heap_(job.size()),
      pending_(static_cast<std::size_t>(job.size()), 0),
      unfinished_(static_cast<std::size_t>(job.size()), 0) {}

// Send-and-free: MPI_Isend of the message itself, which joins the pending list until an
// MPI_Test sees it done.
CpuCharge CharmMpiLayer::send_overhead(const Message& m) {
  ++pending_[static_cast<std::size_t>(m.envelope.src)];
  ++unfinished_[static_cast<std::size_t>(m.envelope.src)];
  return CrayMpichLayer::send_overhead(m).add(CpuUse::send, charm_.send_cpu + charm_.alloc_cpu);
}

void CharmMpiLayer::mpi_send_done(const Message& m) {
  --unfinished_[static_cast<std::size_t>(m.envelope.src)];
  if (rendezvous_size(m)) heap_.release(m.envelope.src, wire_size(m));
}

// One progress call: one MPI_Test per pending send (MPI runs its progress engine inside the
// test of a send not finished yet; the finished ones are freed and leave the list), then the
// MPI_Iprobe that finds nothing and ends the drain.
Time CharmMpiLayer::poll_period(Rank r) const {
  const auto i = static_cast<std::size_t>(r);
  return pending_[i] * params().test_cpu + (unfinished_[i] + 1) * params().progress_cpu;
}

Time CharmMpiLayer::progress_call(Rank r) {
  const Time cost = poll_period(r);
  pending_[static_cast<std::size_t>(r)] = unfinished_[static_cast<std::size_t>(r)];
  return cost;
}

// The progress call that brought the message in: MPI_Iprobe found it and MPI_Get_count sized
// it, malloc gave a buffer, MPI_Recv filled it (MPI's costs and copies were charged below),
// the pending sends were tested; now the scheduler queue.
Task<> CharmMpiLayer::received(Message m) {
  const Rank r = m.envelope.dst;
  co_await cores().run(r, CpuCharge(CpuUse::match, p_.iprobe_cpu)
                              .add(CpuUse::receive, charm_.alloc_cpu)
                              .add(CpuUse::poll, progress_call(r)));
  if (rendezvous_size(m)) heap_.release(m.envelope.dst, wire_size(m));  // freed once its entry method ran
  deliver_am(m.active_message ? m.handler : two_sided_, m.envelope);
}

Task<> CharmMpiLayer::put(Rank self, Rank target, Bytes size) { return message_and_ack(*this, self, target, size); }

Task<> CharmMpiLayer::get(Rank self, Rank target, Bytes size) { return message_and_ack(*this, self, target, size); }

// ---- Charm++ over uGNI

CharmUgniLayer::CharmUgniLayer(Job& job, const nic::GeminiParams& nic, const CharmParams& charm,
                               const CharmUgniParams& params)
    : GeminiLayer(job, nic),
      charm_(charm),
      p_(params),
      two_sided_(register_handler(InstantHandler([this](Comm, const Envelope& e) { deliver(e); }))) {}

void CharmUgniLayer::enqueue(const Message& m) { deliver_am(m.active_message ? m.handler : two_sided_, m.envelope); }

Task<> CharmUgniLayer::protocol(Message m) {
  const Envelope& e = m.envelope;
  if (job_.node_of(e.src) == job_.node_of(e.dst)) return shared_memory(m);
  if (e.tag & kPersistent) return persistent(m);
  if (e.size + charm_.envelope <= nic_.smsg_max()) return small(m);
  return large(m);
}

// pxshm: the sender copies the message into the receiver's shared-memory queue; the receiver
// uses it in place.
Task<> CharmUgniLayer::shared_memory(Message m) {
  const Envelope& e = m.envelope;
  co_await cores().run(e.src,
                       CpuCharge(CpuUse::send, p_.pxshm_cpu).add(CpuUse::copy, copy_time(e.size + charm_.envelope)));
  complete_send(m);
  co_await kernel().sleep(job_.machine.node.memcpy_latency);
  co_await notice(e.dst);
  co_await cores().run(e.dst, p_.pxshm_cpu, CpuUse::receive);
  enqueue(m);
}

// SMSG: the receiver allocates a message and copies it out of its mailbox.
Task<> CharmUgniLayer::small(Message m) {
  const Envelope& e = m.envelope;
  const Bytes bytes = e.size + charm_.envelope;
  co_await nic_.smsg(e.src, e.dst, bytes);
  complete_send(m);
  co_await notice(e.dst);
  co_await cores().run(
      e.dst, nic_.smsg_receive_cost().add(CpuUse::receive, charm_.alloc_cpu).add(CpuUse::copy, copy_time(bytes)));
  nic_.release(e.src, e.dst);
  enqueue(m);
}

// Persistent: a PUT into the receive buffer set up beforehand; the receiver sees its CQ event.
Task<> CharmUgniLayer::persistent(Message m) {
  const Envelope& e = m.envelope;
  const Bytes bytes = e.size + charm_.envelope;
  auto arrived = std::make_shared<Signal>(kernel());
  kernel().spawn(land(m, arrived));
  co_await nic_.put(e.src, e.dst, bytes, engine_for(bytes, p_.fma_bte_threshold), arrived.get());
  complete_send(m);
}

// The receiver side of a persistent message: its CQ event, then the scheduler.
Task<> CharmUgniLayer::land(Message m, std::shared_ptr<Signal> arrived) {
  Signal& landed = *arrived;  // a named reference: `co_await *arrived` would await a copy
  co_await landed;
  co_await notice(m.envelope.dst);
  co_await cores().run(m.envelope.dst, nic_.params().cq_poll_cpu, CpuUse::poll);
  enqueue(m);
}

// Large: a control message with the memory handle; the receiver GETs the message into
// memory-pool memory (no registration), enqueues it and acks so the sender frees its buffer.
Task<> CharmUgniLayer::large(Message m) {
  const Envelope& e = m.envelope;
  const Bytes bytes = e.size + charm_.envelope;
  co_await nic_.smsg(e.src, e.dst, p_.control_bytes);
  co_await notice(e.dst);
  co_await cores().run(e.dst, nic_.smsg_receive_cost().add(CpuUse::receive, p_.pool_alloc_cpu));
  nic_.release(e.src, e.dst);
  if (bytes >= p_.big_message)
    co_await get_segments(e.dst, e.src, bytes);
  else
    co_await nic_.get(e.dst, e.src, bytes, engine_for(bytes, p_.fma_bte_threshold));
  co_await cores().run(e.dst, nic_.params().cq_poll_cpu, CpuUse::poll);
  enqueue(m);
  co_await nic_.smsg(e.dst, e.src, p_.control_bytes);
  co_await notice(e.src);
  co_await cores().run(e.src, nic_.smsg_receive_cost());
  nic_.release(e.dst, e.src);
  complete_send(m);
}

// A big message: segments GET in parallel, a few at a time, each registered on both sides for
// the transfer (too big for the memory pool).
Task<> CharmUgniLayer::get_segments(Rank dst, Rank src, Bytes bytes) {
  std::int64_t in_flight = 0;
  WaitQueue waiting;  // this process, for a segment to finish
  for (Bytes at = 0; at < bytes; at += p_.big_segment) {
    while (in_flight >= p_.big_segments_in_flight) co_await waiting.wait();
    ++in_flight;
    kernel().spawn(segment(dst, src, std::min(p_.big_segment, bytes - at), in_flight, waiting));
  }
  while (in_flight > 0) co_await waiting.wait();
}

Task<> CharmUgniLayer::segment(Rank dst, Rank src, Bytes bytes, std::int64_t& in_flight, WaitQueue& waiting) {
  co_await cores().run(src, nic_.registration_cost(bytes), CpuUse::registration);
  co_await cores().run(dst, nic_.registration_cost(bytes), CpuUse::registration);
  co_await nic_.get(dst, src, bytes, nic::Engine::bte);
  --in_flight;
  waiting.wake_one(kernel());
}

Task<> CharmUgniLayer::put(Rank self, Rank target, Bytes size) { return message_and_ack(*this, self, target, size); }

Task<> CharmUgniLayer::get(Rank self, Rank target, Bytes size) { return message_and_ack(*this, self, target, size); }

// ---- Factories: Charm++'s shared costs, MPI's and the NIC's come from the machine preset.

namespace {

CharmParams charm_of(const Machine& m) {
  const Json spec = m.runtimes.value("charm", Json::object());
  return parse_charm(ParamReader(spec, m.where / "runtimes" / "charm", kCharmParams));
}

CrayMpichParams cray_mpich_of(const Machine& m) {
  return parse_cray_mpich(
      ParamReader(m.runtimes.value("mpi", Json::object()), m.where / "runtimes" / "mpi", kCrayMpichLayerParams));
}

}  // namespace

std::unique_ptr<MessagingLayer> make_charm_mpi_layer(const ParamReader& r, Job& job) {
  const auto nic = nic::gemini_of(job.machine, r.where());
  return std::make_unique<CharmMpiLayer>(job, nic, cray_mpich_of(job.machine), charm_of(job.machine),
                                         parse_charm_mpi(r));
}

std::unique_ptr<MessagingLayer> make_charm_ugni_layer(const ParamReader& r, Job& job) {
  const auto nic = nic::gemini_of(job.machine, r.where());
  return std::make_unique<CharmUgniLayer>(job, nic, charm_of(job.machine), parse_charm_ugni(r));
}

}  // namespace torsim::rt
