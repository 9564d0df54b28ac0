#include "models/runtime/infiniband/mvapich2.hpp"

#include <algorithm>

#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {

constexpr ChoiceName<bool> kRendezvousNames[] = {{"rput", false}, {"rget", true}};
constexpr Field<Mvapich2Params> kOwnFields[] = {
    bind<&Mvapich2Params::rma_sync_cpu>({"rma_sync_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                         "MPI_Put/MPI_Get synchronisation on the origin's core", "preset"}),
    bind<&Mvapich2Params::fast_path_size>({"fast_path_size", ParamKind::size, kRequired, "B", "0B", "1MiB",
                                           "largest message plus header through the RDMA fast path (0: no fast path)",
                                           "preset"}),
    bind<&Mvapich2Params::fast_path_buffers>(
        {"fast_path_buffers", ParamKind::integer, kRequired, "", "0", "4096", "ring slots per peer", "preset"}),
    bind<&Mvapich2Params::fast_path_peers>({"fast_path_peers", ParamKind::integer, kRequired, "", "0", "1000000",
                                            "senders a rank gives a fast-path ring (the first ones to send to it)",
                                            "preset"}),
    bind<&Mvapich2Params::eager_limit>(
        {"eager_limit", ParamKind::size, kRequired, "B", "0B", "1GiB",
         "largest message plus header sent eagerly between nodes; above it the rendezvous", "preset"}),
    bind<&Mvapich2Params::prepost_depth>({"prepost_depth", ParamKind::integer, kRequired, "", "1", "100000",
                                          "receive buffers posted per connection", "preset"}),
    bind_choice<&Mvapich2Params::rget, kRendezvousNames>(
        {"rendezvous", ParamKind::choice, "rput", "", "", "",
         "rput: the sender RDMA-writes the data; rget: the receiver RDMA-reads it", "preset", "rput|rget"}),
    bind<&Mvapich2Params::striping_threshold>({"striping_threshold", ParamKind::size, kRequired, "B", "0B", "1GiB",
                                               "rendezvous data of this size or more is split over every rail",
                                               "preset"}),
    bind<&Mvapich2Params::control_bytes>({"control_bytes", ParamKind::size, "32B", "B", "0B", "1KiB",
                                          "RTS, CTS and FIN messages",
                                          "assumption: an address, a key, a size and a tag"}),
    bind<&Mvapich2Params::smp_eager_limit>({"smp_eager_limit", ParamKind::size, kRequired, "B", "0B", "1GiB",
                                            "largest eager message within a node", "preset"}),
    bind<&Mvapich2Params::smp_block>({"smp_block", ParamKind::size, kRequired, "B", "1B", "1GiB",
                                      "block of the copy pipeline within a node", "preset"}),
};
constexpr auto kMpiFields = join(mpi_fields<Mvapich2Params>("mpi"), kOwnFields);
constexpr auto kMpiSpecs = specs_of(kMpiFields);

// Counts work requests down to their local completions.
struct Countdown {
  int left;
  Signal done;
};
Task<> count_down(Task<> operation, Countdown& countdown) {
  co_await operation;
  if (--countdown.left == 0) countdown.done.fire();
}

Mvapich2Params parse_mvapich2(const ParamReader& r) { return parse_fields(r, kMpiFields); }

}  // namespace

const ParamTable kMvapich2LayerParams{"runtime (layer: mpi, nic: infiniband)", "MVAPICH2's protocols over verbs.",
                                      kMpiSpecs};

Mvapich2Layer::Mvapich2Layer(Job& job, const nic::InfinibandParams& hca, const Mvapich2Params& params)
    : InfinibandLayer(job, hca), p_(params), rings_given_(static_cast<std::size_t>(job.size()), 0) {}

CpuCharge Mvapich2Layer::send_overhead(const Message& m) {
  const Bytes size = m.envelope.size;
  CpuCharge cost(CpuUse::send, p_.send_cpu);
  if (same_node(m.envelope)) return cost;  // shared memory copies its own way
  if (size + p_.header <= p_.eager_limit) return cost.add(CpuUse::copy, copy_time(size));  // into a registered buffer
  return cost.add(CpuUse::registration, hca_.register_memory(m.envelope.src, user_buffer(size), size));
}

Task<> Mvapich2Layer::protocol(Message m) {
  if (same_node(m.envelope)) return shared_memory(m);
  if (m.envelope.size + p_.header <= p_.eager_limit) return eager(m);
  return rendezvous(m);
}

bool Mvapich2Layer::take_fast_path_slot(Rank src, Rank dst) {
  const auto key = pair_key(src, dst);
  auto ring = rings_.find(key);
  if (ring == rings_.end()) {
    int& given = rings_given_[static_cast<std::size_t>(dst)];
    if (given >= p_.fast_path_peers || p_.fast_path_buffers == 0) return false;
    ++given;
    ring = rings_.emplace(key, Ring{p_.fast_path_buffers}).first;
  }
  if (ring->second.free_slots == 0) return false;
  --ring->second.free_slots;
  return true;
}

void Mvapich2Layer::return_slot(std::uint64_t key) { ++rings_.at(key).free_slots; }

// The fast path: the sender RDMA-writes into the peer's ring, the receiver finds it by polling
// the ring and frees the slot; the sender learns of it one small-message latency later.
Task<> Mvapich2Layer::small(Rank src, Rank dst, Bytes bytes, int rail) {
  if (bytes > p_.fast_path_size || !take_fast_path_slot(src, dst))
    co_return co_await send_received(src, dst, bytes, rail, p_.prepost_depth);
  Signal landed(kernel());
  kernel().spawn(hca_.rdma_write(src, dst, bytes, rail, landed.firing()));
  co_await landed;
  co_await cores().run(dst, hca_.params().poll_cpu, CpuUse::poll);
  kernel().after(hca_.small_latency(dst, src),
                 member_callback<Mvapich2Layer, &Mvapich2Layer::return_slot>(this, pair_key(src, dst)));
}

// Eager: copied into a registered buffer at the send (send_overhead), so the send is complete;
// the receiver copies it out.
Task<> Mvapich2Layer::eager(Message m) {
  const Envelope& e = m.envelope;
  complete_send(m);
  co_await small(e.src, e.dst, e.size + p_.header, hca_.rail_of(e.src));
  co_await cores().run(e.dst, receive_cost().add(CpuUse::copy, copy_time(e.size)));
  arrive(m);
}

Task<> Mvapich2Layer::rendezvous(Message m) {
  const Envelope& e = m.envelope;
  co_await small(e.src, e.dst, p_.header + p_.control_bytes, hca_.rail_of(e.src));  // RTS
  co_await cores().run(e.dst, receive_cost());
  const std::uint32_t receive = co_await matching_receive(m);
  co_await cores().run(e.dst, hca_.register_memory(e.dst, user_buffer(e.size), e.size), CpuUse::registration);
  if (p_.rget)
    co_await get_data(m, receive);
  else
    co_await put_data(m, receive);
}

// RPUT: a CTS, the data written stripe by stripe, a FIN behind it on the last stripe's queue
// pair; the receive completes once the FIN is in and every stripe has landed.
Task<> Mvapich2Layer::put_data(Message& m, std::uint32_t receive) {
  const Envelope& e = m.envelope;
  const int n = stripes(e.size);
  const int first_rail = hca_.rail_of(e.src);
  co_await small(e.dst, e.src, p_.control_bytes, first_rail);  // CTS
  co_await cores().run(e.src, p_.recv_cpu, CpuUse::receive);
  Countdown written{n, Signal(kernel())};
  std::deque<Signal> landed;
  for (int k = 0; k < n; ++k) {
    landed.emplace_back(kernel());
    kernel().spawn(count_down(hca_.rdma_write(e.src, e.dst, stripe_bytes(e.size, n, k), (first_rail + k) % hca_.rails(),
                                              landed.back().firing()),
                              written));
  }
  co_await small(e.src, e.dst, p_.control_bytes, (first_rail + n - 1) % hca_.rails());  // FIN
  for (Signal& stripe : landed) co_await stripe;
  co_await cores().run(e.dst, p_.recv_cpu, CpuUse::receive);
  complete_receive(m, receive);
  co_await written.done;
  co_await cores().run(e.src, n * hca_.params().poll_cpu, CpuUse::poll);
  complete_send(m);
}

// RGET: the receiver reads every stripe (the RTS carried the sender's buffer), then a FIN
// tells the sender.
Task<> Mvapich2Layer::get_data(Message& m, std::uint32_t receive) {
  const Envelope& e = m.envelope;
  const int n = stripes(e.size);
  const int first_rail = hca_.rail_of(e.src);
  Countdown read{n, Signal(kernel())};
  for (int k = 0; k < n; ++k)
    kernel().spawn(
        count_down(hca_.rdma_read(e.dst, e.src, stripe_bytes(e.size, n, k), (first_rail + k) % hca_.rails()), read));
  co_await read.done;
  co_await cores().run(e.dst, CpuCharge(CpuUse::poll, n * hca_.params().poll_cpu).add(CpuUse::receive, p_.recv_cpu));
  complete_receive(m, receive);
  co_await small(e.dst, e.src, p_.control_bytes, first_rail);  // FIN
  co_await cores().run(e.src, p_.recv_cpu, CpuUse::receive);
  complete_send(m);
}

// Within a node: eager copies in and out; above the SMP eager limit, a request through the
// shared queue, then both cores copy the whole message through SMP blocks, the receiver one
// block behind the sender.
Task<> Mvapich2Layer::shared_memory(Message m) {
  const Envelope& e = m.envelope;
  const Time hop = job_.machine.node.memcpy_latency;
  if (e.size <= p_.smp_eager_limit) {
    co_await cores().run(e.src, copy_time(e.size), CpuUse::copy);
    complete_send(m);
    co_await kernel().sleep(hop);
    co_await cores().run(e.dst, receive_cost().add(CpuUse::copy, copy_time(e.size)));
    co_return arrive(m);
  }
  co_await kernel().sleep(hop);
  co_await cores().run(e.dst, receive_cost());
  const std::uint32_t receive = co_await matching_receive(m);
  const Time sender_done = cores().occupy(e.src, copy_time(e.size), CpuUse::copy);
  co_await kernel().sleep(copy_time(std::min(e.size, p_.smp_block)) + hop);
  co_await cores().run(e.dst, copy_time(e.size), CpuUse::copy);
  complete_receive(m, receive);
  if (sender_done > kernel().now()) co_await kernel().sleep(sender_done - kernel().now());
  complete_send(m);
}

Task<> Mvapich2Layer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, CpuCharge(CpuUse::send, p_.send_cpu + p_.rma_sync_cpu)
                                 .add(CpuUse::registration, hca_.register_memory(self, user_buffer(size), size)));
  co_await hca_.rdma_write(self, target, size, hca_.rail_of(self));
  co_await cores().run(self, hca_.params().poll_cpu, CpuUse::poll);
}

Task<> Mvapich2Layer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, CpuCharge(CpuUse::send, p_.send_cpu + p_.rma_sync_cpu)
                                 .add(CpuUse::registration, hca_.register_memory(self, user_buffer(size), size)));
  co_await hca_.rdma_read(self, target, size, hca_.rail_of(self));
  co_await cores().run(self, hca_.params().poll_cpu, CpuUse::poll);
}

std::unique_ptr<MessagingLayer> make_mvapich2_layer(const ParamReader& r, Job& job) {
  return std::make_unique<Mvapich2Layer>(job, nic::infiniband_of(job.machine, r.where()), parse_mvapich2(r));
}

}  // namespace torsim::rt
