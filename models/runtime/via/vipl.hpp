// "vipl": the VIA provider library itself, as a benchmark uses it: a send is a VipPostSend from
// a registered buffer into a receive buffer the receiver keeps posted; the receiver polls the
// completion and re-posts. No copies, no library. put is an RDMA write whose completion the
// initiator learns from the reliable-delivery acknowledgement; get, which cLAN cannot do in
// hardware, is a request the target answers with an RDMA write.
#pragma once

#include <memory>

#include "models/runtime/via/via_layer.hpp"

namespace torsim::rt {

extern const ParamTable kViplLayerParams;

class ViplLayer final : public ViaLayer {
 public:
  using ViaLayer::ViaLayer;
  std::string_view name() const override { return "vipl"; }

 private:
  CpuCharge send_overhead(const Message&) override { return {}; }
  CpuCharge receive_path(const Message&) const override { return {}; }
  bool buffered_send() const override { return false; }
};

std::unique_ptr<MessagingLayer> make_vipl_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
