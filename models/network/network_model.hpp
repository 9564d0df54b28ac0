// Network models answer "when does each byte arrive" for a transfer between two nodes, on
// the route the topology gives. The messaging layers above see only this interface, so the
// packet model, the analytic model and the SimGrid backend are interchangeable.
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "models/machine.hpp"
#include "sim/core/kernel.hpp"

namespace torsim::net {

using topo::LinkId;
using topo::NodeId;

class LinkTimeline;

struct TransferRequest {
  NodeId src = 0;
  NodeId dst = 0;
  Bytes bytes = 0;                       // payload; the model adds packet headers
  Callback on_injected;                  // local completion: the last byte has left the source (optional)
  Callback on_delivered;                 // remote completion: the last byte is at the destination
  const PacketFormat* format = nullptr;  // null: the machine's packet format
  std::int8_t rail = -1;                 // the rail (HCA) to take on a multi-rail fabric; -1: the topology's choice
};

struct NetworkCounters {
  std::uint64_t messages = 0;
  std::uint64_t intra_node_messages = 0;
  std::uint64_t trains = 0;
  Bytes payload_bytes = 0;
  Bytes wire_bytes = 0;
};

class NetworkModel {
 public:
  NetworkModel(Kernel& kernel, const Machine& machine);
  virtual ~NetworkModel() = default;
  virtual std::string_view name() const = 0;

  /// Starts a transfer at the kernel's current time. The callbacks run as kernel events.
  virtual void start(const TransferRequest& request) = 0;
  /// A hint, like the kernel's (Kernel::add_prefetcher): a transfer from `src` to `dst` is
  /// likely to start soon, so a model may get ready for it (the packet model computes its
  /// route and asks for the route's links). It must change nothing; the default ignores it.
  virtual void expect_transfer(NodeId /*src*/, NodeId /*dst*/) const {}
  /// Runs the kernel to completion. A backend with its own clock (SimGrid) interleaves it.
  virtual void drive(Kernel& kernel) { kernel.run(); }
  /// Whether a simulation on this model must run in a process of its own (SimGrid: one
  /// simulation per process). Simulation::run forks for it.
  virtual bool needs_own_process() const { return false; }

  const NetworkCounters& counters() const { return counters_; }
  /// Serialisation time booked on each link so far (index: LinkId).
  const std::vector<Time>& link_busy() const {
    collect_link_busy();
    return link_busy_;
  }
  /// Serialisation time booked on each node's intra-node copy path (index: NodeId).
  const std::vector<Time>& memory_busy() const { return memory_busy_; }
  const Machine& machine() const { return machine_; }

  /// Called for every booking of a link's time (for traces): `busy` of the link's time, the
  /// last of it ending at `end`. A contended booking may fill gaps between earlier ones, so its
  /// busy time lies within [end - busy, end] only when the link was idle; its amount is exact.
  /// The packet and analytic models report bookings; the SimGrid backend does not.
  using LinkObserver = std::function<void(LinkId, Time end, Time busy)>;
  void set_link_observer(LinkObserver observer) { link_observer_ = std::move(observer); }

 protected:
  /// The transfer's own packet format, or the machine's.
  const PacketFormat& format_of(const TransferRequest& request) const {
    return request.format ? *request.format : machine_.packet;
  }
  /// Uncontended time of an intra-node transfer: latency + bytes / memcpy bandwidth.
  Time memcpy_time(Bytes bytes) const;
  /// An intra-node transfer on the source node's copy engine, queued first come first served
  /// behind the copies already booked there (the contended models' memcpy path).
  void copy_within_node(LinkTimeline& copy_engine, const TransferRequest& request);
  /// For models that count busy time next to their other per-link state: copies it into
  /// link_busy_.
  virtual void collect_link_busy() const {}
  void notify(Time when, const Callback& cb) {
    if (cb.fn) kernel_.at(when, cb);
  }
  bool observed() const { return static_cast<bool>(link_observer_); }
  void observe_booking(LinkId link, Time end, Time busy) const {
    if (link_observer_) [[unlikely]]
      link_observer_(link, end, busy);
  }

  Kernel& kernel_;
  const Machine& machine_;
  const topo::Topology& topology_;
  NetworkCounters counters_;
  mutable std::vector<Time> link_busy_;  // mutable: collect_link_busy() fills it on demand
  std::vector<Time> memory_busy_;
  LinkObserver link_observer_;
};

/// Awaitable transfer for protocol coroutines: starts when awaited, resumes at delivery.
class Delivery {
 public:
  Delivery(NetworkModel& network, NodeId src, NodeId dst, Bytes bytes, const PacketFormat* format = nullptr)
      : network_(network), request_{src, dst, bytes, {}, {}, format} {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    waiter_ = h;
    request_.on_delivered = {[](void* self, std::uint64_t) { static_cast<Delivery*>(self)->waiter_.resume(); }, this,
                             0};
    network_.start(request_);
  }
  void await_resume() const noexcept {}

 private:
  NetworkModel& network_;
  TransferRequest request_;
  std::coroutine_handle<> waiter_;
};

/// The "model" key, which every model's table declares first: make_network_model reads it.
inline constexpr std::string_view kNetworkModelText =
    "network model: packet, analytic or another listed in this reference";
inline constexpr ParamSpec kNetworkModelKey{"model", ParamKind::text, "packet", "", "", "", kNetworkModelText, "-"};

/// The "network" section of a scenario: {"model": "packet", ...model options}.
std::unique_ptr<NetworkModel> make_network_model(const Json& spec, const Where& where, Kernel& kernel,
                                                 const Machine& machine);

struct NetworkModelEntry {
  std::string_view name;
  std::string_view description;
  const ParamTable* params;
  std::unique_ptr<NetworkModel> (*make)(const ParamReader&, Kernel&, const Machine&);
};
/// Every model, for the "unknown model" message and the generated docs. Other backends (the
/// SimGrid flow model) add themselves here.
const std::vector<NetworkModelEntry>& network_models();

/// The SimGrid backend's factory (models/network/simgrid.cpp).
std::unique_ptr<NetworkModel> make_simgrid_model(const ParamReader& r, Kernel& kernel, const Machine& machine);

}  // namespace torsim::net
