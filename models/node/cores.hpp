// Each rank's core: every software cost a model charges (a send path, a completion-queue poll,
// a copy, the application's own work) is booked on the core of the rank it runs for, one
// charge after another, and summed by use. Messaging layers and NIC models charge through the
// job's Cores alike.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "models/machine.hpp"
#include "sim/core/kernel.hpp"

namespace torsim::node {

using Rank = std::int32_t;
struct Placement;

/// What a rank's core spends its time on. Every software cost a model charges names one.
enum class CpuUse : std::uint8_t {
  compute,       // the application's own work
  send,          // software send path: building a message or descriptor, posting it
  receive,       // software receive path: taking a message in, completing a request
  match,         // tag matching, probes, queue searches
  copy,          // memory copies (into or out of bounce buffers, mailboxes, packing)
  poll,          // progress-engine and completion-queue polling
  registration,  // memory registration (pinning) and its cache
  scheduler,     // a runtime's scheduler and handler dispatch
  connection,    // setting up a connection to a peer (endpoints, mailboxes, handshakes)
};
inline constexpr std::size_t kCpuUses = 9;
std::string_view cpu_use_name(CpuUse use);

/// One booking on a core, split by use.
struct CpuCharge {
  std::array<Time, kCpuUses> parts{};
  CpuCharge() = default;
  CpuCharge(CpuUse use, Time duration) { parts[static_cast<std::size_t>(use)] = duration; }
  CpuCharge& add(CpuUse use, Time duration) {
    parts[static_cast<std::size_t>(use)] += duration;
    return *this;
  }
  Time operator[](CpuUse use) const { return parts[static_cast<std::size_t>(use)]; }
  Time total() const;
};

/// The cores of a job's ranks: software costs charged from event context (a message's protocol
/// processing) and the rank's own computation queue on its core, one at a time. Where ranks
/// share a core as hardware threads beyond the machine's full_speed_threads, each charge
/// stretches by (ranks on the core) / full_speed_threads.
class Cores {
 public:
  /// `placement` must outlive the Cores (the Job holds both).
  Cores(Kernel& kernel, const NodeParams& node, const Placement& placement);

  /// Books `charge` on rank r's core after what is already booked; returns when it ends.
  Time occupy(Rank r, const CpuCharge& charge);
  Time occupy(Rank r, Time duration, CpuUse use) { return occupy(r, CpuCharge(use, duration)); }
  /// Awaitable: charges rank r's core and resumes when the charge is done.
  auto run(Rank r, const CpuCharge& charge) { return kernel_.sleep(occupy(r, charge) - kernel_.now()); }
  auto run(Rank r, Time duration, CpuUse use) { return run(r, CpuCharge(use, duration)); }

  /// Core time charged so far, by use, summed over all ranks.
  const CpuCharge& time_by_use() const { return by_use_; }
  /// When rank r's core is next free (in the past when it is idle).
  Time free_at(Rank r) const { return free_at_[static_cast<std::size_t>(r)]; }
  /// Called for every charge booked on a core, with the span it occupies (for traces). A charge
  /// of zero time books no span and is not reported.
  using Observer = std::function<void(Rank, Time start, Time end, const CpuCharge&)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }

 private:
  CpuCharge stretched(Rank r, const CpuCharge& charge) const;
  Time book(Rank r, const CpuCharge& charge);

  Kernel& kernel_;
  const NodeParams& node_;
  const Placement& placement_;
  std::vector<Time> free_at_;  // per rank: when its core is next idle
  bool shares_cores_;          // some rank shares its core beyond full speed: charges stretch
  CpuCharge by_use_;
  Observer observer_;
};

}  // namespace torsim::node
