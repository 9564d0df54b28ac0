// Charm++ on Cray XE6: a message-driven scheduler on every PE over two machine layers.
//
// Every message (an entry method, or a two-sided message of the generic interface) reaches
// its PE's scheduler queue and runs there one at a time, paying the scheduler's dispatch cost;
// sends pay Charm++'s send path and carry its envelope. Underneath:
//  - charm_mpi: the MPI machine layer: MPI_Isend, progress by MPI_Iprobe, each message received
//    into a freshly allocated buffer (CmiAlloc + MPI_Recv), all of MPI's own costs underneath
//    (the 'mpi' layer's protocols);
//  - charm_ugni: the uGNI machine layer: SMSG up to the SMSG limit; above it a control message
//    with a memory handle, a GET (FMA or BTE) into memory-pool memory and an ack; persistent
//    messages (tag kPersistent): a PUT straight into a pre-registered receive buffer, no
//    handshake; ranks on one node talk through shared memory (pxshm), one copy.
#pragma once

#include "models/runtime/gemini_layers.hpp"

namespace torsim::rt {

struct CharmParams {
  Bytes envelope = 72;
  Time send_cpu = 0, scheduler_cpu = 0, alloc_cpu = 0;
};
struct CharmMpiParams {
  Time iprobe_cpu = 0;
};
struct CharmUgniParams {
  Bytes fma_bte_threshold = 2048;
  Bytes control_bytes = 48;
  Time pool_alloc_cpu = 0, pxshm_cpu = 0;
};

extern const ParamTable kCharmParams;
extern const ParamTable kCharmMpiParams;
extern const ParamTable kCharmUgniParams;

class CharmMpiLayer final : public MpiLayer {
 public:
  CharmMpiLayer(Job& job, const nic::GeminiParams& nic, const MpiParams& mpi, const CharmParams& charm,
                const CharmMpiParams& params);
  std::string_view name() const override { return "charm_mpi"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;

 private:
  Time handler_overhead(Rank) const override { return charm_.scheduler_cpu; }
  bool sends_complete_at_post() const override { return true; }
  CpuCharge send_overhead(const Message& m) override;
  Bytes wire_size(const Message& m) const override { return m.envelope.size + charm_.envelope; }
  bool receives_immediately(const Message&) const override { return true; }
  Task<> received(Message m) override;

  CharmParams charm_;
  CharmMpiParams p_;
  HandlerId two_sided_;
};

class CharmUgniLayer final : public GeminiLayer {
 public:
  CharmUgniLayer(Job& job, const nic::GeminiParams& nic, const CharmParams& charm, const CharmUgniParams& params);
  std::string_view name() const override { return "charm_ugni"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;

 private:
  Time handler_overhead(Rank) const override { return charm_.scheduler_cpu; }
  bool sends_complete_at_post() const override { return true; }
  CpuCharge send_overhead(const Message&) override { return CpuCharge(CpuUse::send, charm_.send_cpu + charm_.alloc_cpu); }
  Task<> protocol(Message m) override;
  Task<> shared_memory(Message m);
  Task<> small(Message m);
  Task<> persistent(Message m);
  Task<> large(Message m);
  Task<> land(Message m, std::shared_ptr<Trigger> arrived);
  void enqueue(const Message& m);

  CharmParams charm_;
  CharmUgniParams p_;
  HandlerId two_sided_;
};

std::unique_ptr<MessagingLayer> make_charm_mpi_layer(const ParamReader& r, Job& job);
std::unique_ptr<MessagingLayer> make_charm_ugni_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
