#include "models/runtime/via/mvich.hpp"

#include "models/runtime/layer_params.hpp"
#include "models/runtime/via/collectives.hpp"
#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {

constexpr ChoiceName<Transport> kTransportNames[] = {{"send_receive", Transport::send_receive},
                                                     {"rdma", Transport::rdma}};
constexpr Field<MvichParams> kViaMpiFields[] = {
    layer_field<MvichParams>("via_mpi"),
    bind<&MvichParams::header>({"header", ParamKind::size, kRequired, "B", "0B", "1KiB",
                                "MPI envelope bytes sent with each message", "preset"}),
    bind<&MvichParams::send_cpu>({"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                  "MPI send path on the sender's core (connection, header, send-buffer management)",
                                  "preset"}),
    bind<&MvichParams::recv_cpu>(
        {"recv_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "MPI receive path on the receiver's core (header, credit accounting, request completion)", "preset"}),
    bind<&MvichParams::match_cpu>(
        {"match_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "tag matching of one message", "preset"}),
    bind<&MvichParams::eager_limit>(
        {"eager_limit", ParamKind::size, kRequired, "B", "0B", "1GiB",
         "largest message sent eagerly through a pre-posted receive buffer; above it, the rendezvous", "preset"}),
    bind<&MvichParams::control_bytes>(
        {"control_bytes", ParamKind::size, "32B", "B", "0B", "1KiB",
         "rendezvous control messages (request, clear to send with a buffer address and key, FIN)",
         "assumption: an address, a key, a size and a tag"}),
    bind_choice<&MvichParams::collective_transport, kTransportNames>(
        {"collective_transport", ParamKind::choice, "send_receive", "", "", "",
         "send_receive: the collectives over MPI's send/receive; rdma: over RDMA writes into pre-registered slots, "
         "found by flag polling",
         "-", "send_receive|rdma"}),
    bind<&MvichParams::user_buffers_registered>(
        {"user_buffers_registered", ParamKind::boolean, kRequired, "", "", "",
         "true: the application's buffers are registered (once, up front), so eager sends and the RDMA collectives' "
         "first writes read them directly; false: each eager send, and each RDMA collective where its data starts, "
         "first copies the data into registered memory",
         "preset"}),
    bind<&MvichParams::rdma_slot_size>(
        {"rdma_slot_size", ParamKind::size, kRequired, "B", "0B", "1GiB",
         "largest message a collective slot holds; larger collectives fall back to send/receive", "preset"}),
    bind<&MvichParams::rdma_slots>(
        {"rdma_slots", ParamKind::integer, "2", "", "1", "1024",
         "slots per writer at each reader: consecutive collectives alternate between them",
         "[C-code] MVAPICH 1.2's RDMA barrier toggles between two slots (intra_rdma_barrier.c @ 07401b81)"}),
    unbound<MvichParams>(
        {"collectives", ParamKind::object, "{}", "", "", "",
         "collective algorithms (runtime.collectives); degree 0 lets the analytical model pick the k-nomial degree",
         "-"}),
};
constexpr auto kViaMpiSpecs = specs_of(kViaMpiFields);

MvichParams parse_mvich(const ParamReader& r) { return parse_fields(r, kViaMpiFields); }

}  // namespace

const ParamTable kMvichLayerParams{"runtime (layer: via_mpi)", "MPI over VIA (MVICH's protocols), and its collectives.",
                                   kViaMpiSpecs};

MvichLayer::MvichLayer(Job& job, const nic::ViaParams& nic, const MvichParams& params, const Json& collectives,
                       const Where& collectives_where)
    : ViaLayer(job, nic),
      p_(params),
      slots_(nic_, params.rdma_slots),
      slot_arrivals_(static_cast<std::size_t>(job.size()), 0) {
  const coll::Selection selection =
      coll::parse_selection(ParamReader(collectives, collectives_where, coll::kSelectionParams), job.size());
  set_collectives(std::make_unique<ViaCollectives>(*this, selection));
}

ViaCosts MvichLayer::model_costs() const {
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
CpuCharge MvichLayer::send_overhead(const Message& m) {
  if (m.envelope.size > p_.eager_limit || p_.user_buffers_registered) return control_send();
  return control_send().add(CpuUse::copy, copy_time(m.envelope.size));
}

CpuCharge MvichLayer::receive_path(const Message& m) const {
  return control_receive().add(CpuUse::copy, copy_time(m.envelope.size));
}

Task<> MvichLayer::protocol(Message m) {
  if (m.envelope.size > p_.eager_limit) return rendezvous(m);
  return eager(m);
}

// MVICH's "rput": the receiver's clear to send names its registered buffer, the sender writes
// the data straight into it, and a FIN tells the receiver it is in.
Task<> MvichLayer::rendezvous(Message m) {
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
  if (m.active_message)
    deliver_am(m.handler, e);
  else
    requests_.complete(receive, e);
}

void MvichLayer::write_slot(Rank src, Rank dst, Bytes bytes, Tag tag, std::uint64_t word) {
  kernel().spawn(slot_write(src, dst, bytes, tag, word));
}

Task<> MvichLayer::slot_write(Rank src, Rank dst, Bytes bytes, Tag tag, std::uint64_t word) {
  co_await nic_.rdma_write(src, dst, bytes);
  co_await cores().run(dst, nic_.params().flag_poll_cpu, CpuUse::poll);
  ++slot_arrivals_[static_cast<std::size_t>(dst)];
  deliver({src, dst, tag, bytes, word});
}

Request MvichLayer::completed_request() {
  const auto index = requests_.allocate();
  requests_.complete(index);
  return Request(&requests_, index);
}

std::unique_ptr<MessagingLayer> make_mvich_layer(const ParamReader& r, Job& job) {
  const nic::ViaParams nic = nic::via_of(job.machine, r.where());  // first: the clearest error
  return std::make_unique<MvichLayer>(job, nic, parse_mvich(r), r.nested("collectives"), r.where("collectives"));
}

}  // namespace torsim::rt
