#include "models/runtime/infiniband/verbs.hpp"

#include "models/runtime/layer_params.hpp"

namespace torsim::rt {

namespace {

struct VerbsOptions {
  int receive_depth = 0;
};
constexpr Field<VerbsOptions> kVerbsFields[] = {
    layer_field<VerbsOptions>("verbs"),
    bind<&VerbsOptions::receive_depth>(
        {"receive_depth", ParamKind::integer, "64", "", "1", "100000",
         "receives each rank posts per connection before the first message (one is posted again per message)",
         "assumption: enough that a benchmark never waits for one"}),
};
constexpr auto kVerbsSpecs = specs_of(kVerbsFields);

}  // namespace

const ParamTable kVerbsLayerParams{"runtime (layer: verbs)", "The verbs level of InfiniBand HCAs.", kVerbsSpecs};

// A send into a posted receive: the receiver polls it and posts one again; the sender's
// request completes when it has polled its own completion.
Task<> VerbsLayer::protocol(Message m) {
  const Envelope& e = m.envelope;
  connect(e.dst, e.src, receive_depth_);
  const auto index = landing_.add(m);
  co_await hca_.send(e.src, e.dst, e.size, hca_.rail_of(e.src),
                     member_callback<VerbsLayer, &VerbsLayer::landed>(this, index));
  co_await cores().run(e.src, hca_.params().poll_cpu, CpuUse::poll);
  complete_send(m);
}

void VerbsLayer::landed(std::uint64_t index) {
  const Message m = landing_[static_cast<std::uint32_t>(index)];
  landing_.release(static_cast<std::uint32_t>(index));
  kernel().spawn(take_in(m));
}

Task<> VerbsLayer::take_in(Message m) {
  co_await take_receive(m.envelope.dst, m.envelope.src);
  arrive(m);
}

Task<> VerbsLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, hca_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  co_await hca_.rdma_write(self, target, size, hca_.rail_of(self));
  co_await cores().run(self, hca_.params().poll_cpu, CpuUse::poll);
}

Task<> VerbsLayer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, hca_.register_memory(self, user_buffer(size), size), CpuUse::registration);
  co_await hca_.rdma_read(self, target, size, hca_.rail_of(self));
  co_await cores().run(self, hca_.params().poll_cpu, CpuUse::poll);
}

std::unique_ptr<MessagingLayer> make_verbs_layer(const ParamReader& r, Job& job) {
  return std::make_unique<VerbsLayer>(job, nic::infiniband_of(job.machine, r.where()),
                                      parse_fields(r, kVerbsFields).receive_depth);
}

}  // namespace torsim::rt
