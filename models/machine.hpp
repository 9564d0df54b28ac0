// A machine: topology, node and packet parameters, and the calibrated parameters of the
// messaging layers it offers. Loaded from a preset in scenarios/machines/ or inline JSON.
#pragma once

#include <algorithm>
#include <memory>
#include <string>

#include "sim/config/params.hpp"
#include "topologies/topology.hpp"

namespace torsim {

/// A node's parameters; their defaults, units and ranges are kNodeParams's (models/machine.cpp).
struct NodeParams {
  int cores = 0;
  int threads_per_core = 0;    // hardware threads: ranks per node may reach cores x threads
  int full_speed_threads = 0;  // threads a core runs each at full single-thread speed
  Rate injection_bandwidth = 0;
  Rate ejection_bandwidth = 0;
  Time nic_latency = 0;  // per message, before the head enters the injection link: a pipeline delay
  Rate memcpy_bandwidth = 0;
  Time memcpy_latency = 0;
  Json modes;  // named node modes -> processes per node (Blue Gene: SMP, DUAL, VN)

  /// How much a software cost stretches on a core that `threads` ranks share: beyond
  /// full_speed_threads they divide its issue slots (numerator over full_speed_threads).
  std::int64_t cost_stretch(int threads) const { return std::max(threads, full_speed_threads); }
};

/// How payload becomes wire bytes: packets of at most `payload` bytes, each with `header`
/// bytes, the payload of the last packet padded to a multiple of `chunk`.
struct PacketFormat {
  Bytes payload = 0;  // defaults: kPacketParams (a machine's packet is parsed, never defaulted here)
  Bytes header = 0;
  Bytes chunk = 0;

  std::int64_t packets(Bytes bytes) const { return bytes <= 0 ? 1 : (bytes + payload - 1) / payload; }
  /// Wire bytes of the first `offset` payload bytes of a message whose packets are cut at
  /// multiples of `payload`. Additive over packet boundaries, so trains split exactly.
  Bytes wire_offset(Bytes offset) const;
  Bytes wire_bytes(Bytes bytes) const { return bytes <= 0 ? header : wire_offset(bytes); }
};

/// Router buffering and virtual channels, for the packet model's credit flow control. The
/// defaults, units and meanings are kRouterParams's (models/machine.cpp).
struct RouterParams {
  enum class DeadlockAvoidance : std::uint8_t { dateline, bubble, none };
  enum class DatelineChannel : std::uint8_t { after_crossing, whole_ring };
  // window: a packet holds its crossbar input for its time on the output link; input_first: from
  // its request for the switch until its tail has passed (a separable input-first allocator).
  enum class SwitchAllocation : std::uint8_t { window, input_first };
  Bytes buffer_per_vc = 0;     // input buffer per network port and virtual channel; 0: unbounded
  Bytes injection_buffer = 0;  // the router's input buffer for each node's injection port; 0: unbounded
  int injection_fifos = 0;     // injection buffers per node, chosen by a message's first direction
  int virtual_channels = 0;    // per network port
  int adaptive_channels = 0;   // minimal adaptive routing's channels (after the escape ones)
  DeadlockAvoidance deadlock_avoidance{};
  DatelineChannel dateline_channel{};
  Time pipeline_latency = 0;  // the part of a hop's link latency spent in the router it enters
  Time credit_delay = 0;      // a credit's processing, on top of the wire it returns by
  int input_speedup = 0;      // packets one input port switches at a time (0: one per virtual channel)
  SwitchAllocation switch_allocation{};
  Time vc_allocation_delay = 0;  // an output channel's next packet, after the previous one's tail (0: not modelled)
  Time head_delay = 0;  // a packet behind another in its input buffer: routing and VC allocation after its tail
};

struct Machine {
  std::string name;
  std::string description;
  NodeParams node;
  PacketFormat packet;
  RouterParams router;
  std::unique_ptr<topo::Topology> topology;
  Json nic;      // the NIC model and its parameters ({} if the machine has no NIC model)
  Json gpu;      // the nodes' GPUs ({} if the machine has none), parsed by models/gpu
  Json compute;  // application kernels' compute costs on this machine, by name
  /// A named compute cost from "compute"; an error naming the machine when it has none.
  Time compute_cost(const std::string& name, const Where& needed_by) const;
  Json runtimes;  // per messaging layer: its calibrated parameters, parsed by the layer
  Json sources;   // parameter path -> citation
  Json spec;      // the machine object as parsed (after preset expansion and overrides)
  Where where;    // where `spec` came from, for errors raised by the layers

  std::int64_t node_count() const { return topology->node_count(); }
  std::int64_t core_count() const { return node_count() * node.cores; }
};

/// Parses a machine object (already expanded from its preset).
/// The citation a machine's "sources" object gives the parameter at dotted `path`: its own
/// entry, else the entry without list indices ("topology.dims.0.link_latency" is cited as
/// "topology.dims.link_latency"); "" when there is none.
std::string machine_citation(const Json& machine, const std::string& path);

Machine parse_machine(const Json& spec, const Where& where);

/// The router's parameters are read by credit flow control alone: parse_machine checks them
/// without noting them as read (ReadLog), and the network model notes them when it reads them...
void note_router_read(const Machine& machine);
/// ...or, when it has no router buffers, reports each router key the machine gives as input
/// this run does not use (not_used_unless_preset: a preset's router section is its calibration).
void router_not_used(const Machine& machine, const std::string& why);

extern const ParamTable kMachineParams;
extern const ParamTable kNodeParams;
extern const ParamTable kPacketParams;
extern const ParamTable kRouterParams;
extern const ParamTable kComputeParams;

}  // namespace torsim
