#include "models/machine.hpp"

#include <algorithm>

#include "sim/config/fields.hpp"
#include "sim/config/provenance.hpp"
#include "sim/config/unused.hpp"

namespace torsim {

namespace {

constexpr ParamSpec kMachineSpecs[] = {
    {"name", ParamKind::text, kRequired, "", "", "", "short machine name, e.g. \"hopper\"", "-"},
    {"description", ParamKind::text, "", "", "", "", "one line about the machine and its era", "-"},
    {"topology", ParamKind::object, kRequired, "", "", "", "the interconnect; see the topology sections", "-"},
    {"node", ParamKind::object, kRequired, "", "", "", "node parameters; see the node section", "-"},
    {"packet", ParamKind::object, kRequired, "", "", "", "packet format; see the packet section", "-"},
    {"router", ParamKind::object, "{}", "", "", "",
     "router buffers and virtual channels (the packet model's flow control); see the router section", "-"},
    {"nic", ParamKind::object, "{}", "", "", "",
     "the NIC model and its parameters, e.g. {\"model\": \"gemini\", ...}; see machine.nic sections", "-"},
    {"gpu", ParamKind::object, "{}", "", "", "",
     "the GPUs of every node and the host's calls to them; see the machine.gpu section", "-"},
    {"compute", ParamKind::object, "{}", "", "", "",
     "calibrated compute costs of application kernels on this machine's cores, by name (e.g. "
     "\"nqueens_node\": \"12ns\"); workloads read theirs here, so one parameter set serves every scenario",
     "-"},
    {"runtimes", ParamKind::object, "{}", "", "", "",
     "calibrated parameters of each messaging layer the machine offers, by layer name", "-"},
    {"sources", ParamKind::object, "{}", "", "", "",
     "citation for each parameter, keyed by its dotted path (e.g. \"node.cores\")", "-"},
};

using N = NodeParams;
constexpr Field<N> kNodeFields[] = {
    bind<&N::cores>(
        {"cores", ParamKind::integer, kRequired, "", "1", "4096", "cores per node available to ranks", "preset"}),
    bind<&N::threads_per_core>(
        {"threads_per_core", ParamKind::integer, "1", "", "1", "64",
         "hardware threads per core: a node takes up to cores x threads_per_core ranks, spread over its cores",
         "preset"}),
    bind<&N::full_speed_threads>(
        {"full_speed_threads", ParamKind::integer, "1", "", "1", "64",
         "threads one core runs each at full single-thread speed; with more ranks on a core, each rank's software "
         "costs stretch by (ranks on the core) / this",
         "preset"}),
    bind<&N::injection_bandwidth>({"injection_bandwidth", ParamKind::rate, kRequired, "GB/s", "1MB/s", "10000GB/s",
                                   "NIC injection bandwidth per node, wire bytes per second", "preset"}),
    bind<&N::ejection_bandwidth>({"ejection_bandwidth", ParamKind::rate, kRequired, "GB/s", "1MB/s", "10000GB/s",
                                  "NIC ejection bandwidth per node, wire bytes per second", "preset"}),
    bind<&N::nic_latency>(
        {"nic_latency", ParamKind::time, "0ns", "ns", "0ns", "1ms",
         "fixed NIC latency per message, before its head enters the network; a pipeline: it delays each message but "
         "does not space a node's messages (the NIC takes a message at the injection rate, and the local completion "
         "is when it has taken the last byte)",
         "preset"}),
    bind<&N::memcpy_bandwidth>({"memcpy_bandwidth", ParamKind::rate, kRequired, "GB/s", "1MB/s", "10000GB/s",
                                "memory-copy bandwidth of the intra-node path (one copy engine per node)", "preset"}),
    bind<&N::memcpy_latency>({"memcpy_latency", ParamKind::time, "0ns", "ns", "0ns", "1ms",
                              "fixed latency of an intra-node transfer", "preset"}),
    unbound<N>(
        {"modes", ParamKind::object, "{}", "", "", "",
         "named node modes and the processes per node each runs (Blue Gene/P: {\"SMP\": 1, \"DUAL\": 2, \"VN\": 4}); "
         "a placement may name one",
         "preset"}),
};
constexpr auto kNodeSpecs = specs_of(kNodeFields);

using P = PacketFormat;
constexpr Field<P> kPacketFields[] = {
    bind<&P::payload>({"payload", ParamKind::size, kRequired, "B", "1B", "64KiB",
                       "maximum payload bytes per network packet", "preset"}),
    bind<&P::header>({"header", ParamKind::size, "0B", "B", "0B", "4KiB",
                      "wire bytes added to every packet (headers, trailers, protocol responses)", "preset"}),
    bind<&P::chunk>({"chunk", ParamKind::size, "1B", "B", "1B", "4KiB",
                     "the payload of a partly filled packet is padded to a multiple of this (Blue Gene: 32 B)",
                     "preset"}),
};
constexpr auto kPacketSpecs = specs_of(kPacketFields);

using R = RouterParams;
constexpr ChoiceName<R::DeadlockAvoidance> kAvoidanceNames[] = {{"dateline", R::DeadlockAvoidance::dateline},
                                                                {"bubble", R::DeadlockAvoidance::bubble},
                                                                {"none", R::DeadlockAvoidance::none}};
constexpr ChoiceName<R::DatelineChannel> kDatelineNames[] = {{"after_crossing", R::DatelineChannel::after_crossing},
                                                             {"whole_ring", R::DatelineChannel::whole_ring}};
constexpr ChoiceName<R::SwitchAllocation> kAllocationNames[] = {{"window", R::SwitchAllocation::window},
                                                                {"input_first", R::SwitchAllocation::input_first}};
constexpr Field<R> kRouterFields[] = {
    bind<&R::buffer_per_vc>(
        {"buffer_per_vc", ParamKind::size, "0B", "B", "0B", "16MiB",
         "input buffer of each network port, per virtual channel, in wire bytes; 0 = unbounded (no back-pressure: "
         "flow_control none only; credit flow control without buffers is an input error)",
         "preset"}),
    bind<&R::injection_buffer>(
        {"injection_buffer", ParamKind::size, "0B", "B", "0B", "16MiB",
         "the router's input buffer for each node's injection port, in wire bytes; the NIC stops injecting when it "
         "is full; 0 = unbounded",
         "preset"}),
    bind<&R::injection_fifos>(
        {"injection_fifos", ParamKind::integer, "1", "", "1", "16",
         "injection buffers per node, each of injection_buffer: a message goes to the one of the direction of its "
         "first hop (directions modulo this count), so it waits only behind messages of that FIFO",
         "preset"}),
    bind<&R::virtual_channels>(
        {"virtual_channels", ParamKind::integer, "2", "", "1", "16",
         "virtual channels per network port (the dateline needs 2 on a torus, bubble flow control 1; minimal adaptive "
         "routing adaptive_channels more)",
         "preset"}),
    bind_choice<&R::deadlock_avoidance, kAvoidanceNames>(
        {"deadlock_avoidance", ParamKind::choice, "dateline", "", "", "",
         "dateline: a packet moves to the second virtual channel of a ring once it crosses the ring's wrap-around "
         "link; bubble: one channel, and a packet entering a ring (injected, or turning from another dimension or "
         "channel) needs room for itself and one more packet; none: one channel (wrap-around rings can deadlock; "
         "for experiments)",
         "preset", "dateline|bubble|none"}),
    bind<&R::adaptive_channels>(
        {"adaptive_channels", ParamKind::integer, "1", "", "1", "8",
         "minimal adaptive routing: virtual channels any productive link may take, besides the escape channels",
         "preset"}),
    bind_choice<&R::dateline_channel, kDatelineNames>(
        {"dateline_channel", ParamKind::choice, "after_crossing", "", "", "",
         "dateline deadlock avoidance: after_crossing: a packet takes the first virtual channel of a ring up to its "
         "wrap-around link and the second from there to the end of the dimension; whole_ring: a packet whose route "
         "along the ring crosses the wrap-around link takes the second channel for its whole run along that ring, "
         "the others the first (BookSim's dim_order_torus; dimension-order routes, with minimal adaptive routing the "
         "escape channel switches after crossing)",
         "preset", "after_crossing|whole_ring"}),
    bind<&R::input_speedup>(
        {"input_speedup", ParamKind::integer, "0", "", "0", "16",
         "switch allocation: packets one input port (all its virtual channels) may send through the crossbar at once; "
         "1 = an input-queued router's single crossbar input per port; 0 = no limit, each virtual channel its own",
         "preset"}),
    bind_choice<&R::switch_allocation, kAllocationNames>(
        {"switch_allocation", ParamKind::choice, "window", "", "", "",
         "switch allocation with input_speedup > 0: window: a packet takes its crossbar input only for its time on the "
         "output link (another virtual channel of the port may pass while it waits for that link); input_first: a "
         "separable input-first allocator of one iteration (BookSim's separable_input_first, alloc_iters=1): an input "
         "port picks one of its virtual channels' requests and keeps that pick until the output grants it, so a "
         "packet holds its crossbar input from its request (at the front of its buffer, with credit) until its tail "
         "has passed",
         "preset", "window|input_first"}),
    bind<&R::head_delay>(
        {"head_delay", ParamKind::time, "0ns", "ns", "0ns", "1ms",
         "credit flow control: a packet that reaches the front of its input buffer behind another is routed and "
         "allocated a virtual channel only then: it leaves no earlier than this after the previous packet's tail (0: "
         "the router prepares the next head while the previous packet leaves)",
         "preset"}),
    bind<&R::vc_allocation_delay>(
        {"vc_allocation_delay", ParamKind::time, "0ns", "ns", "0ns", "1ms",
         "credit flow control: an output virtual channel is held by one packet at a time, from its allocation to its "
         "tail's departure, and allocated to the next packet only then: that packet leaves no earlier than this after "
         "the tail (BookSim's vc_alloc_delay; 0: not modelled, a channel passes packets back to back)",
         "preset"}),
    bind<&R::pipeline_latency>(
        {"pipeline_latency", ParamKind::time, "0ns", "ns", "0ns", "1ms",
         "the part of each network link's link_latency spent in the router the link enters (routing, virtual-channel "
         "and switch allocation, crossbar) before a packet may leave its input buffer; the rest is the wire, which a "
         "credit crosses on its way back (at most the smallest network link latency)",
         "preset"}),
    bind<&R::credit_delay>(
        {"credit_delay", ParamKind::time, "0ns", "ns", "0ns", "1ms",
         "credit flow control: the time a router takes to process a returned credit, on top of the wire it crosses; "
         "a buffer's space is reusable upstream (link_latency - pipeline_latency) + credit_delay after a packet's "
         "tail leaves it",
         "preset"}),
};
constexpr auto kRouterSpecs = specs_of(kRouterFields);

// Compute costs are read by name by the model that needs them; each is declared here so that a
// misspelt name is an error, not a cost nobody reads.
constexpr ParamSpec kComputeSpecs[] = {
    {"flop", ParamKind::time, kUnset, "ns", "0ns", "1ms",
     "one flop of a time-independent trace's compute action (workload trace)", "preset"},
    {"nqueens_node", ParamKind::time, kUnset, "ns", "0ns", "1ms", "one node of the N-Queens search (workload nqueens)",
     "preset"},
    {"namd_pair", ParamKind::time, kUnset, "ns", "0ns", "1ms",
     "one non-bonded atom pair within the cutoff (workload namd)", "preset"},
    {"namd_integrate", ParamKind::time, kUnset, "ns", "0ns", "1ms",
     "integration, bonded terms and pairlist upkeep per atom and step (workload namd)", "preset"},
    {"namd_fft_point", ParamKind::time, kUnset, "ns", "0ns", "1ms",
     "one PME grid point per FFT pass or transpose (workload namd)", "preset"},
    {"fft_flop", ParamKind::time, kUnset, "ns", "0ns", "1ms", "one flop of a 1-D FFT (workload fft3d)", "preset"},
    {"fft_transpose_byte", ParamKind::time, kUnset, "ns", "0ns", "1ms",
     "one byte of the local transpose and packing (workload fft3d)", "preset"},
    {"reduction_byte", ParamKind::time, kUnset, "ns", "0ns", "1ms",
     "one byte of a reduction's combine step (the VIA layers' collectives)", "preset"},
};

}  // namespace

const ParamTable kMachineParams{"machine", "A machine preset or inline machine object.", kMachineSpecs};
const ParamTable kNodeParams{"machine.node", "Compute node and NIC.", kNodeSpecs};
const ParamTable kPacketParams{"machine.packet", "Network packet format.", kPacketSpecs};
const ParamTable kRouterParams{"machine.router",
                               "Router input buffers and virtual channels, read by credit flow control alone "
                               "(network.flow_control: credit): a run without it that is given one of these keys, "
                               "by its scenario, the command line or a sweep, stops with an input error (a preset's "
                               "router section is its calibration, read when a run asks for credits).",
                               kRouterSpecs};
const ParamTable kComputeParams{"machine.compute", "Calibrated compute costs of application kernels, by name.",
                                kComputeSpecs};

Bytes PacketFormat::wire_offset(Bytes offset) const {
  const Bytes whole = offset / payload;
  const Bytes rest = offset % payload;
  const Bytes padded = rest == 0 ? 0 : std::min(payload, ((rest + chunk - 1) / chunk) * chunk) + header;
  return whole * (payload + header) + padded;
}

namespace {

NodeParams parse_node(const ParamReader& r) {
  NodeParams n = parse_fields(r, kNodeFields);
  if (n.full_speed_threads > n.threads_per_core)
    r.where("full_speed_threads").fail("cannot exceed threads_per_core (" + std::to_string(n.threads_per_core) + ")");
  n.modes = r.nested("modes");
  for (const auto& [mode, ranks] : n.modes.items())
    if (!ranks.is_number_integer() || ranks.get<std::int64_t>() < 1 || ranks.get<std::int64_t>() > n.cores)
      (r.where("modes") / mode)
          .fail("expected a number of processes per node from 1 to the node's cores, got " + preview(ranks));
  return n;
}

PacketFormat parse_packet(const ParamReader& r) {
  const PacketFormat p = parse_fields(r, kPacketFields);
  if (p.chunk > p.payload) r.where("chunk").fail("'chunk' cannot exceed the packet payload");
  return p;
}

// A hop's router pipeline is part of its link latency: it cannot exceed the shortest network link's.
void check_pipeline(const Machine& m, const Where& where) {
  for (const auto& link : m.topology->links())
    if (link.kind == topo::LinkKind::network && link.latency < m.router.pipeline_latency)
      where.fail("the router pipeline is part of each network link's latency, so at most the shortest link's (" +
                 format_time(link.latency) + "), got " + format_time(m.router.pipeline_latency));
}

void check_sources(const Json& sources, const Where& where) {
  for (const auto& [key, value] : sources.items())
    if (!value.is_string()) (where / key).fail("expected a citation string, got " + preview(value));
}

}  // namespace

Time Machine::compute_cost(const std::string& key, const Where& needed_by) const {
  if (!compute.contains(key))
    needed_by.fail("the workload needs the compute cost '" + key + "' of machine '" + name + "' (machine.compute." +
                   key + "), which the machine does not define");
  return ParamReader(compute, where / "compute", kComputeParams).time(key);
}

std::string machine_citation(const Json& machine, const std::string& path) {
  const Json sources = machine.value("sources", Json::object());
  if (sources.contains(path) && sources[path].is_string()) return sources[path].get<std::string>();
  std::string general;
  for (std::size_t start = 0; start <= path.size();) {
    const auto dot = std::min(path.find('.', start), path.size());
    const std::string key = path.substr(start, dot - start);
    if (key.empty() || !std::all_of(key.begin(), key.end(), [](unsigned char c) { return std::isdigit(c); }))
      general += (general.empty() ? "" : ".") + key;
    start = dot + 1;
  }
  // Else the nearest enclosing entry ("node.modes" cites "node.modes.SMP").
  for (std::string at = general;;) {
    if (sources.contains(at) && sources[at].is_string()) return sources[at].get<std::string>();
    const auto dot = at.rfind('.');
    if (dot == std::string::npos) return "";
    at.erase(dot);
  }
}

Machine parse_machine(const Json& spec, const Where& where) {
  ParamReader r(spec, where, kMachineParams);
  Machine m;
  m.name = r.text("name");
  m.description = r.text("description");
  m.node = parse_node(ParamReader(r.nested("node"), r.where("node"), kNodeParams));
  m.packet = parse_packet(ParamReader(r.nested("packet"), r.where("packet"), kPacketParams));
  {
    const ReadLog::Pause read_by_flow_control;  // credit flow control alone reads it (note_router_read)
    m.router = parse_fields(ParamReader(r.nested("router"), r.where("router"), kRouterParams), kRouterFields);
  }
  const topo::NodeLinks node_links{m.node.injection_bandwidth, m.node.ejection_bandwidth};
  m.topology = topo::make_topology(r.nested("topology"), r.where("topology"), node_links);
  check_pipeline(m, r.where("router") / "pipeline_latency");
  m.nic = r.nested("nic");
  m.gpu = r.nested("gpu");
  m.compute = r.nested("compute");
  {
    const ReadLog::Pause checked_not_used;  // a run reads only the costs its workload needs (compute_cost)
    ParamReader(m.compute, r.where("compute"), kComputeParams).check_given();
  }
  m.runtimes = r.nested("runtimes");
  m.sources = r.nested("sources");
  check_sources(m.sources, r.where("sources"));
  m.spec = spec;
  m.where = where;
  return m;
}

void note_router_read(const Machine& machine) {
  const Json router = machine.spec.value("router", Json::object());
  parse_fields(ParamReader(router, machine.where / "router", kRouterParams), kRouterFields);
}

void router_not_used(const Machine& machine, const std::string& why) {
  const Json router = machine.spec.value("router", Json::object());
  for (const auto& [key, value] : router.items())
    not_used_unless_preset(
        machine.where / "router" / key,
        "router." + key + " is read only by credit flow control (network.flow_control: credit); " + why);
}

}  // namespace torsim
