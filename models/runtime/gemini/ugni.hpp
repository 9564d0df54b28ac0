// "ugni": messaging at the uGNI level of the Cray Gemini NIC: small sends through SMSG, larger
// ones as a control message and a GET by the receiver, one-sided put/get straight on FMA or
// BTE.
#pragma once

#include <memory>

#include "models/runtime/gemini/gemini_layer.hpp"

namespace torsim::rt {

extern const ParamTable kUgniLayerParams;

// Every field is read by parse_ugni from its declaration in ugni.cpp, which holds the default.
struct UgniParams {
  Bytes fma_bte_threshold = 0;  // RDMA of this size or more uses BTE
  Bytes control_bytes = 0;      // a rendezvous control message (memory handle)
};

class UgniLayer final : public GeminiLayer {
 public:
  UgniLayer(Job& job, const nic::GeminiParams& nic, const UgniParams& params) : GeminiLayer(job, nic), p_(params) {}
  std::string_view name() const override { return "ugni"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  Task<> put_notify(Rank self, Rank target, Bytes size) override;

 private:
  bool put_notify_uses_messages() const override { return false; }
  Task<> remote_event(Rank from, Rank target, std::shared_ptr<Signal> arrived);
  CpuCharge send_overhead(const Message&) override { return {}; }
  Task<> protocol(Message m) override;
  UgniParams p_;
};

std::unique_ptr<MessagingLayer> make_ugni_layer(const ParamReader& r, Job& job);
UgniParams parse_ugni(const ParamReader& r);

}  // namespace torsim::rt
