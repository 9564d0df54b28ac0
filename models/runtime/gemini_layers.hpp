// Messaging layers on the Cray Gemini NIC (models/nic/gemini.hpp):
//  - "ugni": the uGNI level itself: small sends through SMSG, larger ones as a control
//    message and a GET by the receiver, one-sided put/get straight on FMA or BTE;
//  - "mpi": Cray MPICH's protocols over uGNI: eager through SMSG (E0), eager through
//    pre-registered buffers with a copy on each side (E1), rendezvous with a GET by the
//    receiver and a completion message (R0); tag matching and copies at memory bandwidth.
//    Ranks on one node use shared memory: a copy in, a copy out.
#pragma once

#include <memory>

#include "models/nic/gemini.hpp"
#include "models/runtime/protocol_layer.hpp"

namespace torsim::rt {

extern const ParamTable kUgniLayerParams;
extern const ParamTable kMpiLayerParams;

struct UgniParams {
  Bytes fma_bte_threshold = 2048;  // RDMA of this size or more uses BTE
  Bytes control_bytes = 32;        // a rendezvous control message (memory handle)
};

struct MpiParams {
  Bytes header = 16;
  Time send_cpu = 0, recv_cpu = 0, match_cpu = 0;
  Bytes eager_limit = 8192;
  Bytes rdma_threshold = 2048;
  Bytes control_bytes = 32;
  Time rma_sync_cpu = 0;
};

/// Shared by the Gemini layers: the NIC.
class GeminiLayer : public ProtocolLayer {
 public:
  GeminiLayer(Job& job, const nic::GeminiParams& nic);
  nic::GeminiNic& nic() { return nic_; }

 protected:
  nic::Engine engine_for(Bytes bytes, Bytes threshold) const {
    return bytes < threshold ? nic::Engine::fma : nic::Engine::bte;
  }

  nic::GeminiNic nic_;
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
  Task<> remote_event(Rank from, Rank target, std::shared_ptr<Trigger> arrived);
  CpuCharge send_overhead(const Message&) override { return {}; }
  Task<> protocol(Message m) override;
  UgniParams p_;
};

class MpiLayer : public GeminiLayer {
 public:
  MpiLayer(Job& job, const nic::GeminiParams& nic, const MpiParams& params) : GeminiLayer(job, nic), p_(params) {}
  std::string_view name() const override { return "mpi"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  const MpiParams& params() const { return p_; }

 protected:
  CpuCharge send_overhead(const Message& m) override;
  Task<> protocol(Message m) override;
  /// Bytes MPI moves for a message (a layer above MPI adds its own header).
  virtual Bytes wire_size(const Message& m) const { return m.envelope.size; }
  /// The message is in the receiver's buffer: hand it over (a layer above MPI adds its costs).
  virtual Task<> received(Message m);
  /// Whether a receive is matched at once on arrival (a layer that probes and receives
  /// everything) instead of waiting for the application to post one.
  virtual bool receives_immediately(const Message& m) const { return m.active_message; }

 private:
  Task<> shared_memory(Message m);
  Task<> eager_smsg(Message m);
  Task<> eager_buffered(Message m);
  Task<> rendezvous(Message m);
  /// Receiver's cost to take a message's header out of SMSG and match it.
  CpuCharge receive_cost() const {
    return nic_.smsg_receive_cost().add(CpuUse::receive, p_.recv_cpu).add(CpuUse::match, p_.match_cpu);
  }
  MpiParams p_;
};

std::unique_ptr<MessagingLayer> make_ugni_layer(const ParamReader& r, Job& job);
std::unique_ptr<MessagingLayer> make_mpi_layer(const ParamReader& r, Job& job);
UgniParams parse_ugni(const ParamReader& r);
MpiParams parse_mpi(const ParamReader& r);

}  // namespace torsim::rt
