#include "models/runtime/bluegene_p/gasnet_dcmf.hpp"

#include "models/runtime/layer_params.hpp"
#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {
constexpr Field<GasnetParams> kFields[] = {
    layer_field<GasnetParams>("gasnet_dcmf"),
    bind<&GasnetParams::put_cpu>(
        {"put_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "gasnet_put(_nb): the extended API's path to DCMF_Put (an op handle, the target address)", "preset"}),
    bind<&GasnetParams::get_cpu>(
        {"get_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "gasnet_get(_nb): the path to DCMF_Get", "preset"}),
    bind<&GasnetParams::sync_cpu>({"sync_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                   "gasnet_wait_syncnb: finding an operation done and releasing its handle", "preset"}),
    bind<&GasnetParams::am_cpu>({"am_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                 "an active message's GASNet part at each end (request set-up; handler dispatch)",
                                 "preset"}),
    bind<&GasnetParams::am_header>({"am_header", ParamKind::size, "16B", "B", "0B", "1KiB",
                                    "GASNet's active-message header (handler, arguments)", "preset"}),
};
constexpr auto kSpecs = specs_of(kFields);
}  // namespace

const ParamTable kGasnetDcmfLayerParams{"runtime (layer: gasnet_dcmf)", "GASNet's DCMF conduit on Blue Gene/P.",
                                        kSpecs};

GasnetDcmfLayer::GasnetDcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf,
                                 const GasnetParams& gasnet)
    : DcmfLayer(job, nic, dcmf), g_(gasnet) {
  // A put's record was written when it was issued, often long before its start (the core was
  // busy): asked for one event ahead, it is not a cache miss when the put starts.
  const auto prefetch_issued = [](const void* ctx, std::uint64_t index) {
    __builtin_prefetch(&static_cast<const GasnetDcmfLayer*>(ctx)->issued_[static_cast<std::uint32_t>(index)]);
  };
  kernel().add_prefetcher(member_callback<GasnetDcmfLayer, &GasnetDcmfLayer::start_put>(this).fn, prefetch_issued);
}

Task<> GasnetDcmfLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, g_.put_cpu + d_.put_cpu, CpuUse::send);
  co_await dma_.put_with_ack(self, target, size);
  co_await cores().run(self, sync_cost());
}

Task<> GasnetDcmfLayer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, g_.get_cpu + d_.get_cpu, CpuUse::send);
  co_await dma_.remote_get(self, target, size);
  co_await cores().run(self, CpuCharge(CpuUse::poll, d_.poll_cpu + g_.sync_cpu));
}

// Issued on the caller's core (which the caller's next action queues behind); the data, the
// ack and the poll that finds it happen while the caller goes on. Events only, no process.
Task<Request> GasnetDcmfLayer::iput(Rank self, Rank target, Bytes size) {
  const auto request = requests_.allocate();
  const Time issued = cores().occupy(self, g_.put_cpu + d_.put_cpu, CpuUse::send);
  const auto index = issued_.add({self, target, size, request});
  kernel().at(issued, member_callback<GasnetDcmfLayer, &GasnetDcmfLayer::start_put>(this, index));
  return Task<Request>::ready(Request(&requests_, request));
}

void GasnetDcmfLayer::start_put(std::uint64_t put_index) {
  const IssuedPut put = issued_[static_cast<std::uint32_t>(put_index)];
  issued_.release(static_cast<std::uint32_t>(put_index));
  const std::uint64_t request_and_rank = put.request | std::uint64_t{static_cast<std::uint32_t>(put.self)} << 32;
  dma_.start_put_with_ack(put.self, put.target, put.size,
                          member_callback<GasnetDcmfLayer, &GasnetDcmfLayer::put_acked>(this, request_and_rank));
}

void GasnetDcmfLayer::put_acked(std::uint64_t request_and_rank) {
  const Time found = cores().occupy(static_cast<Rank>(request_and_rank >> 32), sync_cost());
  kernel().at(found,
              member_callback<GasnetDcmfLayer, &GasnetDcmfLayer::complete>(this, request_and_rank & 0xffffffffu));
}

namespace {
GasnetParams parse_gasnet(const ParamReader& r) { return parse_fields(r, kFields); }
}  // namespace

std::unique_ptr<MessagingLayer> make_gasnet_dcmf_layer(const ParamReader& r, Job& job) {
  // The NIC first: on another machine, its message says so rather than that a calibration is missing.
  const nic::BgpParams bgp = nic::bgp_of(job.machine, r.where());
  const DcmfParams dcmf = dcmf_of(job.machine);
  return std::make_unique<GasnetDcmfLayer>(job, bgp, dcmf, parse_gasnet(r));
}

}  // namespace torsim::rt
