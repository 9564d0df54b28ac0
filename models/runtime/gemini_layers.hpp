// Messaging layers on the Cray Gemini NIC (models/nic/gemini.hpp):
//  - "ugni": the uGNI level itself: small sends through SMSG, larger ones as a control
//    message and a GET by the receiver, one-sided put/get straight on FMA or BTE;
//  - "mpi": Cray MPICH's protocols over uGNI: eager through SMSG (E0), eager through
//    pre-registered DMA buffers with a copy on each side (E1), rendezvous with GETs by the
//    receiver and a completion message (R0); connections set up on first contact with a peer,
//    tag matching whose cost grows with the queue searched, an extra copy for a message no
//    receive was waiting for, registration of user buffers through a cache.
//    Ranks on one node use shared memory: a copy in, a copy out.
#pragma once

#include <memory>
#include <unordered_map>
#include <unordered_set>

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
  Time send_cpu = 0, recv_cpu = 0, match_cpu = 0, match_entry_cpu = 0;
  Time progress_cpu = 0, test_cpu = 0, connect_cpu = 0;
  bool dynamic_connections = true;
  Bytes vshort_small = 1024, vshort_medium = 512, vshort_large = 256;  // E0 limit by job size
  Bytes eager_limit = 8192;
  std::int64_t eager_buffers = 64;
  Bytes rdma_threshold = 1024;
  Bytes rdma_chunk = 0;  // rendezvous GETs are cut into pieces of this size (0: one GET)
  Bytes control_bytes = 32;
  Time rma_sync_cpu = 0;
};

/// Awaitable: parks the caller in `list` until something resumes it.
struct Park {
  std::vector<std::coroutine_handle<>>& list;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) { list.push_back(h); }
  void await_resume() const noexcept {}
};

/// Shared by the Gemini layers: the NIC, and the polling loop through which a rank notices
/// what arrives.
class GeminiLayer : public ProtocolLayer {
 public:
  GeminiLayer(Job& job, const nic::GeminiParams& nic);
  nic::GeminiNic& nic() { return nic_; }
  /// How long after now an idle rank's polling loop next looks at the network: its loop runs
  /// passes of poll_period() from the moment its core went idle. Zero when the core is busy
  /// (the rank looks once its current work is done).
  Time notice_delay(Rank r) const;

 protected:
  /// One pass of an idle rank's polling loop.
  virtual Time poll_period(Rank) const { return nic_.params().cq_poll_cpu; }
  /// Resumes when rank r notices an arrival (see notice_delay).
  Task<> notice(Rank r);
  /// Called when an arrival finds rank r idle: its polling loop has been running passes.
  virtual void idle_passes(Rank) {}
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
  MpiLayer(Job& job, const nic::GeminiParams& nic, const MpiParams& params);
  std::string_view name() const override { return "mpi"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  Request irecv(Rank self, Rank src, Tag tag) override;
  const MpiParams& params() const { return p_; }
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

  MpiParams p_;
  std::unordered_set<std::uint64_t> connected_;  // pairs (low rank, high rank) with a connection
  std::unordered_map<std::uint64_t, std::vector<std::coroutine_handle<>>> connecting_;  // and their waiters
  std::vector<std::int64_t> eager_buffers_free_;                  // per rank
  std::vector<std::vector<std::coroutine_handle<>>> eager_waiting_;  // per rank
};

std::unique_ptr<MessagingLayer> make_ugni_layer(const ParamReader& r, Job& job);
std::unique_ptr<MessagingLayer> make_mpi_layer(const ParamReader& r, Job& job);
UgniParams parse_ugni(const ParamReader& r);
MpiParams parse_mpi(const ParamReader& r);

}  // namespace torsim::rt
