// What the messaging layers built on a NIC model share (Gemini's uGNI, MPI and Charm++ layers,
// InfiniBand's verbs and MPI layers, Blue Gene/P's DCMF, MPI and GASNet over DCMF, Blue Gene/Q's
// PAMI and MPI over PAMI): a send charges its software cost on the sender's core, then its
// protocol runs as a process of its own, which completes the send's request where the layer
// would and hands the message to the matching engine or the handler queue.
#pragma once

#include "models/messaging/messaging.hpp"

namespace torsim::rt {

class ProtocolLayer : public MessagingLayer {
 public:
  using MessagingLayer::MessagingLayer;
  Task<Request> isend(Rank self, Rank dst, Bytes size, Tag tag, std::uint64_t word) override;
  Task<Request> am_isend(Rank self, Rank dst, HandlerId handler, Bytes size, std::uint64_t word, Tag tag) override;

 protected:
  struct Message {
    Envelope envelope;
    bool active_message = false;
    HandlerId handler = 0;
    std::uint32_t send_request = 0;
  };
  /// Software cost on the sender's core before the protocol starts.
  virtual CpuCharge send_overhead(const Message& m) = 0;
  /// The sender's part before the protocol starts: by default its send_overhead, when it has
  /// one. A layer whose sender first waits for a resource (VIA's receive credits) overrides it.
  virtual Task<> post(const Message& m);
  /// A runtime that owns messages once sent (Charm++) completes sends at once; MPI completes
  /// them when the buffer may be reused.
  virtual bool sends_complete_at_post() const { return false; }
  /// Completes the send's request, once (protocols call it where the layer would).
  void complete_send(Message& m);
  /// The protocol moving one message; completes `m.send_request` and delivers the message.
  virtual Task<> protocol(Message m) = 0;
  /// Starts the protocol of a message its sender has posted: by default protocol(m) as a
  /// process of its own, first run at the current time. A layer may run a hot protocol as
  /// events instead (see MpichDcmfLayer): it then schedules its first step at the current time.
  virtual void launch(const Message& m) { kernel().spawn(protocol(m)); }
  /// Hands an arrived message to the matching engine or the active-message queue.
  void arrive(const Message& m);
  /// Completes the receive of a rendezvous message once its data is in.
  void complete_receive(const Message& m, std::uint32_t receive_request);
  Time copy_time(Bytes bytes) const { return transfer_time(bytes, job_.machine.node.memcpy_bandwidth); }
  /// Buffer identity for the registration cache: a benchmark reuses one buffer per size.
  static std::uint64_t user_buffer(Bytes size) { return static_cast<std::uint64_t>(size); }

 private:
  Task<Request> start(Message m);
};

}  // namespace torsim::rt
