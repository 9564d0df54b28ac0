// What the messaging layers on InfiniBand HCAs (models/nic/infiniband.hpp) share: the HCAs,
// and receives posted per connection. The layers: verbs itself (verbs.hpp) and MVAPICH2 over
// verbs (mvapich2.hpp).
#pragma once

#include <unordered_set>

#include "models/nic/infiniband.hpp"
#include "models/runtime/protocol_layer.hpp"

namespace torsim::rt {

/// What the InfiniBand layers share: the HCAs, and receives posted per connection.
class InfinibandLayer : public ProtocolLayer {
 public:
  InfinibandLayer(Job& job, const nic::InfinibandParams& hca);
  nic::InfinibandHca& hca() { return hca_; }

 protected:
  CpuCharge send_overhead(const Message&) override { return {}; }
  /// Waits for a receive matching `m` (none for an active message) and yields its request.
  Task<std::uint32_t> matching_receive(const Message& m);
  /// Whether the sender and receiver share a node.
  bool same_node(const Envelope& e) const { return job_.node_of(e.src) == job_.node_of(e.dst); }
  /// On first contact, `receiver` posts `depth` receives for `sender` (connection set-up).
  void connect(Rank receiver, Rank sender, int depth);
  /// `receiver` polls a receive completion from `sender` and posts the receive again.
  Task<> take_receive(Rank receiver, Rank sender);
  /// Sends `bytes` from src into a buffer dst pre-posted (`depth` per connection), and
  /// returns once dst has polled its completion and posted the buffer again.
  Task<> send_received(Rank src, Rank dst, Bytes bytes, int rail, int depth);
  /// A key for the ordered pair (a, b).
  static std::uint64_t pair_key(Rank a, Rank b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  }

  nic::InfinibandHca hca_;

 private:
  std::unordered_set<std::uint64_t> connected_;  // (receiver, sender) pairs with receives posted
};

}  // namespace torsim::rt
