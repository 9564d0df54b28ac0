// What the messaging layers on the Cray Gemini NIC (models/nic/gemini.hpp) share: the NIC, and
// the polling loop through which an idle rank notices what arrives. The layers: uGNI itself
// (ugni.hpp), Cray MPICH over uGNI (cray_mpich.hpp), and Charm++ over either (charm.hpp).
#pragma once

#include <vector>

#include "models/nic/gemini.hpp"
#include "models/runtime/protocol_layer.hpp"
#include "sim/core/wait.hpp"

namespace torsim::rt {

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
  /// Yields no receive at once: an active message has none to match, so its rendezvous
  /// proceeds.
  static Task<std::uint32_t> no_match() { co_return 0; }
  nic::Engine engine_for(Bytes bytes, Bytes threshold) const {
    return bytes < threshold ? nic::Engine::fma : nic::Engine::bte;
  }

  nic::GeminiNic nic_;
};

}  // namespace torsim::rt
