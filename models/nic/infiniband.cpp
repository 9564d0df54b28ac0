#include "models/nic/infiniband.hpp"

#include <algorithm>
#include <cmath>

#include "models/network/route.hpp"
#include "sim/config/fields.hpp"

namespace torsim::nic {

namespace {

using P = InfinibandParams;
constexpr Field<P> kFields[] = {
    unbound<P>({"model", ParamKind::text, kRequired, "", "", "", "infiniband", "-"}),
    bind_object<&P::pcie, &kPcieParams, &parse_pcie>(
        {"pcie", ParamKind::object, kRequired, "", "", "", "each HCA's PCI Express link; see machine.nic.pcie", "-"}),
    bind<&P::post_send_cpu>({"post_send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                             "ibv_post_send on the caller's core: building the work request and ringing the doorbell",
                             "preset"}),
    bind<&P::post_receive_cpu>({"post_receive_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                "ibv_post_recv, per receive posted", "preset"}),
    bind<&P::poll_cpu>({"poll_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                        "one ibv_poll_cq that finds a completion", "preset"}),
    bind<&P::send_latency>({"send_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                            "HCA: from a work request in hand to its first packet on the wire", "preset"}),
    bind<&P::receive_latency>({"receive_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                               "HCA: from a packet's arrival to the DMA write of its data (or to its acknowledgement)",
                               "preset"}),
    bind<&P::message_rate>({"message_rate", ParamKind::number, "0", "1/s", "0", "1e10",
                            "work requests one HCA processes per second (0: no limit)", "preset"}),
    bind<&P::max_inline>(
        {"max_inline", ParamKind::size, "0B", "B", "0B", "1KiB",
         "largest payload the CPU writes with the work request (BlueFlame), sparing the HCA its DMA reads", "preset"}),
    bind<&P::wqe_bytes>({"wqe_bytes", ParamKind::size, "64B", "B", "16B", "1KiB",
                         "a send work request as the HCA fetches it", "[E] one 64 B basic block; assumption"}),
    bind<&P::cqe_bytes>({"cqe_bytes", ParamKind::size, "64B", "B", "16B", "1KiB", "a completion entry the HCA writes",
                         "[E] 64 B completion entries; assumption"}),
    bind<&P::doorbell_bytes>({"doorbell_bytes", ParamKind::size, "8B", "B", "4B", "64B",
                              "the doorbell write when the work request is fetched",
                              "[E] one 64-bit MMIO write; assumption"}),
    bind<&P::registration_cpu>(
        {"registration_cpu", ParamKind::time, kRequired, "ns", "0ns", "1s", "ibv_reg_mr, per call", "preset"}),
    bind<&P::registration_page_cpu>({"registration_page_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                     "ibv_reg_mr, per page pinned", "preset"}),
    bind<&P::page_size>(
        {"page_size", ParamKind::size, "4KiB", "B", "4KiB", "1GiB", "page size of registered memory", "preset"}),
    bind<&P::registration_cache_entries>(
        {"registration_cache_entries", ParamKind::integer, "0", "", "0", "100000000",
         "buffers a rank's registration cache keeps (least recently used leave first; 0: no limit)", "preset"}),
};
constexpr auto kSpecs = specs_of(kFields);

constexpr Bytes kReth = 16;  // RDMA extended transport header
constexpr Bytes kAeth = 4;   // ACK extended transport header
constexpr Bytes kImmDt = 4;  // immediate data

std::uint64_t pair_key(Rank a, Rank b, int rail = 0) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 33) |
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(b)) << 1) | static_cast<std::uint64_t>(rail);
}

// Starts one packet's transfer when awaited; resumes when its tail has left the source.
struct Injection {
  net::NetworkModel& network;
  net::TransferRequest request;
  std::coroutine_handle<> waiter;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    waiter = h;
    request.on_injected = {[](void* self, std::uint64_t) { static_cast<Injection*>(self)->waiter.resume(); }, this, 0};
    network.start(request);
  }
  void await_resume() const noexcept {}
};

}  // namespace

const ParamTable kInfinibandParams{"machine.nic (model: infiniband)",
                                   "InfiniBand HCAs behind PCI Express and the verbs calls' costs.", kSpecs};

InfinibandParams parse_infiniband(const ParamReader& r) { return parse_fields(r, kFields); }

InfinibandParams infiniband_of(const Machine& machine, const Where& where) {
  if (machine.nic.value("model", std::string()) != "infiniband")
    where.fail("this messaging layer needs InfiniBand HCAs; machine '" + machine.name +
               "' has no \"nic\": "
               "{\"model\": \"infiniband\"} (InfiniBand clusters such as wilkes and qdr-cluster have them)");
  return parse_infiniband(ParamReader(machine.nic, machine.where / "nic", kInfinibandParams));
}

// ---- Queue pairs: a work request's packets wait for the previous request of the same pair.

// ---- The packet pipeline

struct InfinibandHca::Stream {
  InfinibandHca* hca;
  NodeId to;
  int rail;
  bool store;
  std::int64_t packets = 0, arrived = 0;
  StreamEnd end;
  Signal all_in;  // every packet has arrived
};

InfinibandHca::InfinibandHca(node::Job& job, const InfinibandParams& params)
    : job_(job),
      p_(params),
      rails_(job_.machine.topology->rail_count()),
      engines_(static_cast<std::size_t>(job_.machine.node_count() * rails_)),
      registered_(job_.size(), params.registration_cache_entries) {
  pcie_.reserve(static_cast<std::size_t>(job_.machine.node_count() * rails_));
  for (std::int64_t i = 0; i < job_.machine.node_count() * rails_; ++i) pcie_.emplace_back(job_.kernel, p_.pcie);
}

const PacketFormat* InfinibandHca::format(Bytes extra) {
  const PacketFormat& base = job_.machine.packet;
  for (const PacketFormat& f : formats_)
    if (f.header == base.header + extra) return &f;
  formats_.push_back({base.payload, base.header + extra, base.chunk});
  return &formats_.back();
}

void InfinibandHca::packet_arrived(void* context, std::uint64_t bytes) {
  Stream& s = *static_cast<Stream*>(context);
  InfinibandHca& hca = *s.hca;
  const Time now = hca.job_.kernel.now();
  s.end.last_arrival = now;
  s.end.data_in_memory = std::max(
      s.end.data_in_memory,
      s.store ? hca.pcie(s.to, s.rail).write_to_memory(now + hca.p_.receive_latency, static_cast<Bytes>(bytes)) : now);
  if (++s.arrived == s.packets) s.all_in.fire();
}

// Reads run ahead of the wire by as many packets as the read tags cover; each packet leaves
// once its data is in and the previous packet has left.
Task<InfinibandHca::StreamEnd> InfinibandHca::stream(NodeId from, NodeId to, int rail, Bytes bytes,
                                                     PacketHeaders headers, bool fetch, bool store, Semaphore* qp) {
  Kernel& kernel = job_.kernel;
  const Bytes mtu = job_.machine.packet.payload;
  Stream s{this, to, rail, store, 0, 0, {}, Signal(kernel)};
  s.packets = std::max<std::int64_t>(1, (bytes + mtu - 1) / mtu);
  const auto lookahead = std::max<std::int64_t>(1, p_.pcie.read_tags * p_.pcie.max_read_request / mtu);
  std::vector<Time> ready(static_cast<std::size_t>(lookahead));
  std::int64_t issued = 0;
  for (std::int64_t k = 0; k < s.packets; ++k) {
    for (; issued < s.packets && issued < k + lookahead; ++issued)
      ready[static_cast<std::size_t>(issued % lookahead)] =
          fetch ? pcie(from, rail).read_from_memory(kernel.now(), std::min(mtu, bytes - issued * mtu)) : kernel.now();
    co_await kernel.until(ready[static_cast<std::size_t>(k % lookahead)]);
    const Bytes size = std::min(mtu, bytes - k * mtu);
    const Bytes extra = s.packets == 1 ? headers.only : k == 0 ? headers.first : k + 1 == s.packets ? headers.last : 0;
    ++counters_.packets;
    co_await Injection{job_.network,
                       {from,
                        to,
                        size,
                        {},
                        {packet_arrived, &s, static_cast<std::uint64_t>(size)},
                        format(extra),
                        static_cast<std::int8_t>(rail)},
                       {}};
  }
  if (qp) qp->release(kernel);  // the pair's turn passes to its next request
  co_await s.all_in;
  co_return s.end;
}

Semaphore& InfinibandHca::queue_pair(Rank src, Rank dst, int rail) {
  return queue_pairs_.try_emplace(pair_key(src, dst, rail), 1).first->second;
}

// BlueFlame when the data fits inline (the CPU writes the work request and its data into the
// HCA), otherwise a doorbell and a fetch of the work request; then the HCA's turn.
Time InfinibandHca::post(NodeId node, int rail, Bytes bytes) {
  PcieLink& link = pcie(node, rail);
  const Time now = job_.kernel.now();
  const Time in_hca = bytes <= p_.max_inline
                          ? link.write_to_device(now, p_.wqe_bytes + bytes)
                          : link.read_from_memory(link.write_to_device(now, p_.doorbell_bytes), p_.wqe_bytes);
  auto& engine = engines_[static_cast<std::size_t>(node * rails_ + rail)];
  engine.forget_before(now);
  const Time turn = p_.message_rate > 0 ? static_cast<Time>(std::llround(1e12 / p_.message_rate)) : 0;
  const auto plan = engine.plan(in_hca, turn);
  engine.book(plan);
  ++counters_.work_requests;
  return plan.end + p_.send_latency;
}

void InfinibandHca::call_at(Time when, Callback callback) {
  if (callback.fn) job_.kernel.at(std::max(when, job_.kernel.now()), callback);
}

Task<> InfinibandHca::acknowledge(NodeId responder, NodeId initiator, int rail, Time arrival) {
  co_await job_.kernel.until(arrival + p_.receive_latency);
  const StreamEnd ack = co_await stream(responder, initiator, rail, 0, {0, 0, kAeth}, false, false, nullptr);
  co_await job_.kernel.sleep(
      pcie(initiator, rail).write_to_memory(ack.last_arrival + p_.receive_latency, p_.cqe_bytes) - job_.kernel.now());
}

// The CPU's post on src's core and the request's way into the HCA; then the queue pair's turn
// and, for a request that consumes one, a receive posted at dst. Returns, holding the pair, when
// the first packet may start.
Task<> InfinibandHca::begin(Rank src, Rank dst, int rail, Bytes bytes, bool consumes_receive) {
  co_await job_.cores.run(src, p_.post_send_cpu, node::CpuUse::send);
  const Time start = post(job_.node_of(src), rail, bytes);
  co_await queue_pair(src, dst, rail).acquire();
  if (consumes_receive) co_await take_receive(dst, src);
  co_await job_.kernel.until(start);
}

Task<> InfinibandHca::rdma_write(Rank src, Rank dst, Bytes bytes, int rail, Callback landed, bool immediate) {
  co_await begin(src, dst, rail, bytes, immediate);
  const NodeId a = job_.node_of(src), b = job_.node_of(dst);
  const PacketHeaders headers =
      immediate ? PacketHeaders{kReth, kImmDt, kReth + kImmDt} : PacketHeaders{kReth, 0, kReth};
  const StreamEnd end =
      co_await stream(a, b, rail, bytes, headers, bytes > p_.max_inline, true, &queue_pair(src, dst, rail));
  // A receive completion is written after the data (posted writes stay in order).
  call_at(immediate ? pcie(b, rail).write_to_memory(end.last_arrival + p_.receive_latency, p_.cqe_bytes)
                    : end.data_in_memory,
          landed);
  co_await acknowledge(b, a, rail, end.last_arrival);
}

Task<> InfinibandHca::send(Rank src, Rank dst, Bytes bytes, int rail, Callback landed) {
  co_await begin(src, dst, rail, bytes, true);
  const NodeId a = job_.node_of(src), b = job_.node_of(dst);
  const StreamEnd end =
      co_await stream(a, b, rail, bytes, {}, bytes > p_.max_inline, true, &queue_pair(src, dst, rail));
  call_at(pcie(b, rail).write_to_memory(end.last_arrival + p_.receive_latency, p_.cqe_bytes), landed);
  co_await acknowledge(b, a, rail, end.last_arrival);
}

Task<> InfinibandHca::rdma_read(Rank initiator, Rank target, Bytes bytes, int rail) {
  co_await begin(initiator, target, rail, 0, false);
  const NodeId a = job_.node_of(initiator), b = job_.node_of(target);
  const StreamEnd request =
      co_await stream(a, b, rail, 0, {0, 0, kReth}, false, false, &queue_pair(initiator, target, rail));
  // The responder's HCA turns the request round and streams the data from its memory.
  co_await job_.kernel.until(request.last_arrival + p_.receive_latency + p_.send_latency);
  const StreamEnd data = co_await stream(b, a, rail, bytes, {kAeth, kAeth, kAeth}, true, true, nullptr);
  const Time completion = pcie(a, rail).write_to_memory(data.last_arrival + p_.receive_latency, p_.cqe_bytes);
  co_await job_.kernel.until(std::max(completion, data.data_in_memory));
}

Task<> InfinibandHca::take_receive(Rank receiver, Rank sender) {
  ReceiveQueue& q = receive_queues_[pair_key(receiver, sender)];
  while (q.posted == 0) {
    ++counters_.receive_queue_waits;
    co_await q.waiting.wait();
  }
  --q.posted;
}

void InfinibandHca::post_receives(Rank receiver, Rank sender, int count) {
  ReceiveQueue& q = receive_queues_[pair_key(receiver, sender)];
  q.posted += count;
  q.waiting.wake_all(job_.kernel);
}

Time InfinibandHca::register_memory(Rank r, std::uint64_t buffer, Bytes bytes) {
  if (registered_.holds(r, buffer)) {
    ++counters_.registration_hits;
    return 0;
  }
  ++counters_.registration_misses;
  return registration_cost(p_.registration_cpu, p_.registration_page_cpu, p_.page_size, bytes);
}

Time InfinibandHca::small_latency(Rank a, Rank b) const {
  const NodeId na = job_.node_of(a), nb = job_.node_of(b);
  if (na == nb) return job_.machine.node.memcpy_latency;
  return 2 * p_.pcie.latency + p_.send_latency + p_.receive_latency +
         net::route_cost(*job_.machine.topology, na, nb).latency;
}

Rate InfinibandHca::stream_ceiling() const {
  const PacketFormat& packet = job_.machine.packet;
  const Rate port = job_.machine.topology->link(job_.machine.topology->injection_link(0)).bandwidth;
  const auto wire = static_cast<Rate>(Int128{port} * packet.payload / (packet.payload + packet.header));
  const PcieLink link(job_.kernel, p_.pcie);
  return std::min({wire, link.read_throughput(), link.write_throughput()});
}

}  // namespace torsim::nic
