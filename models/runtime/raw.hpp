// The raw NIC-level layer: every operation is one network transfer (plus a zero-byte ack or
// request where one-sided semantics need it) with no software overhead. The floor under every
// other layer, and what the foundation's micro-benchmarks measure the network with.
#pragma once

#include "models/runtime/messaging.hpp"

namespace torsim::rt {

extern const ParamTable kRawLayerParams;

class RawLayer final : public MessagingLayer {
 public:
  explicit RawLayer(Job& job) : MessagingLayer(job) {}
  std::string_view name() const override { return "raw"; }

  Task<Request> isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) override;
  Task<> put(Rank self, Rank target, Bytes size) override;
  Task<> get(Rank self, Rank target, Bytes size) override;
  Task<Request> am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word,
                         Tag tag) override;

 private:
  struct InFlight {
    Envelope envelope;
    HandlerId handler;
    bool active_message;
  };
  std::uint32_t track(const InFlight& message);
  void arrived(std::uint64_t in_flight_index);
  void sent(std::uint64_t request_index);
  /// Starts the transfer of `message`; its request completes at local completion.
  Request start_send(const InFlight& message);

  std::vector<InFlight> in_flight_;
  std::vector<std::uint32_t> free_in_flight_;
};

}  // namespace torsim::rt
