// "mpi" on Gemini: Cray MPICH's protocols over uGNI: eager through SMSG (E0), eager through
// pre-registered DMA buffers with a copy on each side (E1), rendezvous with GETs by the
// receiver and a completion message (R0); connections set up on first contact with a peer,
// tag matching whose cost grows with the queue searched, an extra copy for a message no
// receive was waiting for, registration of user buffers through a cache. Ranks on one node
// use shared memory: a copy in, a copy out.
#pragma once

#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "models/runtime/gemini/gemini_layer.hpp"
#include "models/runtime/layer_params.hpp"

namespace torsim::rt {

extern const ParamTable kCrayMpichLayerParams;

// Every field is read by parse_cray_mpich from its declaration in cray_mpich.cpp, which holds the default.
struct CrayMpichParams : MpiCosts {
  Time match_entry_cpu = 0;
  Time progress_cpu = 0, test_cpu = 0, connect_cpu = 0;
  bool dynamic_connections = false;
  Bytes vshort_small = 0, vshort_medium = 0, vshort_large = 0;  // E0 limit by job size
  Bytes eager_limit = 0;
  std::int64_t eager_buffers = 0;
  Bytes rdma_threshold = 0;
  Bytes rdma_chunk = 0;  // rendezvous GETs are cut into pieces of this size (0: one GET)
  Bytes control_bytes = 0;
  Time rma_sync_cpu = 0;
};

class CrayMpichLayer : public GeminiLayer {
 public:
  CrayMpichLayer(Job& job, const nic::GeminiParams& nic, const CrayMpichParams& params);
  std::string_view name() const override { return "mpi"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  Request irecv(Rank self, Rank src, Tag tag) override;
  const CrayMpichParams& params() const { return p_; }
  /// Largest message (with MPI's header) that travels inside an SMSG (E0) in this job.
  Bytes vshort_max() const;
  /// Whether two ranks have an SMSG connection (always, without dynamic connections).
  bool connected(Rank a, Rank b) const;

 protected:
  CpuCharge send_overhead(const Message& m) override;
  Task<> protocol(Message m) override;
  /// An idle MPI rank spins in the progress engine.
  Time poll_period(Rank) const override { return p_.progress_cpu; }
  /// Bytes MPI moves for a message (a layer above MPI adds its own header).
  virtual Bytes wire_size(const Message& m) const { return m.envelope.size; }
  /// The message is in the receiver's buffer: hand it over (a layer above MPI adds its costs).
  virtual Task<> received(Message m);
  /// Whether a receive is matched at once on arrival (a layer that probes and receives
  /// everything) instead of waiting for the application to post one.
  virtual bool receives_immediately(const Message& m) const { return m.active_message; }
  /// MPI considers the send done (a layer above MPI learns it at its next MPI_Test).
  virtual void mpi_send_done(const Message&) {}
  /// Whether the receiver's core waits in MPI_Recv while a rendezvous message's data comes in
  /// (a layer that receives with blocking calls).
  virtual bool blocking_receive() const { return false; }
  /// Buffers the registration cache sees for a rendezvous message on each side.
  virtual std::uint64_t send_buffer(const Message& m) { return user_buffer(wire_size(m)); }
  virtual std::uint64_t receive_buffer(const Message& m) { return user_buffer(wire_size(m)); }
  /// Receiver's cost to take a message's header out of SMSG and match it against the posted
  /// receives.
  CpuCharge arrival_cost(Rank dst) const;
  /// MPI's send completion: the request, and the layer above.
  void send_done(Message& m);

 private:
  Task<> connect(Rank a, Rank b);
  Task<> shared_memory(Message m);
  Task<> eager_smsg(Message m);
  Task<> eager_buffered(Message m);
  Task<> rendezvous(Message m);
  Task<> rendezvous_get(const Message& m, Bytes size);
  Task<> take_eager_buffer(Rank r);
  void return_eager_buffer(Rank r);
  /// An eager message no receive was waiting for is copied into MPI's own buffer first.
  bool unexpected(const Message& m) const { return receives_immediately(m) || posted_receives(m.envelope.dst) == 0; }

  CrayMpichParams p_;
  std::unordered_set<std::uint64_t> connected_;              // pairs (low rank, high rank) with a connection
  std::unordered_map<std::uint64_t, WaitQueue> connecting_;  // and their waiters
  std::vector<std::int64_t> eager_buffers_free_;             // per rank
  std::vector<WaitQueue> eager_waiting_;                     // per rank
};

std::unique_ptr<MessagingLayer> make_cray_mpich_layer(const ParamReader& r, Job& job);
CrayMpichParams parse_cray_mpich(const ParamReader& r);

}  // namespace torsim::rt
