#include "models/runtime/gemini/ugni.hpp"

#include "models/runtime/layer_params.hpp"
#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {

constexpr Field<UgniParams> kUgniFields[] = {
    layer_field<UgniParams>("ugni"),
    bind<&UgniParams::fma_bte_threshold>({"fma_bte_threshold", ParamKind::size, "2048B", "B", "0B", "1GiB",
                                          "RDMA of this size or more uses BTE, less FMA",
                                          "[C-code] Charm++ gemini_gni machine.c, 2011 (1024 B later)"}),
    bind<&UgniParams::control_bytes>({"control_bytes", ParamKind::size, "32B", "B", "0B", "1KiB",
                                      "rendezvous control message carrying a memory handle",
                                      "assumption: a handle and a size"}),
};
constexpr auto kUgniSpecs = specs_of(kUgniFields);

}  // namespace

const ParamTable kUgniLayerParams{"runtime (layer: ugni)", "uGNI-level messaging on the Gemini NIC.", kUgniSpecs};

UgniParams parse_ugni(const ParamReader& r) { return parse_fields(r, kUgniFields); }

Task<> UgniLayer::protocol(Message m) {
  const Envelope& e = m.envelope;
  if (e.size <= nic_.smsg_max()) {
    co_await nic_.smsg(e.src, e.dst, e.size);
    complete_send(m);
    co_await notice(e.dst);
    co_await cores().run(e.dst, nic_.smsg_receive_cost().add(CpuUse::copy, copy_time(e.size)));
    nic_.release(e.src, e.dst);
    co_return arrive(m);
  }
  // Control message with the memory handle; the receiver GETs the data, then acknowledges.
  co_await nic_.smsg(e.src, e.dst, p_.control_bytes);
  co_await notice(e.dst);
  co_await cores().run(e.dst, nic_.smsg_receive_cost());
  nic_.release(e.src, e.dst);
  const std::uint32_t receive = m.active_message ? co_await no_match() : co_await match_receive(e);
  co_await cores().run(e.dst, nic_.register_memory(e.dst, user_buffer(e.size), e.size), CpuUse::registration);
  co_await nic_.get(e.dst, e.src, e.size, engine_for(e.size, p_.fma_bte_threshold));
  complete_receive(m, receive);
  co_await nic_.smsg(e.dst, e.src, p_.control_bytes);
  co_await notice(e.src);
  co_await cores().run(e.src, nic_.smsg_receive_cost());
  nic_.release(e.dst, e.src);
  complete_send(m);
}

Task<> UgniLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, nic_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  co_await nic_.put(self, target, size, engine_for(size, p_.fma_bte_threshold));
}

// A put with a remote event: the target finds it on its completion queue.
Task<> UgniLayer::put_notify(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, nic_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  auto arrived = std::make_shared<Signal>(kernel());
  kernel().spawn(remote_event(self, target, arrived));
  co_await nic_.put(self, target, size, engine_for(size, p_.fma_bte_threshold), arrived.get());
}

Task<> UgniLayer::remote_event(Rank from, Rank target, std::shared_ptr<Signal> arrived) {
  Signal& landed = *arrived;  // a named reference: `co_await *arrived` would await a copy
  co_await landed;
  co_await notice(target);
  co_await cores().run(target, nic_.params().cq_poll_cpu, CpuUse::poll);
  notify(target, from);
}

Task<> UgniLayer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, nic_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  co_await nic_.get(self, target, size, engine_for(size, p_.fma_bte_threshold));
}

std::unique_ptr<MessagingLayer> make_ugni_layer(const ParamReader& r, Job& job) {
  return std::make_unique<UgniLayer>(job, nic::gemini_of(job.machine, r.where()), parse_ugni(r));
}

}  // namespace torsim::rt
