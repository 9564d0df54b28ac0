// The collectives of MPI over VIA (via_mpi): the algorithms of models/collectives, over
// send/receive or over RDMA writes into pre-registered slots (Gupta, Balaji, Panda,
// Nieplocha, IPDPS 2003). With RDMA, every rank registers a collective buffer once, up front,
// and the ranks exchange its address: a collective message is an RDMA write of the data and a
// flag (a sequence number) into the reader's slot for the writer; the reader spins on the flag.
// No receive descriptor, completion, matching, credit or bounce copy: the data is copied into
// registered memory once where it starts (unless the user's buffer is registered, or the data
// was received or combined there already) and out once where it ends. Consecutive collectives alternate between
// `rdma_slots` slots per writer; a reader frees a slot after the call with a 0-byte write. Messages larger than a slot
// fall back to send/receive. The k-nomial degree, when left to the layer, is the one the analytical model
// (via_model.hpp) finds fastest, and the model predicts every call.
#pragma once

#include <map>

#include "models/collectives/collectives.hpp"
#include "models/runtime/via/mvich.hpp"

namespace torsim::rt {

class ViaCollectives final : public coll::Algorithms {
 public:
  ViaCollectives(MvichLayer& layer, const coll::Selection& selection);
  std::optional<Time> predicted(CollectiveOp op, int ranks, Bytes bytes) const override;

 private:
  std::unique_ptr<coll::PointToPoint> channel(Comm c, CollectiveOp op, Bytes bytes) const override;
  int preferred_degree(int ranks, Bytes bytes) const override;
  /// The transport a call of `bytes` uses: RDMA only up to the slot size.
  Transport transport(CollectiveOp op, Bytes bytes) const;
  const ViaModel& model(Transport t) const { return t == Transport::rdma ? rdma_ : send_receive_; }

  MvichLayer& layer_;
  ViaModel send_receive_, rdma_;
  mutable std::map<std::pair<int, Bytes>, int> degrees_;  // (ranks, bytes) -> the model's best
};

}  // namespace torsim::rt
