#include "models/runtime/bluegene_q/mpich_pamid.hpp"

#include <algorithm>

#include "models/runtime/layer_params.hpp"
#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {
constexpr ChoiceName<bool> kRmaSyncNames[] = {{"lock", true}, {"none", false}};
constexpr Field<MpichPamidParams> kFields[] = {
    layer_field<MpichPamidParams>("mpi_pami"),
    bind<&MpichPamidParams::header>({"header", ParamKind::size, "16B", "B", "0B", "1KiB",
                                     "MPI header sent with each message", "[C-code] MPICH pamid (v3.1, 82f13590)"}),
    bind<&MpichPamidParams::short_max>(
        {"short_max", ParamKind::size, "112B", "B", "0B", "1KiB",
         "largest data sent by PAMI_Send_immediate (128 B with the header); the request completes at once",
         "[C-code] pamid; [C] LLNL BG/Q page, '5D Torus Point-to-Point Message Protocols'"}),
    bind<&MpichPamidParams::eager_limit>({"eager_limit", ParamKind::size, kRequired, "B", "0B", "1GiB",
                                          "largest data sent eagerly by PAMI_Send; rendezvous above", "preset"}),
    bind<&MpichPamidParams::envelope>({"envelope", ParamKind::size, "40B", "B", "0B", "1KiB",
                                       "a rendezvous request to send (envelope)", "[C-code] pamid"}),
    bind<&MpichPamidParams::medium_from>({"medium_from", ParamKind::size, "128B", "B", "1B", "1GiB",
                                          "first size of the calibration's medium class",
                                          "[C] sst-elements ember/test/bgqParams.py"}),
    bind<&MpichPamidParams::large_from>({"large_from", ParamKind::size, "512B", "B", "1B", "1GiB",
                                         "first size of the calibration's large class", "[C] same"}),
    bind<&MpichPamidParams::tx_short>({"tx_short", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                       "send software time, MPI and PAMI, below medium_from", "preset"}),
    bind<&MpichPamidParams::tx_medium>(
        {"tx_medium", ParamKind::time, kRequired, "ns", "0ns", "1ms", "send software time, medium class", "preset"}),
    bind<&MpichPamidParams::tx_large>(
        {"tx_large", ParamKind::time, kRequired, "ns", "0ns", "1ms", "send software time, large class", "preset"}),
    bind<&MpichPamidParams::rx_empty>({"rx_empty", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                       "receive software time of a 0 B message", "preset"}),
    bind<&MpichPamidParams::rx_short>({"rx_short", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                       "receive software time, 1 B to medium_from", "preset"}),
    bind<&MpichPamidParams::rx_medium>(
        {"rx_medium", ParamKind::time, kRequired, "ns", "0ns", "1ms", "receive software time, medium class", "preset"}),
    bind<&MpichPamidParams::rx_large>(
        {"rx_large", ParamKind::time, kRequired, "ns", "0ns", "1ms", "receive software time, large class", "preset"}),
    bind<&MpichPamidParams::match_cpu>({"match_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                        "tag matching of one arriving message", "preset"}),
    bind<&MpichPamidParams::rma_cpu>(
        {"rma_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "MPI_Put / MPI_Get bookkeeping (window and datatype checks, splitting into contiguous pieces)", "preset"}),
    bind<&MpichPamidParams::rma_sync_cpu>({"rma_sync_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                           "MPI's side of MPI_Win_lock or MPI_Win_unlock, at each end", "preset"}),
    bind_choice<&MpichPamidParams::rma_lock, kRmaSyncNames>(
        {"rma_sync", ParamKind::choice, "lock", "", "", "",
         "lock: each MPI_Put / MPI_Get in its own passive-target epoch (MPI_Win_lock, MPI_Win_unlock); none: no "
         "synchronisation beyond the operation's completion",
         "assumption: how the one-sided benchmark synchronised is not in the source", "lock|none"}),
    unbound<MpichPamidParams>(
        {"collectives", ParamKind::object, "{}", "", "", "",
         "algorithms of the collectives without a class route (MPI_Gather: binomial, as pamid by default); see "
         "runtime.collectives",
         "-"}),
};
constexpr auto kSpecs = specs_of(kFields);
}  // namespace

const ParamTable kMpichPamidLayerParams{"runtime (layer: mpi_pami)", "MPI over PAMI (MPICH pamid) on Blue Gene/Q.",
                                        kSpecs};

MpichPamidParams parse_mpich_pamid(const ParamReader& r) {
  MpichPamidParams p = parse_fields(r, kFields);
  if (p.large_from < p.medium_from) r.where("large_from").fail("must not be below medium_from");
  return p;
}

MpichPamidLayer::MpichPamidLayer(Job& job, const nic::MuParams& mu, const PamiParams& pami,
                                 const MpichPamidParams& params)
    : PamiLayer(job, mu, pami), p_(params) {}

Time MpichPamidLayer::send_time(Bytes size) const {
  return size < p_.medium_from ? p_.tx_short : size < p_.large_from ? p_.tx_medium : p_.tx_large;
}

Time MpichPamidLayer::receive_time(Bytes size) const {
  if (size == 0) return p_.rx_empty;
  return size < p_.medium_from ? p_.rx_short : size < p_.large_from ? p_.rx_medium : p_.rx_large;
}

// The calibrated send time covers the PAMI call it makes (Send_immediate, Send, or the
// rendezvous envelope's Send_immediate); pinning the buffer for a rendezvous comes on top.
CpuCharge MpichPamidLayer::send_overhead(const Message& m) {
  const Bytes size = m.envelope.size;
  const bool rendezvous = size > p_.eager_limit;
  const CpuCharge pami = call_cost(rendezvous ? p_.envelope : wire_size(m));
  CpuCharge cost = pami;
  cost.add(CpuUse::send, std::max<Time>(0, send_time(size) - pami.total()));
  if (rendezvous) cost.add(CpuUse::registration, pami_.memregion_cpu);
  return cost;
}

CpuCharge MpichPamidLayer::receive_handler(Bytes size, Bytes wire) const {
  const Time pami = receive_cost(wire).total();
  return CpuCharge(CpuUse::receive, std::max<Time>(0, receive_time(size) - pami)).add(CpuUse::match, p_.match_cpu);
}

Task<> MpichPamidLayer::protocol(Message m) {
  const Bytes size = m.envelope.size;
  if (size > p_.eager_limit) return rendezvous(m);
  return eager(m, size <= p_.short_max, receive_handler(size, wire_size(m)));
}

// The receiver's Rget moves the data straight between the user buffers (no copy); the
// acknowledgement completes the send.
Task<> MpichPamidLayer::rendezvous(Message m) {
  const Envelope& e = m.envelope;
  co_await transfer(e.src, e.dst, p_.envelope, nullptr, receive_handler(e.size, p_.envelope));
  const std::uint32_t receive = m.active_message ? 0 : co_await match_receive(e);
  co_await cores().run(e.dst, CpuCharge(CpuUse::registration, pami_.memregion_cpu).add(CpuUse::send, pami_.rget_cpu));
  co_await mu_.remote_get(e.dst, e.src, e.size);
  co_await cores().run(e.dst, pami_.completion_cpu, CpuUse::poll);
  complete_receive(m, receive);
  co_await cores().run(e.dst, call_cost(p_.header));
  co_await transfer(e.dst, e.src, p_.header, nullptr, {});
  complete_send(m);
}

Task<> MpichPamidLayer::control_round_trip(Rank self, Rank target) {
  const CpuCharge request = call_cost(p_.header).add(CpuUse::send, p_.rma_sync_cpu);
  co_await cores().run(self, request);
  co_await transfer(self, target, p_.header, nullptr, CpuCharge(CpuUse::receive, p_.rma_sync_cpu));
  co_await cores().run(target, call_cost(p_.header));
  co_await transfer(target, self, p_.header, nullptr, {});
}

// One MPI_Put or MPI_Get: the epoch around it, the origin's memory region, the PAMI call.
Task<> MpichPamidLayer::one_sided(Rank self, Rank target, Bytes size, bool is_put) {
  if (p_.rma_lock) co_await control_round_trip(self, target);
  co_await cores().run(self, CpuCharge(CpuUse::send, p_.rma_cpu + (is_put ? pami_.rput_cpu : pami_.rget_cpu))
                                 .add(CpuUse::registration, pami_.memregion_cpu));
  if (is_put)
    co_await mu_.put_acknowledged(self, target, size);
  else
    co_await mu_.remote_get(self, target, size);
  co_await cores().run(self, pami_.completion_cpu, CpuUse::poll);
  if (p_.rma_lock) co_await control_round_trip(self, target);
}

Task<> MpichPamidLayer::put(Rank self, Rank target, Bytes size) { return one_sided(self, target, size, true); }
Task<> MpichPamidLayer::get(Rank self, Rank target, Bytes size) { return one_sided(self, target, size, false); }

std::unique_ptr<MessagingLayer> make_mpich_pamid_layer(const ParamReader& r, Job& job) {
  const Machine& machine = job.machine;
  const nic::MuParams mu = nic::mu_of(machine, r.where());
  const PamiParams pami = parse_pami(ParamReader(machine.runtimes.value("pami", Json::object()),
                                                 machine.where / "runtimes" / "pami", kPamiLayerParams));
  auto layer = std::make_unique<MpichPamidLayer>(job, mu, pami, parse_mpich_pamid(r));
  install_collectives(*layer, r);
  return layer;
}

}  // namespace torsim::rt
