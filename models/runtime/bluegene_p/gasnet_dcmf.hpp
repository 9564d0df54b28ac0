// GASNet's DCMF conduit on Blue Gene/P (the runtime under Berkeley UPC), on the DCMF layer
// (models/runtime/bluegene_p/dcmf.hpp):
//  - put: one DCMF_Put into a region of the target pinned at start-up; remote completion at
//    its ack, with no work by the target's core; get: one DCMF_Get (a remote get);
//  - non-blocking put and get (gasnet_put_nb / get_nb): issued, then synced later, so the
//    transfer overlaps whatever the initiator computes meanwhile;
//  - active messages (short, medium, long) over DCMF_Send: memory-FIFO packets up to 1 KiB,
//    DCMF's rendezvous above; the handler runs on the target's core when it polls. Two-sided
//    sends are active messages whose handler hands the message to the matching engine;
//  - barriers on the global barrier network; other collectives in software (the defaults).
#pragma once

#include "models/runtime/bluegene_p/dcmf.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::rt {

extern const ParamTable kGasnetDcmfLayerParams;

// Every field is read by parse_gasnet from its declaration in gasnet_dcmf.cpp, which holds the default.
struct GasnetParams {
  Time put_cpu = 0, get_cpu = 0, sync_cpu = 0, am_cpu = 0;
  Bytes am_header = 0;
};

class GasnetDcmfLayer final : public DcmfLayer {
 public:
  GasnetDcmfLayer(Job& job, const nic::BgpParams& nic, const DcmfParams& dcmf, const GasnetParams& gasnet);
  std::string_view name() const override { return "gasnet_dcmf"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  Task<Request> iput(Rank self, Rank target, Bytes size) override;
  const GasnetParams& gasnet() const { return g_; }

 private:
  CpuCharge send_overhead(const Message&) override { return CpuCharge(CpuUse::send, g_.am_cpu + d_.send_cpu); }
  CpuCharge arrival_cost(const Message&) const override { return CpuCharge(CpuUse::scheduler, g_.am_cpu); }
  Bytes header_bytes() const override { return d_.header + g_.am_header; }
  /// A non-blocking put's ack is in: the initiator's core finds it, then its request completes.
  void put_acked(std::uint64_t request_and_rank);
  void start_put(std::uint64_t put_index);
  void complete(std::uint64_t request) { requests_.complete(static_cast<std::uint32_t>(request)); }
  struct IssuedPut {
    Rank self, target;
    Bytes size;
    std::uint32_t request;
  };
  SlotPool<IssuedPut> issued_;  // puts whose initiator's core is still issuing them
  CpuCharge sync_cost() const { return fifo_receive_cost(0).add(CpuUse::poll, g_.sync_cpu); }
  GasnetParams g_;
};

std::unique_ptr<MessagingLayer> make_gasnet_dcmf_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
