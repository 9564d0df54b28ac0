#include "models/runtime/gemini_layers.hpp"

namespace torsim::rt {

namespace {

constexpr ParamSpec kUgniSpecs[] = {
    {"layer", ParamKind::text, "ugni", "", "", "", "messaging layer name", "-"},
    {"fma_bte_threshold", ParamKind::size, "2048B", "B", "0B", "1GiB", "RDMA of this size or more uses BTE, less FMA",
     "[C-code] Charm++ gemini_gni machine.c, 2011 (1024 B later)"},
    {"control_bytes", ParamKind::size, "32B", "B", "0B", "1KiB",
     "rendezvous control message carrying a memory handle", "assumption: a handle and a size"},
};

constexpr ParamSpec kMpiSpecs[] = {
    {"layer", ParamKind::text, "mpi", "", "", "", "messaging layer name", "-"},
    {"header", ParamKind::size, kRequired, "B", "0B", "1KiB", "MPI envelope bytes carried with each message",
     "preset"},
    {"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "MPI_Isend software path on the sender's core",
     "preset"},
    {"recv_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "MPI receive completion on the receiver's core",
     "preset"},
    {"match_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "tag matching of one message", "preset"},
    {"eager_limit", ParamKind::size, kRequired, "B", "0B", "1GiB",
     "largest eager message; above it the rendezvous protocol", "preset"},
    {"rdma_threshold", ParamKind::size, kRequired, "B", "0B", "1GiB", "GETs of this size or more use BTE",
     "preset"},
    {"control_bytes", ParamKind::size, "32B", "B", "0B", "1KiB", "RTS and FIN control messages",
     "assumption: a handle, a size and a tag"},
    {"rma_sync_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "MPI_Put/MPI_Get synchronisation (lock, flush) on the origin's core", "preset"},
};

}  // namespace

const ParamTable kUgniLayerParams{"runtime (layer: ugni)", "uGNI-level messaging on the Gemini NIC.", kUgniSpecs};
const ParamTable kMpiLayerParams{"runtime (layer: mpi)", "Cray MPICH protocols over uGNI.", kMpiSpecs};

UgniParams parse_ugni(const ParamReader& r) { return {r.size("fma_bte_threshold"), r.size("control_bytes")}; }

MpiParams parse_mpi(const ParamReader& r) {
  return {r.size("header"),      r.time("send_cpu"),       r.time("recv_cpu"),      r.time("match_cpu"),
          r.size("eager_limit"), r.size("rdma_threshold"), r.size("control_bytes"), r.time("rma_sync_cpu")};
}

// ---- Shared

GeminiLayer::GeminiLayer(Job& job, const nic::GeminiParams& nic) : ProtocolLayer(job), nic_(*this, nic) {}

// Active messages have no receive to match: their rendezvous proceeds at once.
namespace {
Task<std::uint32_t> no_match() { co_return 0; }
}  // namespace

// ---- uGNI level

Task<> UgniLayer::protocol(Message m) {
  const Envelope& e = m.envelope;
  if (e.size <= nic_.smsg_max()) {
    co_await nic_.smsg(e.src, e.dst, e.size);
    complete_send(m);
    co_await on_cpu(e.dst, nic_.smsg_receive_cost().add(CpuUse::copy, copy_time(e.size)));
    nic_.release(e.src, e.dst);
    co_return arrive(m);
  }
  // Control message with the memory handle; the receiver GETs the data, then acknowledges.
  co_await nic_.smsg(e.src, e.dst, p_.control_bytes);
  co_await on_cpu(e.dst, nic_.smsg_receive_cost());
  nic_.release(e.src, e.dst);
  const std::uint32_t receive = m.active_message ? co_await no_match() : co_await match_receive(e);
  co_await on_cpu(e.dst, nic_.register_memory(e.dst, user_buffer(e.size), e.size), CpuUse::registration);
  co_await nic_.get(e.dst, e.src, e.size, engine_for(e.size, p_.fma_bte_threshold));
  complete_receive(m, receive);
  co_await nic_.smsg(e.dst, e.src, p_.control_bytes);
  co_await on_cpu(e.src, nic_.smsg_receive_cost());
  nic_.release(e.dst, e.src);
  complete_send(m);
}

Task<> UgniLayer::put(Rank self, Rank target, Bytes size) {
  co_await on_cpu(self, nic_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  co_await nic_.put(self, target, size, engine_for(size, p_.fma_bte_threshold));
}

// A put with a remote event: the target finds it on its completion queue.
Task<> UgniLayer::put_notify(Rank self, Rank target, Bytes size) {
  co_await on_cpu(self, nic_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  auto arrived = std::make_shared<Trigger>(kernel());
  kernel().spawn(remote_event(self, target, arrived));
  co_await nic_.put(self, target, size, engine_for(size, p_.fma_bte_threshold), arrived.get());
}

Task<> UgniLayer::remote_event(Rank from, Rank target, std::shared_ptr<Trigger> arrived) {
  Trigger& landed = *arrived;  // a named reference: `co_await *arrived` would await a copy
  co_await landed;
  co_await on_cpu(target, nic_.params().cq_poll_cpu, CpuUse::poll);
  notify(target, from);
}

Task<> UgniLayer::get(Rank self, Rank target, Bytes size) {
  co_await on_cpu(self, nic_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  co_await nic_.get(self, target, size, engine_for(size, p_.fma_bte_threshold));
}

// ---- MPI

CpuCharge MpiLayer::send_overhead(const Message& m) {
  const Bytes size = wire_size(m);
  CpuCharge cost(CpuUse::send, p_.send_cpu);
  if (job_.node_of(m.envelope.src) == job_.node_of(m.envelope.dst)) return cost;  // shared memory
  if (size + p_.header > nic_.smsg_max() && size <= p_.eager_limit)
    cost.add(CpuUse::copy, copy_time(size));  // into a DMA buffer
  if (size > p_.eager_limit)
    cost.add(CpuUse::registration, nic_.register_memory(m.envelope.src, user_buffer(size), size));
  return cost;
}

Task<> MpiLayer::protocol(Message m) {
  const Bytes size = wire_size(m);
  if (job_.node_of(m.envelope.src) == job_.node_of(m.envelope.dst)) return shared_memory(m);
  if (size + p_.header <= nic_.smsg_max()) return eager_smsg(m);
  if (size <= p_.eager_limit) return eager_buffered(m);
  return rendezvous(m);
}

Task<> MpiLayer::received(Message m) {
  arrive(m);
  co_return;
}

// On one node, MPI's shared-memory device: the sender copies into a shared buffer, the
// receiver copies out; no NIC involved.
Task<> MpiLayer::shared_memory(Message m) {
  const Envelope& e = m.envelope;
  const Bytes size = wire_size(m);
  co_await on_cpu(e.src, copy_time(size), CpuUse::copy);
  complete_send(m);
  co_await kernel().sleep(job_.machine.node.memcpy_latency);
  const std::uint32_t receive = receives_immediately(m) || size <= p_.eager_limit ? 0 : co_await match_receive(e);
  co_await on_cpu(e.dst, CpuCharge(CpuUse::receive, p_.recv_cpu)
                             .add(CpuUse::match, p_.match_cpu)
                             .add(CpuUse::copy, copy_time(size)));
  if (receives_immediately(m) || size <= p_.eager_limit) co_await received(m);
  else complete_receive(m, receive);
}

// E0: the data rides in the SMSG; the receiver copies it out of its mailbox.
Task<> MpiLayer::eager_smsg(Message m) {
  const Envelope& e = m.envelope;
  const Bytes size = wire_size(m);
  complete_send(m);  // the data went into the mailbox write
  co_await nic_.smsg(e.src, e.dst, size + p_.header);
  co_await on_cpu(e.dst, receive_cost().add(CpuUse::copy, copy_time(size)));
  nic_.release(e.src, e.dst);
  co_await received(m);
}

// E1: the sender copied the data into a pre-registered buffer; the receiver GETs it into its
// own and copies it out, then frees the sender's buffer with a FIN.
Task<> MpiLayer::eager_buffered(Message m) {
  const Envelope& e = m.envelope;
  const Bytes size = wire_size(m);
  complete_send(m);
  co_await nic_.smsg(e.src, e.dst, p_.header + p_.control_bytes);
  co_await on_cpu(e.dst, receive_cost());
  nic_.release(e.src, e.dst);
  co_await nic_.get(e.dst, e.src, size, engine_for(size, p_.rdma_threshold));
  co_await on_cpu(e.dst, copy_time(size), CpuUse::copy);
  kernel().spawn(received(m));
  co_await nic_.smsg(e.dst, e.src, p_.control_bytes);
  co_await on_cpu(e.src, nic_.smsg_receive_cost());
  nic_.release(e.dst, e.src);
}

// R0: request to send; once a receive matches, the receiver GETs the user buffer directly
// (BTE), then a FIN completes the send.
Task<> MpiLayer::rendezvous(Message m) {
  const Envelope& e = m.envelope;
  const Bytes size = wire_size(m);
  co_await nic_.smsg(e.src, e.dst, p_.header + p_.control_bytes);
  co_await on_cpu(e.dst, receive_cost());
  nic_.release(e.src, e.dst);
  const std::uint32_t receive = receives_immediately(m) ? co_await no_match() : co_await match_receive(e);
  co_await on_cpu(e.dst, nic_.register_memory(e.dst, user_buffer(size), size), CpuUse::registration);
  co_await nic_.get(e.dst, e.src, size, engine_for(size, p_.rdma_threshold));
  if (receives_immediately(m)) kernel().spawn(received(m));
  else complete_receive(m, receive);
  co_await nic_.smsg(e.dst, e.src, p_.control_bytes);
  co_await on_cpu(e.src, nic_.smsg_receive_cost().add(CpuUse::receive, p_.recv_cpu));
  nic_.release(e.dst, e.src);
  complete_send(m);
}

Task<> MpiLayer::put(Rank self, Rank target, Bytes size) {
  co_await on_cpu(self, CpuCharge(CpuUse::send, p_.send_cpu + p_.rma_sync_cpu)
                            .add(CpuUse::registration, nic_.register_memory(self, user_buffer(size), size)));
  co_await nic_.put(self, target, size, engine_for(size, p_.rdma_threshold));
}

Task<> MpiLayer::get(Rank self, Rank target, Bytes size) {
  co_await on_cpu(self, CpuCharge(CpuUse::send, p_.send_cpu + p_.rma_sync_cpu)
                            .add(CpuUse::registration, nic_.register_memory(self, user_buffer(size), size)));
  co_await nic_.get(self, target, size, engine_for(size, p_.rdma_threshold));
}

std::unique_ptr<MessagingLayer> make_ugni_layer(const ParamReader& r, Job& job) {
  return std::make_unique<UgniLayer>(job, nic::gemini_of(job.machine, r.where()), parse_ugni(r));
}

std::unique_ptr<MessagingLayer> make_mpi_layer(const ParamReader& r, Job& job) {
  return std::make_unique<MpiLayer>(job, nic::gemini_of(job.machine, r.where()), parse_mpi(r));
}

}  // namespace torsim::rt
