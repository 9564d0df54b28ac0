#include "models/runtime/charm.hpp"

namespace torsim::rt {

namespace {

constexpr ParamSpec kCharmSpecs[] = {
    {"envelope", ParamKind::size, kRequired, "B", "0B", "4KiB", "Converse header and Charm++ envelope per message",
     "preset"},
    {"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "Charm++ send path (envelope, destination, CmiSyncSend) on the sender's core", "preset"},
    {"scheduler_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "scheduler dequeue and entry-method dispatch, per message", "preset"},
    {"alloc_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "CmiAlloc of a message buffer", "preset"},
};
constexpr ParamSpec kCharmMpiSpecs[] = {
    {"layer", ParamKind::text, "charm_mpi", "", "", "", "messaging layer name", "-"},
    {"iprobe_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "an MPI_Iprobe(MPI_ANY_SOURCE) that finds a message, in the scheduler's progress loop", "preset"},
};
constexpr ParamSpec kCharmUgniSpecs[] = {
    {"layer", ParamKind::text, "charm_ugni", "", "", "", "messaging layer name", "-"},
    {"fma_bte_threshold", ParamKind::size, "2048B", "B", "0B", "1GiB", "GETs of this size or more use BTE",
     "[C-code] Charm++ gemini_gni machine.c, 2011"},
    {"control_bytes", ParamKind::size, kRequired, "B", "0B", "1KiB",
     "control message of a large send: memory handle, size, source", "preset"},
    {"pool_alloc_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "allocation from the pre-registered memory pool", "preset"},
    {"pxshm_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "one side of a shared-memory (pxshm) message, besides its copy", "preset"},
};

}  // namespace

const ParamTable kCharmParams{"machine.runtimes.charm", "Charm++ costs shared by its machine layers.", kCharmSpecs};
const ParamTable kCharmMpiParams{"runtime (layer: charm_mpi)", "Charm++ over MPI on Gemini.", kCharmMpiSpecs};
const ParamTable kCharmUgniParams{"runtime (layer: charm_ugni)", "Charm++ over uGNI on Gemini.", kCharmUgniSpecs};

// ---- Charm++ over MPI

CharmMpiLayer::CharmMpiLayer(Job& job, const nic::GeminiParams& nic, const MpiParams& mpi, const CharmParams& charm,
                             const CharmMpiParams& params)
    : MpiLayer(job, nic, mpi),
      charm_(charm),
      p_(params),
      two_sided_(register_handler(InstantHandler([this](Comm, const Envelope& e) { deliver(e); }))) {}

CpuCharge CharmMpiLayer::send_overhead(const Message& m) {
  return MpiLayer::send_overhead(m).add(CpuUse::send, charm_.send_cpu + charm_.alloc_cpu);
}

// Iprobe found it, CmiAlloc and MPI_Recv took it (MPI's copy was charged below); now the
// scheduler queue.
Task<> CharmMpiLayer::received(Message m) {
  co_await on_cpu(m.envelope.dst, CpuCharge(CpuUse::match, p_.iprobe_cpu).add(CpuUse::receive, charm_.alloc_cpu));
  deliver_am(m.active_message ? m.handler : two_sided_, m.envelope);
}

// Charm++ has no one-sided operations: a message, and an acknowledgement back.
Task<> CharmMpiLayer::put(Rank self, Rank target, Bytes size) {
  const Tag tag = next_collective_tag(self);
  Request ack = irecv(self, target, tag);
  co_await co_await isend(self, target, size, tag, 0);
  co_await ack;
}

Task<> CharmMpiLayer::get(Rank self, Rank target, Bytes size) { co_await put(self, target, size); }

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
  co_await on_cpu(e.src, CpuCharge(CpuUse::send, p_.pxshm_cpu).add(CpuUse::copy, copy_time(e.size + charm_.envelope)));
  complete_send(m);
  co_await kernel().sleep(job_.machine.node.memcpy_latency);
  co_await on_cpu(e.dst, p_.pxshm_cpu, CpuUse::receive);
  enqueue(m);
}

// SMSG: the receiver allocates a message and copies it out of its mailbox.
Task<> CharmUgniLayer::small(Message m) {
  const Envelope& e = m.envelope;
  const Bytes bytes = e.size + charm_.envelope;
  co_await nic_.smsg(e.src, e.dst, bytes);
  complete_send(m);
  co_await on_cpu(e.dst, nic_.smsg_receive_cost().add(CpuUse::receive, charm_.alloc_cpu).add(CpuUse::copy, copy_time(bytes)));
  nic_.release(e.src, e.dst);
  enqueue(m);
}

// Persistent: a PUT into the receive buffer set up beforehand; the receiver sees its CQ event.
Task<> CharmUgniLayer::persistent(Message m) {
  const Envelope& e = m.envelope;
  const Bytes bytes = e.size + charm_.envelope;
  auto arrived = std::make_shared<Trigger>(kernel());
  kernel().spawn(land(m, arrived));
  co_await nic_.put(e.src, e.dst, bytes, engine_for(bytes, p_.fma_bte_threshold), arrived.get());
  complete_send(m);
}

// The receiver side of a persistent message: its CQ event, then the scheduler.
Task<> CharmUgniLayer::land(Message m, std::shared_ptr<Trigger> arrived) {
  Trigger& landed = *arrived;  // a named reference: `co_await *arrived` would await a copy
  co_await landed;
  co_await on_cpu(m.envelope.dst, nic_.params().cq_poll_cpu, CpuUse::poll);
  enqueue(m);
}

// Large: a control message with the memory handle; the receiver GETs the message into
// memory-pool memory (no registration), enqueues it and acks so the sender frees its buffer.
Task<> CharmUgniLayer::large(Message m) {
  const Envelope& e = m.envelope;
  const Bytes bytes = e.size + charm_.envelope;
  co_await nic_.smsg(e.src, e.dst, p_.control_bytes);
  co_await on_cpu(e.dst, nic_.smsg_receive_cost().add(CpuUse::receive, p_.pool_alloc_cpu));
  nic_.release(e.src, e.dst);
  co_await nic_.get(e.dst, e.src, bytes, engine_for(bytes, p_.fma_bte_threshold));
  co_await on_cpu(e.dst, nic_.params().cq_poll_cpu, CpuUse::poll);
  enqueue(m);
  co_await nic_.smsg(e.dst, e.src, p_.control_bytes);
  co_await on_cpu(e.src, nic_.smsg_receive_cost());
  nic_.release(e.dst, e.src);
  complete_send(m);
}

Task<> CharmUgniLayer::put(Rank self, Rank target, Bytes size) {
  const Tag tag = next_collective_tag(self);
  Request ack = irecv(self, target, tag);
  co_await co_await isend(self, target, size, tag, 0);
  co_await ack;
}

Task<> CharmUgniLayer::get(Rank self, Rank target, Bytes size) { co_await put(self, target, size); }

// ---- Factories: Charm++'s shared costs, MPI's and the NIC's come from the machine preset.

namespace {

CharmParams charm_of(const Machine& m) {
  const Json spec = m.runtimes.value("charm", Json::object());
  ParamReader r(spec, m.where / "runtimes" / "charm", kCharmParams);
  return {r.size("envelope"), r.time("send_cpu"), r.time("scheduler_cpu"), r.time("alloc_cpu")};
}

MpiParams mpi_of(const Machine& m) {
  return parse_mpi(ParamReader(m.runtimes.value("mpi", Json::object()), m.where / "runtimes" / "mpi", kMpiLayerParams));
}

}  // namespace

std::unique_ptr<MessagingLayer> make_charm_mpi_layer(const ParamReader& r, Job& job) {
  const auto nic = nic::gemini_of(job.machine, r.where());
  return std::make_unique<CharmMpiLayer>(job, nic, mpi_of(job.machine), charm_of(job.machine),
                                         CharmMpiParams{r.time("iprobe_cpu")});
}

std::unique_ptr<MessagingLayer> make_charm_ugni_layer(const ParamReader& r, Job& job) {
  const auto nic = nic::gemini_of(job.machine, r.where());
  return std::make_unique<CharmUgniLayer>(
      job, nic, charm_of(job.machine),
      CharmUgniParams{r.size("fma_bte_threshold"), r.size("control_bytes"), r.time("pool_alloc_cpu"),
                      r.time("pxshm_cpu")});
}

}  // namespace torsim::rt
