#include "models/nic/bgq_mu.hpp"

#include <algorithm>
#include <cstdlib>

#include "models/network/route.hpp"

#include "sim/config/fields.hpp"
#include "topologies/torus.hpp"

namespace torsim::nic {

namespace {
using P = MuParams;
constexpr Field<P> kFields[] = {
    unbound<P>({"model", ParamKind::text, kRequired, "", "", "", "bgq_mu", "-"}),
    bind<&P::injection_engines>(
        {"injection_engines", ParamKind::integer, "16", "", "1", "1024",
         "injection message engines per node: descriptors the MU works on at once",
         "[E] 16, as recalled from Chen et al., SC11 (not checked against the paper); see docs/models/bgq.md for "
         "its sensitivity"}),
    bind<&P::application_fifos>(
        {"application_fifos", ParamKind::integer, "512", "", "1", "100000",
         "injection FIFOs the node's ranks share (32 per core's group, 16 application cores)",
         "[C-code] bgq-driver hwi/include/bqc (17 groups of 32); PAMI mu2 ResourceManager gives the application cores' "
         "groups to the ranks"}),
    bind<&P::context_fifos>({"context_fifos", ParamKind::integer, "10", "", "1", "64",
                             "injection FIFOs a PAMI context takes when it can: one per torus direction",
                             "[C-code] PAMI mu2/global/ResourceManager.h"}),
    bind<&P::remote_get_fifos>(
        {"remote_get_fifos", ParamKind::integer, "10", "", "1", "64",
         "remote-get FIFOs per node, shared by its ranks, into which arriving remote gets are queued",
         "[C-code] PAMI mu2 (10 remote-get FIFOs of 64 KiB per node)"}),
    bind<&P::descriptor>({"descriptor", ParamKind::size, "64B", "B", "0B", "1KiB",
                          "bytes of one MU descriptor (a remote get's payload)",
                          "[C-code] bgq-driver hwi/include/bqc MU descriptor"}),
    bind<&P::descriptor_time>({"descriptor_time", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                               "an engine's time per descriptor besides reading its data (fetch, packet headers)",
                               "preset"}),
    bind<&P::comm_agent>({"comm_agent", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                          "the comm agent on the 17th core noticing a remote-completion ping and answering it",
                          "preset"}),
};
constexpr auto kSpecs = specs_of(kFields);

Callback fire(Signal* signal) { return signal ? signal->firing() : Callback{}; }

// FIFO keys: a rank's injection FIFO, a node's remote-get FIFO, a node's comm-agent FIFO.
std::uint64_t injection_key(Rank r, int fifo) {
  return (static_cast<std::uint64_t>(r) << 8) | static_cast<unsigned>(fifo);
}
std::uint64_t remote_get_key(NodeId n, int fifo) {
  return (std::uint64_t{1} << 62) | (static_cast<std::uint64_t>(n) << 8) | static_cast<unsigned>(fifo);
}
std::uint64_t comm_agent_key(NodeId n) { return (std::uint64_t{2} << 62) | static_cast<std::uint64_t>(n); }
}  // namespace

const ParamTable kMuParams{"machine.nic (model: bgq_mu)", "IBM Blue Gene/Q message unit.", kSpecs};

MuParams parse_mu(const ParamReader& r) { return parse_fields(r, kFields); }

MuParams mu_of(const Machine& machine, const Where& where) {
  if (machine.nic.value("model", std::string()) != "bgq_mu" || machine.topology->type() != "torus")
    where.fail("this messaging layer needs a Blue Gene/Q message unit on a torus; machine '" + machine.name +
               "' has no \"nic\": {\"model\": \"bgq_mu\"} (bgq-midplane, mira and sequoia have one)");
  return parse_mu(ParamReader(machine.nic, machine.where / "nic", kMuParams));
}

MessageUnit::MessageUnit(node::Job& job, const MuParams& params)
    : job_(job),
      p_(params),
      torus_(dynamic_cast<const topo::Torus*>(job_.machine.topology.get())),
      engine_free_(static_cast<std::size_t>(job_.machine.node_count() * params.injection_engines), 0) {}

int MessageUnit::fifos_per_context() const {
  return std::clamp(p_.application_fifos / job_.placement.ranks_per_node, 1, p_.context_fifos);
}

int MessageUnit::direction_fifo(NodeId from, NodeId to) const {
  const auto a = torus_->router_of(from), b = torus_->router_of(to);
  int axes = 0, axis_fifo = 0, hops = 0;
  for (std::size_t d = 0; d < torus_->dims().size(); ++d) {
    const int offset = torus_->offset(d, a, b);
    if (offset == 0) continue;
    ++axes;
    axis_fifo = 2 * static_cast<int>(d) + (offset < 0 ? 1 : 0);
    hops += std::abs(offset);
  }
  return axes == 1 ? axis_fifo : hops % 10;
}

int MessageUnit::fifo_of(Rank src, Rank dst) const {
  const NodeId a = job_.node_of(src), b = job_.node_of(dst);
  if (a == b) return p_.context_fifos + job_.placement.local_index(dst) % 6;  // the local FIFOs
  return direction_fifo(a, b) % fifos_per_context();
}

// First come, first served: the FIFO's previous descriptor must have been read, and the
// earliest free engine takes it. No backpressure from the network (its buffers are unbounded).
Time MessageUnit::book(std::uint64_t fifo_key, NodeId from, Bytes wire) {
  const Time occupancy = p_.descriptor_time + transfer_time(wire, job_.machine.node.injection_bandwidth);
  const auto first = engine_free_.begin() + static_cast<std::ptrdiff_t>(from) * p_.injection_engines;
  const auto engine = std::min_element(first, first + p_.injection_engines);
  Time& fifo = fifo_free_[fifo_key];
  const Time start = std::max({job_.kernel.now(), fifo, *engine});
  *engine = fifo = start + occupancy;
  return start;
}

// With `trailer`, a zero-byte packet follows the data out of the same FIFO and `delivered`
// fires when it lands: one header-only packet's serialisation on the route's slowest link
// after the data (it is pipelined behind the data, so it pays no latency of its own).
Task<> MessageUnit::move(std::uint64_t fifo_key, NodeId from, NodeId to, Bytes bytes, Signal* delivered, bool trailer,
                         Signal* started) {
  const PacketFormat& format = job_.machine.packet;
  const Time start = book(fifo_key, from, format.wire_bytes(bytes) + (trailer ? format.wire_bytes(0) : 0));
  if (start > job_.kernel.now()) co_await job_.kernel.sleep(start - job_.kernel.now());
  if (started) started->fire();
  Signal injected(job_.kernel), data_in(job_.kernel);
  job_.network.start({from, to, bytes, fire(&injected), fire(trailer ? &data_in : delivered), nullptr});
  co_await injected;
  if (!trailer) co_return;
  co_await data_in;
  co_await job_.kernel.sleep(trailer_time(from, to));
  delivered->fire();
}

Time MessageUnit::trailer_time(NodeId from, NodeId to) const {
  if (from == to) return 0;
  return transfer_time(job_.machine.packet.wire_bytes(0), net::route_cost(*job_.machine.topology, from, to).bottleneck);
}

Task<> MessageUnit::inject(Rank src, Rank dst, Bytes bytes, Signal* delivered, Signal* started) {
  co_await move(injection_key(src, fifo_of(src, dst)), job_.node_of(src), job_.node_of(dst), bytes, delivered, false,
                started);
}

Task<> MessageUnit::remote_get(Rank initiator, Rank target, Bytes bytes) {
  const NodeId here = job_.node_of(initiator), there = job_.node_of(target);
  Signal request_in(job_.kernel), completion_in(job_.kernel);
  co_await inject(initiator, target, p_.descriptor, &request_in);
  co_await request_in;
  const int fifo = here == there ? 0 : direction_fifo(there, here) % p_.remote_get_fifos;
  co_await move(remote_get_key(there, fifo), there, here, bytes, &completion_in, true);
  co_await completion_in;
}

Task<> MessageUnit::put_acknowledged(Rank initiator, Rank target, Bytes bytes) {
  const NodeId here = job_.node_of(initiator), there = job_.node_of(target);
  Signal ping_in(job_.kernel), answer_in(job_.kernel);
  co_await move(injection_key(initiator, fifo_of(initiator, target)), here, there, bytes, &ping_in, true);
  co_await ping_in;
  co_await job_.kernel.sleep(p_.comm_agent);
  co_await move(comm_agent_key(there), there, here, 0, &answer_in, false);
  co_await answer_in;
}

}  // namespace torsim::nic
