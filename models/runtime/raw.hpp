// The raw NIC-level layer: every operation is one network transfer (plus a zero-byte ack or
// request where one-sided semantics need it) with no software overhead. The floor under every
// other layer, and what the foundation's micro-benchmarks measure the network with.
#pragma once

#include "models/messaging/messaging.hpp"
#include "sim/core/slot_pool.hpp"

namespace torsim::rt {

extern const ParamTable kRawLayerParams;

class RawLayer final : public MessagingLayer {
 public:
  explicit RawLayer(Job& job);
  std::string_view name() const override { return "raw"; }

  Task<Request> isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) override;
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  Task<Request> am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag) override;
  void expect_send(Rank src, Rank dst) const override {
    job_.network.expect_transfer(job_.node_of(src), job_.node_of(dst));
  }

 private:
  // A message on the wire, read back when it arrives. 32 bytes, aligned: one cache line (an
  // Envelope plus the handler would be 40 bytes, straddling two lines half the time).
  static constexpr HandlerId kTwoSided = ~HandlerId{0};  // not an active message
  struct alignas(32) InFlight {
    Rank src, dst;
    Tag tag;
    HandlerId handler;  // kTwoSided for isend
    Bytes size;
    std::uint64_t word;
  };
  void arrived(std::uint64_t in_flight_and_rank);
  void sent(std::uint64_t request_and_rank);
  /// Starts the transfer of `message`; its request completes at local completion.
  Request start_send(const InFlight& message);

  SlotPool<InFlight> in_flight_;
};

}  // namespace torsim::rt
