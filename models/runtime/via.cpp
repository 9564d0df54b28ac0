#include "models/runtime/via.hpp"

#include "models/runtime/via_collectives.hpp"

namespace torsim::rt {

namespace {

constexpr ParamSpec kViplSpecs[] = {
    {"layer", ParamKind::text, "vipl", "", "", "", "messaging layer name", "-"},
};

constexpr ParamSpec kViaMpiSpecs[] = {
    {"layer", ParamKind::text, "via_mpi", "", "", "", "messaging layer name", "-"},
    {"header", ParamKind::size, kRequired, "B", "0B", "1KiB", "MPI envelope bytes sent with each message", "preset"},
    {"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "MPI send path on the sender's core (connection, header, send-buffer management)", "preset"},
    {"recv_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
     "MPI receive path on the receiver's core (header, credit accounting, request completion)", "preset"},
    {"match_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "tag matching of one message", "preset"},
    {"eager_limit", ParamKind::size, kRequired, "B", "0B", "1GiB",
     "largest message sent eagerly through a pre-posted receive buffer; above it, the rendezvous", "preset"},
    {"control_bytes", ParamKind::size, "32B", "B", "0B", "1KiB",
     "rendezvous control messages (request, clear to send with a buffer address and key, FIN)",
     "assumption: an address, a key, a size and a tag"},
    {"collective_transport", ParamKind::choice, "send_receive", "", "", "",
     "send_receive: the collectives over MPI's send/receive; rdma: over RDMA writes into pre-registered slots, "
     "found by flag polling", "-", "send_receive|rdma"},
    {"user_buffers_registered", ParamKind::boolean, kRequired, "", "", "",
     "true: the application's buffers are registered (once, up front), so eager sends and the RDMA collectives' "
     "first writes read them directly; false: each eager send, and each RDMA collective where its data starts, "
     "first copies the data into registered memory",
     "preset"},
    {"rdma_slot_size", ParamKind::size, kRequired, "B", "0B", "1GiB",
     "largest message a collective slot holds; larger collectives fall back to send/receive", "preset"},
    {"rdma_slots", ParamKind::integer, "2", "", "1", "1024",
     "slots per writer at each reader: consecutive collectives alternate between them",
     "[C-code] MVAPICH 1.2's RDMA barrier toggles between two slots (intra_rdma_barrier.c @ 07401b81)"},
    {"collectives", ParamKind::object, "{}", "", "", "",
     "collective algorithms (runtime.collectives); degree 0 lets the analytical model pick the k-nomial degree",
     "-"},
};

void complete_request(void* pool, std::uint64_t index) {
  static_cast<RequestPool*>(pool)->complete(static_cast<std::uint32_t>(index));
}

}  // namespace

const ParamTable kViplLayerParams{"runtime (layer: vipl)", "VIA send/receive and RDMA write through VIPL calls.",
                                  kViplSpecs};
const ParamTable kViaMpiLayerParams{"runtime (layer: via_mpi)", "MPI over VIA (MVICH's protocols), and its collectives.",
                                    kViaMpiSpecs};

// ---- Shared

ViaLayer::ViaLayer(Job& job, const nic::ViaParams& nic)
    : MessagingLayer(job),
      nic_(job, nic),
      reduction_byte_(job.machine.compute_cost("reduction_byte", job.machine.where / "compute")) {}

Task<Request> ViaLayer::isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) {
  return start({{self, dst, tag, size, word}, false, 0, 0});
}

Task<Request> ViaLayer::am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag) {
  return start({{self, dst, tag, size, word}, true, handler, 0});
}

// The sender's part (library path, post) is done when isend returns; a sender without a
// receive credit waits for one there.
Task<Request> ViaLayer::start(Message m) {
  m.send_request = requests_.allocate();
  Request request(&requests_, m.send_request);
  co_await post_send(m.envelope.src, m.envelope.dst, send_path(m));
  kernel().spawn(protocol(m));
  co_return request;
}

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
  if (m.active_message) deliver_am(m.handler, m.envelope);
  else deliver(m.envelope);
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
  std::vector<topo::LinkId> route;
  machine.topology->route(0, machine.node_count() > 1 ? 1 : 0, route);
  ViaCosts c;
  c.latency = machine.node.nic_latency;
  c.rate = std::min(machine.node.injection_bandwidth, machine.node.ejection_bandwidth);
  for (const auto l : route) {
    c.latency += machine.topology->link(l).latency;
    c.rate = std::min(c.rate, machine.topology->link(l).bandwidth);
  }
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

// ---- MPI over VIA

ViaMpiLayer::ViaMpiLayer(Job& job, const nic::ViaParams& nic, const ViaMpiParams& params, const Json& collectives,
                         const Where& collectives_where)
    : ViaLayer(job, nic), p_(params), slots_(nic_, params.rdma_slots), slot_arrivals_(static_cast<std::size_t>(job.size()), 0) {
  const coll::Selection selection =
      coll::parse_selection(ParamReader(collectives, collectives_where, coll::kSelectionParams), job.size());
  set_collectives(std::make_unique<ViaCollectives>(*this, selection));
}

ViaCosts ViaMpiLayer::model_costs() const {
  ViaCosts c = ViaLayer::model_costs();
  c.send_cpu = p_.send_cpu;
  c.send_copies = !p_.user_buffers_registered;
  c.recv_cpu = p_.recv_cpu;
  c.match_cpu = p_.match_cpu;
  c.header = p_.header;
  return c;
}

// Eager: from the user's buffer if it is registered, else through a copy into a registered
// send buffer; out of the receive buffer with a copy. A rendezvous starts with a request to
// send: no data yet.
CpuCharge ViaMpiLayer::send_path(const Message& m) const {
  if (m.envelope.size > p_.eager_limit || p_.user_buffers_registered) return control_send();
  return control_send().add(CpuUse::copy, copy_time(m.envelope.size));
}

CpuCharge ViaMpiLayer::receive_path(const Message& m) const {
  return control_receive().add(CpuUse::copy, copy_time(m.envelope.size));
}

Task<> ViaMpiLayer::protocol(Message m) {
  if (m.envelope.size > p_.eager_limit) return rendezvous(m);
  return eager(m);
}

// MVICH's "rput": the receiver's clear to send names its registered buffer, the sender writes
// the data straight into it, and a FIN tells the receiver it is in.
Task<> ViaMpiLayer::rendezvous(Message m) {
  const Envelope& e = m.envelope;
  co_await land(e.src, e.dst, p_.header + p_.control_bytes, control_receive(), {});
  const std::uint32_t receive = m.active_message ? 0 : co_await match_receive(e);
  co_await cores().run(e.dst, nic_.register_memory(e.dst, user_buffer(e.size), e.size), CpuUse::registration);
  co_await control(e.dst, e.src, p_.header + p_.control_bytes, control_send(), control_receive());
  co_await cores().run(e.src, CpuCharge(CpuUse::registration, nic_.register_memory(e.src, user_buffer(e.size), e.size))
                             .add(CpuUse::send, nic_.params().post_cpu));
  co_await nic_.rdma_write(e.src, e.dst, e.size);
  requests_.complete(m.send_request);
  co_await control(e.src, e.dst, p_.header + p_.control_bytes, control_send(), control_receive());
  if (m.active_message) deliver_am(m.handler, e);
  else requests_.complete(receive, e);
}

void ViaMpiLayer::write_slot(Rank src, Rank dst, Bytes bytes, Tag tag, std::uint64_t word) {
  kernel().spawn(slot_write(src, dst, bytes, tag, word));
}

Task<> ViaMpiLayer::slot_write(Rank src, Rank dst, Bytes bytes, Tag tag, std::uint64_t word) {
  co_await nic_.rdma_write(src, dst, bytes);
  co_await cores().run(dst, nic_.params().flag_poll_cpu, CpuUse::poll);
  ++slot_arrivals_[static_cast<std::size_t>(dst)];
  deliver({src, dst, tag, bytes, word});
}

Request ViaMpiLayer::completed_request() {
  const auto index = requests_.allocate();
  requests_.complete(index);
  return Request(&requests_, index);
}

// ---- Factories

namespace {
ViaMpiParams parse_via_mpi(const ParamReader& r) {
  ViaMpiParams p;
  p.header = r.size("header");
  p.send_cpu = r.time("send_cpu");
  p.recv_cpu = r.time("recv_cpu");
  p.match_cpu = r.time("match_cpu");
  p.eager_limit = r.size("eager_limit");
  p.control_bytes = r.size("control_bytes");
  p.collective_transport = r.text("collective_transport") == "rdma" ? Transport::rdma : Transport::send_receive;
  p.user_buffers_registered = r.boolean("user_buffers_registered");
  p.rdma_slot_size = r.size("rdma_slot_size");
  p.rdma_slots = static_cast<int>(r.integer("rdma_slots"));
  return p;
}
}  // namespace

std::unique_ptr<MessagingLayer> make_vipl_layer(const ParamReader& r, Job& job) {
  return std::make_unique<ViplLayer>(job, nic::via_of(job.machine, r.where()));
}

std::unique_ptr<MessagingLayer> make_via_mpi_layer(const ParamReader& r, Job& job) {
  const nic::ViaParams nic = nic::via_of(job.machine, r.where());  // first: the clearest error
  return std::make_unique<ViaMpiLayer>(job, nic, parse_via_mpi(r), r.nested("collectives"), r.where("collectives"));
}

}  // namespace torsim::rt
