// Charm++ on Cray XE6: a message-driven scheduler on every PE over two machine layers.
//
// Every message (an entry method, or a two-sided message of the generic interface) reaches
// its PE's scheduler queue and runs there one at a time, paying the scheduler's dispatch cost
// and the progress call of the machine layer that brought it in (the scheduler polls the
// network on every iteration); sends pay Charm++'s send path and carry its envelope. An idle
// PE spins in the progress call, so it notices an arrival at the end of the pass it lands in.
// Underneath:
//  - charm_mpi: the MPI machine layer: MPI_Isend of the message itself (send-and-free), kept
//    in a list of pending sends that every progress call walks with one MPI_Test each; progress
//    by MPI_Iprobe(any source), each message received into a freshly allocated buffer
//    (MPI_Get_count, malloc, MPI_Recv) with no receive posted in advance, so MPI copies every
//    eager message twice; a rendezvous message is received with a blocking MPI_Recv that holds
//    the PE until its data is in. All of MPI's own costs underneath (the 'mpi' layer);
//  - charm_ugni: the uGNI machine layer: SMSG up to the SMSG limit; above it a control message
//    with a memory handle, a GET (FMA or BTE) into memory-pool memory and an ack; messages of
//    4 MB or more in 2 MB segments registered on the fly, four in flight; persistent messages
//    (tag kPersistent): a PUT straight into a pre-registered receive buffer, no handshake;
//    ranks on one node talk through shared memory (pxshm), one copy.
#pragma once

#include <unordered_map>

#include "models/runtime/gemini/cray_mpich.hpp"

namespace torsim::rt {

// Every field is read by parse_charm from its declaration in charm.cpp, which holds the default.
struct CharmParams {
  Bytes envelope = 0;
  Time send_cpu = 0, scheduler_cpu = 0, alloc_cpu = 0;
};
struct CharmMpiParams {
  Time iprobe_cpu = 0;
};
// Every field is read by parse_charm_ugni from its declaration in charm.cpp, which holds the default.
struct CharmUgniParams {
  Bytes fma_bte_threshold = 0;
  Bytes control_bytes = 0;
  Time pool_alloc_cpu = 0, pxshm_cpu = 0;
  Bytes big_message = 0, big_segment = 0;
  std::int64_t big_segments_in_flight = 0;
};

extern const ParamTable kCharmParams;
extern const ParamTable kCharmMpiParams;
extern const ParamTable kCharmUgniParams;

/// Addresses a rank's malloc hands out, as the registration cache sees them: freed blocks of
/// a size are reused last freed first (as glibc's bins do), so the k-th buffer of a size alive
/// at once always gets the same address.
class HeapModel {
 public:
  explicit HeapModel(int ranks) : live_(static_cast<std::size_t>(ranks)) {}
  std::uint64_t allocate(Rank r, Bytes size);
  void release(Rank r, Bytes size);

 private:
  std::vector<std::unordered_map<Bytes, std::uint32_t>> live_;  // per rank: live blocks by size
};

class CharmMpiLayer final : public CrayMpichLayer {
 public:
  CharmMpiLayer(Job& job, const nic::GeminiParams& nic, const CrayMpichParams& mpi, const CharmParams& charm,
                const CharmMpiParams& params);
  std::string_view name() const override { return "charm_mpi"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  /// Sends of rank r that its progress calls still test (MPI has not finished them, or no
  /// MPI_Test has seen them finished yet).
  std::int64_t pending_sends(Rank r) const { return pending_[static_cast<std::size_t>(r)]; }

 private:
  Time handler_overhead(Rank) const override { return charm_.scheduler_cpu; }
  Time poll_period(Rank r) const override;
  void idle_passes(Rank r) override {
    pending_[static_cast<std::size_t>(r)] = unfinished_[static_cast<std::size_t>(r)];
  }
  Time progress_call(Rank r);
  bool sends_complete_at_post() const override { return true; }
  CpuCharge send_overhead(const Message& m) override;
  Bytes wire_size(const Message& m) const override { return m.envelope.size + charm_.envelope; }
  bool receives_immediately(const Message&) const override { return true; }
  Task<> received(Message m) override;
  void mpi_send_done(const Message& m) override;
  bool blocking_receive() const override { return true; }
  std::uint64_t send_buffer(const Message& m) override { return heap_.allocate(m.envelope.src, wire_size(m)); }
  std::uint64_t receive_buffer(const Message& m) override { return heap_.allocate(m.envelope.dst, wire_size(m)); }
  bool rendezvous_size(const Message& m) const { return wire_size(m) > params().eager_limit; }

  CharmParams charm_;
  CharmMpiParams p_;
  HandlerId two_sided_;
  HeapModel heap_;
  std::vector<std::int64_t> pending_, unfinished_;  // per rank
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
  CpuCharge send_overhead(const Message&) override {
    return CpuCharge(CpuUse::send, charm_.send_cpu + charm_.alloc_cpu);
  }
  Task<> protocol(Message m) override;
  Task<> shared_memory(Message m);
  Task<> small(Message m);
  Task<> persistent(Message m);
  Task<> large(Message m);
  Task<> get_segments(Rank dst, Rank src, Bytes bytes);
  Task<> segment(Rank dst, Rank src, Bytes bytes, std::int64_t& in_flight, WaitQueue& waiting);
  Task<> land(Message m, std::shared_ptr<Signal> arrived);
  void enqueue(const Message& m);

  CharmParams charm_;
  CharmUgniParams p_;
  HandlerId two_sided_;
};

std::unique_ptr<MessagingLayer> make_charm_mpi_layer(const ParamReader& r, Job& job);
std::unique_ptr<MessagingLayer> make_charm_ugni_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
