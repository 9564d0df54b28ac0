// PAMI on the Blue Gene/Q message unit (models/nic/bgq_mu.hpp), and the "pami" messaging
// layer that drives it directly:
//  - PAMI_Send_immediate (header + data up to 128 B): copied into a descriptor slot and
//    injected; no local completion to wait for;
//  - PAMI_Send: a single packet up to 512 B, else an envelope and the data in one descriptor
//    that the MU cuts into packets; local completion when the MU has read the data;
//  - the receiver's advance loop takes each packet out of its reception FIFO, dispatches the
//    handler and copies the data out, packet by packet as they stream in;
//  - PAMI_Rget (a remote get: the target's MU sends the data back, no target CPU) and
//    PAMI_Rput (direct put, remote completion answered by the comm agent);
//  - ranks on one node exchange messages through shared memory.
// Every call's cost is charged on the calling rank's core (a 1.6 GHz A2 hardware thread).
// MPI over PAMI (models/runtime/bluegene_q/mpich_pamid.hpp) builds on the same calls.
#pragma once

#include "models/collectives/collectives.hpp"
#include "models/nic/bgq_classroute.hpp"
#include "models/nic/bgq_mu.hpp"
#include "models/runtime/protocol_layer.hpp"

namespace torsim::rt {

extern const ParamTable kPamiLayerParams;

// Every field is read by parse_pami from its declaration in pami.cpp, which holds the default.
struct PamiParams {
  Bytes header = 0;         // the application's dispatch header per message
  Bytes immediate_max = 0;  // header + data of a PAMI_Send_immediate
  Time immediate_cpu = 0;   // PAMI_Send_immediate
  Time send_cpu = 0;        // PAMI_Send: state object, descriptor(s)
  Time dispatch_cpu = 0;    // advance: a message's first packet found, its handler called
  Time packet_cpu = 0;      // advance: each further packet of a message
  Time completion_cpu = 0;  // advance: a completion found, its callback run
  Time rget_cpu = 0, rput_cpu = 0;
  Time memregion_cpu = 0;  // PAMI_Memregion_create
  Time combine_cpu = 0;    // per rank and 8 B: node-local combining before the MU collective
};
PamiParams parse_pami(const ParamReader& r);

class PamiLayer : public ProtocolLayer {
 public:
  PamiLayer(Job& job, const nic::MuParams& mu, const PamiParams& params);
  std::string_view name() const override { return "pami"; }
  /// PAMI_Rput with remote completion; PAMI_Rget. Memory regions exist beforehand.
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  nic::MessageUnit& mu() { return mu_; }
  nic::ClassRoute& class_route() { return class_route_; }
  Time reduce_time(Bytes bytes) const override;
  const PamiParams& pami() const { return pami_; }

 protected:
  /// The caller's core time before isend returns: the PAMI call.
  CpuCharge send_overhead(const Message& m) override;
  /// Moves the message and completes its requests.
  Task<> protocol(Message m) override;
  /// Header and data a message puts on the wire.
  virtual Bytes wire_size(const Message& m) const { return pami_.header + m.envelope.size; }
  bool immediate(Bytes wire) const { return wire <= pami_.immediate_max; }
  /// Core time of the PAMI_Send or PAMI_Send_immediate call that sends `wire` bytes.
  CpuCharge call_cost(Bytes wire) const;

  /// PAMI's own receive work for a message of `wire` bytes: dispatch, the further packets,
  /// the copy out of the reception FIFO.
  CpuCharge receive_cost(Bytes wire) const;
  /// One PAMI message (Send or Send_immediate) from src to dst: resumes once dst has
  /// dispatched it, copied it out and run `handler` (extra work of the layer above) on its
  /// core. `injected`, if given, fires at local completion.
  Task<> transfer(Rank src, Rank dst, Bytes wire, Signal* injected, CpuCharge handler);
  /// An eager message: PAMI_Send or Send_immediate, then the handler and the delivery.
  Task<> eager(Message m, bool immediate, CpuCharge handler);

  nic::MessageUnit mu_;
  nic::ClassRoute class_route_;
  PamiParams pami_;

 private:
  Task<> inject(Rank src, Rank dst, Bytes wire, Signal* started, Signal* arrived, Signal* injected);
  Task<> complete_locally(Message m, Signal& injected);
};

/// The collectives of both Blue Gene/Q layers: MPI_Allreduce and MPI_Barrier (and PAMI's) on
/// the class route when the job has one; every other operation, and those where the job has
/// no class route, by the shared algorithms (models/collectives) as "collectives" selects.
void install_collectives(PamiLayer& layer, const ParamReader& r);

std::unique_ptr<MessagingLayer> make_pami_layer(const ParamReader& r, Job& job);

}  // namespace torsim::rt
