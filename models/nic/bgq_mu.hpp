// The Blue Gene/Q message unit (MU): the node's DMA engine between memory and the 5D torus.
// Software writes 64-byte descriptors into injection FIFOs; the MU's injection message
// engines take one descriptor at a time and turn it into packets (memory-FIFO packets that
// land in a reception FIFO, direct puts into remote memory, remote gets whose payload is a
// descriptor the target's MU injects). A node's FIFOs and engines are shared by its ranks:
// each rank gets a share of the FIFOs (fewer as ranks per node grow), a descriptor waits for
// the previous one of its FIFO and for a free engine, which then reads and packetises it
// (descriptor_time plus its wire bytes at the node's injection rate), so more ranks per node
// contend.
// Messaging layers (PAMI) charge their own CPU time; the MU charges none.
#pragma once

#include <unordered_map>
#include <vector>

#include "models/node/job.hpp"
#include "sim/core/wait.hpp"

namespace torsim::topo {
class Torus;
}

namespace torsim::nic {

using node::Rank;
using topo::NodeId;

// Every field is read by parse_mu from its declaration in bgq_mu.cpp, which holds the default.
struct MuParams {
  int injection_engines = 0;  // descriptors in progress at once per node
  int application_fifos = 0;  // injection FIFOs of the 16 application cores' groups
  int context_fifos = 0;      // a context wants one per torus direction
  int remote_get_fifos = 0;   // per node, shared by its ranks
  Bytes descriptor = 0;       // a remote get carries one as payload
  Time descriptor_time = 0;   // an engine's time per descriptor besides the data
  Time comm_agent = 0;        // the 17th core answers a remote-completion ping
};

extern const ParamTable kMuParams;
MuParams parse_mu(const ParamReader& r);
/// The machine's "nic" object as MU parameters; an error if the machine has no BG/Q MU.
MuParams mu_of(const Machine& machine, const Where& where);

class MessageUnit {
 public:
  MessageUnit(node::Job& job, const MuParams& params);
  const MuParams& params() const { return p_; }

  /// Injection FIFOs of one rank's context: one per torus direction, fewer when the ranks of
  /// a node leave each too few (application FIFOs / ranks per node).
  int fifos_per_context() const;
  /// The injection FIFO a message from `src` to `dst` goes through: the torus direction when
  /// the destination lies along one axis, else (sum of hops) modulo 10, folded onto the
  /// context's FIFOs.
  int fifo_of(Rank src, Rank dst) const;

  /// One descriptor from src's injection FIFO towards dst's node (a memory-FIFO message or a
  /// direct put): waits for the FIFO's previous descriptor and for an engine, then moves the
  /// bytes; resumes when the tail has left the node (the MU has read the data: PAMI's local
  /// completion). `delivered`, if given, fires when the last byte is at dst's node;
  /// `started`, when an engine starts on the descriptor.
  Task<> inject(Rank src, Rank dst, Bytes bytes, Signal* delivered = nullptr, Signal* started = nullptr);
  /// Remote get: a descriptor-carrying packet to the target's node, whose MU queues it in a
  /// remote-get FIFO and injects the data back as a direct put, then a completion packet in
  /// the same FIFO. Resumes when the completion packet is at the initiator.
  Task<> remote_get(Rank initiator, Rank target, Bytes bytes);
  /// Direct put with remote completion: the data, then a zero-byte ping in the same FIFO that
  /// the target node's comm agent answers. Resumes when the answer is at the initiator.
  Task<> put_acknowledged(Rank initiator, Rank target, Bytes bytes);

 private:
  /// Books a descriptor of `wire` bytes on its FIFO and on the node's earliest free engine;
  /// returns when the engine starts on it.
  Time book(std::uint64_t fifo_key, NodeId from, Bytes wire);
  /// A descriptor from a FIFO (key) through one of the node's engines, moving bytes from one
  /// node to another; with `trailer`, a zero-byte packet follows in the same FIFO and
  /// `delivered` fires at its arrival. `started` fires when an engine takes the descriptor.
  Task<> move(std::uint64_t fifo_key, NodeId from, NodeId to, Bytes bytes, Signal* delivered, bool trailer,
              Signal* started = nullptr);
  int direction_fifo(NodeId from, NodeId to) const;
  /// A header-only packet's serialisation on the slowest link from one node to another.
  Time trailer_time(NodeId from, NodeId to) const;

  node::Job& job_;
  MuParams p_;
  const topo::Torus* torus_;
  std::vector<Time> engine_free_;                      // per node and engine: when it is next free
  std::unordered_map<std::uint64_t, Time> fifo_free_;  // per FIFO in use: when its next descriptor may start
};

}  // namespace torsim::nic
