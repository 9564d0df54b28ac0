#include "models/runtime/bluegene_p/mpich_dcmf.hpp"

#include "models/runtime/layer_params.hpp"
#include "sim/config/fields.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::rt {

namespace {

constexpr Field<MpichDcmfParams> kMpiFields[] = {
    layer_field<MpichDcmfParams>("mpi_dcmf"),
    bind<&MpichDcmfParams::header>({"header", ParamKind::size, "16B", "B", "0B", "1KiB",
                                    "MPI envelope carried with each message",
                                    "[C-code] MPICH dcmfd (pmodels/mpich src/mpid/dcmfd @ fbe1f262): 16 B MPI header"}),
    bind<&MpichDcmfParams::send_cpu>({"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                      "MPI_Isend's path down to DCMF, request included", "preset"}),
    bind<&MpichDcmfParams::recv_cpu>({"recv_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                      "MPI's receive callback and request completion on the receiver's core",
                                      "preset"}),
    bind<&MpichDcmfParams::match_cpu>({"match_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                       "matching one message in the posted queue", "preset"}),
    bind<&MpichDcmfParams::memregion_cpu>({"memregion_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                           "DCMF_Memregion_create: pinning a buffer for a rendezvous, on each side",
                                           "preset"}),
    bind<&MpichDcmfParams::eager_limit>({"eager_limit", ParamKind::size, "1200B", "B", "0B", "1GiB",
                                         "messages of this size or more use MPI's rendezvous",
                                         "[C-code] MPICH dcmfd: DCMF_EAGER 1200"}),
    bind<&MpichDcmfParams::rts_bytes>(
        {"rts_bytes", ParamKind::size, "48B", "B", "0B", "1KiB",
         "request to send: MPI header, memory region, offset and length",
         "[C-code] MPICH dcmfd: the RTS carries the envelope, a memregion and its offset and length"}),
    bind<&MpichDcmfParams::ack_bytes>({"ack_bytes", ParamKind::size, "16B", "B", "0B", "1KiB",
                                       "the receiver's acknowledgement (a DCMF control message)", "preset"}),
};
constexpr auto kMpiSpecs = specs_of(kMpiFields);

MpichDcmfParams parse_mpich_dcmf(const ParamReader& r) { return parse_fields(r, kMpiFields); }

}  // namespace

const ParamTable kMpichDcmfLayerParams{"runtime (layer: mpi_dcmf)", "MPICH's DCMF device on Blue Gene/P.", kMpiSpecs};

CpuCharge MpichDcmfLayer::send_overhead(const Message& m) {
  CpuCharge cost(CpuUse::send, m_.send_cpu + d_.send_cpu);
  if (m.envelope.size >= m_.eager_limit) cost.add(CpuUse::registration, m_.memregion_cpu);
  return cost;
}

CpuCharge MpichDcmfLayer::arrival_cost(const Message&) const {
  return CpuCharge(CpuUse::match, m_.match_cpu).add(CpuUse::receive, m_.recv_cpu);
}

void MpichDcmfLayer::launch(const Message& m) {
  if (m.envelope.size < m_.eager_limit) return DcmfLayer::launch(m);
  kernel().at(kernel().now(), step(this, rendezvous_.add({m, 0}), Step::send_rts));
}

Callback MpichDcmfLayer::step(MpichDcmfLayer* layer, SlotPool<Rendezvous>::Index index, Step next) {
  return member_callback<MpichDcmfLayer, &MpichDcmfLayer::advance>(
      layer, index | std::uint64_t{static_cast<std::uint8_t>(next)} << 32);
}

void MpichDcmfLayer::after_cpu(Rank r, const CpuCharge& charge, SlotPool<Rendezvous>::Index index, Step next) {
  kernel().at(cores().occupy(r, charge), step(this, index, next));
}

void MpichDcmfLayer::transfer_then(Rank from, Rank to, Bytes bytes, SlotPool<Rendezvous>::Index index, Step next) {
  dma_.start_transfer(from, to, bytes, step(this, index, next));
}

// MPI's own rendezvous (DCMF's is off in MPICH's DCMF device): a request to send; once a
// receive matches, the receiver pins its buffer and gets the data (a remote get: descriptor
// out, the sender's DMA turns it round, data back); its acknowledgement (a control message)
// completes the send. A send never completes before its receive is posted.
void MpichDcmfLayer::advance(std::uint64_t index_and_step) {
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
      return after_cpu(
          e.dst,
          CpuCharge(CpuUse::poll, d_.poll_cpu).add(CpuUse::receive, m_.recv_cpu).add(CpuUse::send, d_.control_cpu),
          index, Step::data_handled);
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
void MpichDcmfLayer::rts_handled(SlotPool<Rendezvous>::Index index) {
  Rendezvous& r = rendezvous_[index];
  if (!r.m.active_message &&
      !match_or_wait(r.m.envelope, r.receive,
                     member_callback<MpichDcmfLayer, &MpichDcmfLayer::receive_matched>(this, index)))
    return;
  receive_matched(index | std::uint64_t{r.receive} << 32);
}

void MpichDcmfLayer::receive_matched(std::uint64_t index_and_request) {
  const auto index = static_cast<SlotPool<Rendezvous>::Index>(index_and_request);
  rendezvous_[index].receive = static_cast<std::uint32_t>(index_and_request >> 32);
  after_cpu(rendezvous_[index].m.envelope.dst,
            CpuCharge(CpuUse::registration, m_.memregion_cpu).add(CpuUse::send, d_.get_cpu), index, Step::request_data);
}

// The data is in: the receive completes (which may run the receiver's program and post
// more messages: the record is read before), and the ack goes back.
void MpichDcmfLayer::data_handled(SlotPool<Rendezvous>::Index index) {
  const Rendezvous r = rendezvous_[index];
  complete_receive(r.m, r.receive);
  transfer_then(r.m.envelope.dst, r.m.envelope.src, m_.ack_bytes, index, Step::ack_in);
}

// MPI_Put / MPI_Get on a window: DCMF_Put / DCMF_Get with MPI's call path around them.
Task<> MpichDcmfLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, m_.send_cpu, CpuUse::send);
  co_await DcmfLayer::put(self, target, size);
}

Task<> MpichDcmfLayer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, m_.send_cpu, CpuUse::send);
  co_await DcmfLayer::get(self, target, size);
}

MpichDcmfLayer::MpichDcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf, const MpichDcmfParams& mpi)
    : DcmfLayer(job, nic, dcmf), m_(mpi) {
  use_tree_collectives();
  // A step reads its record a network crossing or a core's queue after the last: asked for
  // one event ahead.
  job.kernel.add_prefetcher(
      member_callback<MpichDcmfLayer, &MpichDcmfLayer::advance>(this).fn,
      [](const void* layer, std::uint64_t index_and_step) {
        __builtin_prefetch(&static_cast<const MpichDcmfLayer*>(layer)
                                ->rendezvous_[static_cast<SlotPool<Rendezvous>::Index>(index_and_step)]);
      });
}

std::unique_ptr<MessagingLayer> make_mpich_dcmf_layer(const ParamReader& r, Job& job) {
  // The NIC first: on another machine, its message says so rather than that a calibration is missing.
  const nic::BgpParams bgp = nic::bgp_of(job.machine, r.where());
  const DcmfParams dcmf = dcmf_of(job.machine);
  return std::make_unique<MpichDcmfLayer>(job, bgp, dcmf, parse_mpich_dcmf(r));
}

}  // namespace torsim::rt
