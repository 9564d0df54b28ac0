#include "models/runtime/gemini/gemini_layer.hpp"

namespace torsim::rt {

GeminiLayer::GeminiLayer(Job& job, const nic::GeminiParams& nic) : ProtocolLayer(job), nic_(job, nic) {}

// The polling loop runs back-to-back passes from the moment the core went idle; an arrival is
// seen at the end of the pass it lands in.
Time GeminiLayer::notice_delay(Rank r) const {
  const Time now = kernel().now(), idle_since = cores().free_at(r), period = poll_period(r);
  if (idle_since >= now || period <= 0) return 0;
  return (period - (now - idle_since) % period) % period;
}

Task<> GeminiLayer::notice(Rank r) {
  if (cores().free_at(r) < kernel().now()) idle_passes(r);
  if (const Time delay = notice_delay(r); delay > 0) co_await kernel().sleep(delay);
}

}  // namespace torsim::rt
