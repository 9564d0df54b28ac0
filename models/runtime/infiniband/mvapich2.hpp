// "mpi" on InfiniBand: MVAPICH2's protocols over verbs. Between nodes: the RDMA fast path (the
// message and its header RDMA-written into a ring of pre-registered buffers per peer, which the
// receiver polls) for small messages while the pair has a free slot; eager send/receive into
// pre-posted buffers up to the eager limit (a copy on each side); above it a rendezvous:
// request to send, a clear to send once a receive matches, the data RDMA-written from the user
// buffer into the receiver's (both registered through the registration cache), striped over
// every rail from the striping threshold on, and a finish message (RPUT; RGET: the receiver
// RDMA-reads instead and tells the sender). Ranks on one node use shared memory: eager copies
// in and out up to the SMP eager limit, above it both cores copy through SMP-block-sized
// buffers, one block apart.
// A layer name means one programming interface on every machine: "mpi" is built on the
// machine's NIC (Cray MPICH over uGNI on Gemini, MVAPICH2 over verbs on InfiniBand).
#pragma once

#include <memory>
#include <unordered_map>

#include "models/runtime/infiniband/infiniband_layer.hpp"
#include "models/runtime/layer_params.hpp"

namespace torsim::rt {

extern const ParamTable kMvapich2LayerParams;

struct Mvapich2Params : MpiCosts {
  Time rma_sync_cpu = 0;
  Bytes fast_path_size = 0;   // message + header through the RDMA fast path, at most
  int fast_path_buffers = 0;  // ring slots per peer
  int fast_path_peers = 0;    // senders a rank gives a ring to
  Bytes eager_limit = 0;      // message + header sent eagerly, at most
  int prepost_depth = 0;      // receives posted per connection
  bool rget = false;          // rendezvous by RDMA read instead of write
  Bytes striping_threshold = 0;
  Bytes control_bytes = 0;  // RTS, CTS, FIN
  Bytes smp_eager_limit = 0, smp_block = 0;
};

class Mvapich2Layer final : public InfinibandLayer {
 public:
  Mvapich2Layer(Job& job, const nic::InfinibandParams& hca, const Mvapich2Params& params);
  std::string_view name() const override { return "mpi"; }
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  const Mvapich2Params& params() const { return p_; }

 private:
  CpuCharge send_overhead(const Message& m) override;
  Task<> protocol(Message m) override;
  Task<> shared_memory(Message m);
  Task<> eager(Message m);
  Task<> rendezvous(Message m);
  /// Move the rendezvous data, striped over the rails when large enough: RDMA writes with a FIN
  /// behind them (RPUT), or RDMA reads and a FIN back (RGET).
  Task<> put_data(Message& m, std::uint32_t receive);
  Task<> get_data(Message& m, std::uint32_t receive);
  /// A small message (a payload with its header, or a control message) to dst: through the
  /// RDMA fast path when the pair has a ring slot free, else send/receive. Returns when dst has
  /// found it (its poll charged).
  Task<> small(Rank src, Rank dst, Bytes bytes, int rail);
  /// Takes a fast-path slot of the pair src -> dst, if it has a ring with one free.
  bool take_fast_path_slot(Rank src, Rank dst);
  /// The receiver freed a slot of the ring `key` (sender, receiver), and the sender knows.
  void return_slot(std::uint64_t key);
  int stripes(Bytes size) const { return size >= p_.striping_threshold ? hca_.rails() : 1; }
  /// Stripe k of n: an even share, the last one taking the remainder.
  static Bytes stripe_bytes(Bytes size, int n, int k) { return size / n + (k + 1 == n ? size % n : 0); }
  CpuCharge receive_cost() const { return CpuCharge(CpuUse::receive, p_.recv_cpu).add(CpuUse::match, p_.match_cpu); }

  Mvapich2Params p_;
  struct Ring {
    int free_slots = 0;
  };
  std::unordered_map<std::uint64_t, Ring> rings_;  // per (sender, receiver) with a fast path
  std::vector<int> rings_given_;                   // per receiver
};

std::unique_ptr<MessagingLayer> make_mvapich2_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
