#include "models/runtime/gemini/cray_mpich.hpp"

#include <algorithm>

#include "sim/config/fields.hpp"

namespace torsim::rt {

namespace {

constexpr Field<CrayMpichParams> kOwnFields[] = {
    bind<&CrayMpichParams::match_entry_cpu>(
        {"match_entry_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "tag matching, per entry of the queue searched (posted receives for an arrival, unexpected messages for a "
         "posted receive)",
         "preset"}),
    bind<&CrayMpichParams::progress_cpu>(
        {"progress_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "one call of the progress engine that finds nothing (an empty MPI_Iprobe, one pass of a blocked wait)",
         "preset"}),
    bind<&CrayMpichParams::test_cpu>(
        {"test_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "MPI_Test of one request", "preset"}),
    bind<&CrayMpichParams::dynamic_connections>(
        {"dynamic_connections", ParamKind::boolean, "true", "", "", "",
         "connections (SMSG mailboxes) are set up on first contact with a peer (MPICH_GNI_DYNAMIC_CONN)", "preset"}),
    bind<&CrayMpichParams::connect_cpu>(
        {"connect_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "each side's core time to set up a connection: endpoint, mailbox, datagram exchange", "preset"}),
    bind<&CrayMpichParams::vshort_small>(
        {"vshort_small_job", ParamKind::size, kRequired, "B", "0B", "64KiB",
         "largest message inside an SMSG (E0) up to 4,096 ranks (MPICH_GNI_MAX_VSHORT_MSG_SIZE)", "preset"}),
    bind<&CrayMpichParams::vshort_medium>(
        {"vshort_medium_job", ParamKind::size, kRequired, "B", "0B", "64KiB", "the same up to 16,384 ranks", "preset"}),
    bind<&CrayMpichParams::vshort_large>(
        {"vshort_large_job", ParamKind::size, kRequired, "B", "0B", "64KiB", "the same above 16,384 ranks", "preset"}),
    bind<&CrayMpichParams::eager_limit>(
        {"eager_limit", ParamKind::size, kRequired, "B", "0B", "1GiB",
         "largest eager message; above it the rendezvous protocol (MPICH_GNI_MAX_EAGER_MSG_SIZE)", "preset"}),
    bind<&CrayMpichParams::eager_buffers>(
        {"eager_buffers", ParamKind::integer, kRequired, "", "1", "1000000",
         "pre-registered DMA buffers per rank for E1 messages (MPICH_GNI_NUM_BUFS); a sender waits for one", "preset"}),
    bind<&CrayMpichParams::rdma_threshold>({"rdma_threshold", ParamKind::size, kRequired, "B", "0B", "1GiB",
                                            "GETs of this size or more use BTE (MPICH_GNI_RDMA_THRESHOLD)", "preset"}),
    bind<&CrayMpichParams::rdma_chunk>(
        {"rdma_chunk", ParamKind::size, kRequired, "B", "0B", "1GiB",
         "a rendezvous GET is cut into pieces of this size, posted one after another (0: one GET)", "preset"}),
    bind<&CrayMpichParams::control_bytes>({"control_bytes", ParamKind::size, "32B", "B", "0B", "1KiB",
                                           "RTS and FIN control messages", "assumption: a handle, a size and a tag"}),
    bind<&CrayMpichParams::rma_sync_cpu>({"rma_sync_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                          "MPI_Put/MPI_Get synchronisation (lock, flush) on the origin's core",
                                          "preset"}),
};
constexpr auto kMpiFields = join(mpi_fields<CrayMpichParams>("mpi"), kOwnFields);
constexpr auto kMpiSpecs = specs_of(kMpiFields);

}  // namespace

const ParamTable kCrayMpichLayerParams{"runtime (layer: mpi)", "Cray MPICH protocols over uGNI.", kMpiSpecs};

CrayMpichParams parse_cray_mpich(const ParamReader& r) { return parse_fields(r, kMpiFields); }

CrayMpichLayer::CrayMpichLayer(Job& job, const nic::GeminiParams& nic, const CrayMpichParams& params)
    : GeminiLayer(job, nic),
      p_(params),
      eager_buffers_free_(static_cast<std::size_t>(job.size()), params.eager_buffers),
      eager_waiting_(static_cast<std::size_t>(job.size())) {}

Bytes CrayMpichLayer::vshort_max() const {
  const int ranks = job_.size();
  return ranks <= 4096 ? p_.vshort_small : ranks <= 16384 ? p_.vshort_medium : p_.vshort_large;
}

CpuCharge CrayMpichLayer::send_overhead(const Message& m) {
  const Bytes size = wire_size(m);
  CpuCharge cost(CpuUse::send, p_.send_cpu);
  if (size > p_.eager_limit && job_.node_of(m.envelope.src) != job_.node_of(m.envelope.dst))
    cost.add(CpuUse::registration, nic_.register_memory(m.envelope.src, send_buffer(m), size));
  return cost;
}

Task<> CrayMpichLayer::protocol(Message m) {
  const Bytes size = wire_size(m);
  if (job_.node_of(m.envelope.src) == job_.node_of(m.envelope.dst)) co_return co_await shared_memory(m);
  co_await connect(m.envelope.src, m.envelope.dst);
  if (size + p_.header <= vshort_max()) co_return co_await eager_smsg(m);
  if (size <= p_.eager_limit) co_return co_await eager_buffered(m);
  co_await rendezvous(m);
}

Task<> CrayMpichLayer::received(Message m) {
  arrive(m);
  co_return;
}

void CrayMpichLayer::send_done(Message& m) {
  complete_send(m);
  mpi_send_done(m);
}

CpuCharge CrayMpichLayer::arrival_cost(Rank dst) const {
  const auto searched = static_cast<Time>(posted_receives(dst));
  return nic_.smsg_receive_cost()
      .add(CpuUse::receive, p_.recv_cpu)
      .add(CpuUse::match, p_.match_cpu + searched * p_.match_entry_cpu);
}

// A receive posted while messages wait unmatched searches them.
Request CrayMpichLayer::irecv(Rank self, Rank src, Tag tag) {
  if (const auto waiting = static_cast<Time>(unexpected_messages(self)); waiting > 0)
    cores().occupy(self, waiting * p_.match_entry_cpu, CpuUse::match);
  return MessagingLayer::irecv(self, src, tag);
}

namespace {
std::uint64_t connection_key(Rank a, Rank b) {
  return static_cast<std::uint64_t>(std::min(a, b)) << 32 | static_cast<std::uint32_t>(std::max(a, b));
}
}  // namespace

bool CrayMpichLayer::connected(Rank a, Rank b) const {
  return !p_.dynamic_connections || connected_.count(connection_key(a, b)) > 0;
}

// Dynamic connections: the first message between two ranks (either way) sets up their SMSG
// connection: the initiator creates its endpoint and mailbox and sends a datagram; the peer's
// progress engine (when it next runs) does the same and answers. Messages to a peer whose
// connection is being set up wait for it.
Task<> CrayMpichLayer::connect(Rank a, Rank b) {
  if (connected(a, b)) co_return;
  const auto key = connection_key(a, b);
  if (const auto it = connecting_.find(key); it != connecting_.end()) {
    co_await it->second.wait();
    co_return;
  }
  connecting_[key];
  co_await cores().run(a, p_.connect_cpu, CpuUse::connection);
  co_await kernel().sleep(nic_.small_latency(a, b));
  co_await notice(b);
  co_await cores().run(b, p_.connect_cpu, CpuUse::connection);
  co_await kernel().sleep(nic_.small_latency(b, a));
  connected_.insert(key);
  const auto node = connecting_.extract(key);
  node.mapped().wake_all(kernel());
}

// On one node, MPI's shared-memory device: the sender copies into a shared buffer, the
// receiver copies out; no NIC involved.
Task<> CrayMpichLayer::shared_memory(Message m) {
  const Envelope& e = m.envelope;
  const Bytes size = wire_size(m);
  co_await cores().run(e.src, copy_time(size), CpuUse::copy);
  send_done(m);
  co_await kernel().sleep(job_.machine.node.memcpy_latency);
  const std::uint32_t receive = receives_immediately(m) || size <= p_.eager_limit ? 0 : co_await match_receive(e);
  co_await notice(e.dst);
  co_await cores().run(
      e.dst,
      CpuCharge(CpuUse::receive, p_.recv_cpu).add(CpuUse::match, p_.match_cpu).add(CpuUse::copy, copy_time(size)));
  if (receives_immediately(m) || size <= p_.eager_limit)
    co_await received(m);
  else
    complete_receive(m, receive);
}

// E0: the data rides in the SMSG; the receiver copies it out of its mailbox (into MPI's own
// buffer first when no receive was waiting: a second copy when the receive comes).
Task<> CrayMpichLayer::eager_smsg(Message m) {
  const Envelope& e = m.envelope;
  const Bytes size = wire_size(m);
  send_done(m);  // the data went into the mailbox write
  co_await nic_.smsg(e.src, e.dst, size + p_.header);
  co_await notice(e.dst);
  co_await cores().run(e.dst, arrival_cost(e.dst).add(CpuUse::copy, copy_time(size) * (unexpected(m) ? 2 : 1)));
  nic_.release(e.src, e.dst);
  co_await received(m);
}

// E1: the sender copies the data into one of its pre-registered DMA buffers (waiting for one
// when all are in use); the receiver GETs it into its own and copies it out, then frees the
// sender's buffer with a FIN.
Task<> CrayMpichLayer::eager_buffered(Message m) {
  const Envelope& e = m.envelope;
  const Bytes size = wire_size(m);
  co_await take_eager_buffer(e.src);
  co_await cores().run(e.src, copy_time(size), CpuUse::copy);
  send_done(m);
  co_await nic_.smsg(e.src, e.dst, p_.header + p_.control_bytes);
  co_await notice(e.dst);
  co_await cores().run(e.dst, arrival_cost(e.dst));
  nic_.release(e.src, e.dst);
  co_await nic_.get(e.dst, e.src, size, engine_for(size, p_.rdma_threshold));
  co_await cores().run(e.dst, copy_time(size) * (unexpected(m) ? 2 : 1), CpuUse::copy);
  kernel().spawn(received(m));
  co_await nic_.smsg(e.dst, e.src, p_.control_bytes);
  co_await notice(e.src);
  co_await cores().run(e.src, nic_.smsg_receive_cost());
  nic_.release(e.dst, e.src);
  return_eager_buffer(e.src);
}

Task<> CrayMpichLayer::take_eager_buffer(Rank r) {
  auto& free = eager_buffers_free_[static_cast<std::size_t>(r)];
  while (free == 0) co_await eager_waiting_[static_cast<std::size_t>(r)].wait();
  --free;
}

void CrayMpichLayer::return_eager_buffer(Rank r) {
  ++eager_buffers_free_[static_cast<std::size_t>(r)];
  eager_waiting_[static_cast<std::size_t>(r)].wake_one(kernel());
}

// R0: request to send; once a receive matches, the receiver registers its buffer (through the
// cache) and GETs the user buffer directly (BTE, in pieces), then a FIN completes the send.
// A receiver that waits in MPI_Recv keeps its core busy until the data is in.
Task<> CrayMpichLayer::rendezvous(Message m) {
  const Envelope& e = m.envelope;
  const Bytes size = wire_size(m);
  co_await nic_.smsg(e.src, e.dst, p_.header + p_.control_bytes);
  co_await notice(e.dst);
  co_await cores().run(e.dst, arrival_cost(e.dst));
  nic_.release(e.src, e.dst);
  const std::uint32_t receive = receives_immediately(m) ? co_await no_match() : co_await match_receive(e);
  co_await cores().run(e.dst, nic_.register_memory(e.dst, receive_buffer(m), size), CpuUse::registration);
  co_await rendezvous_get(m, size);
  if (receives_immediately(m))
    kernel().spawn(received(m));
  else
    complete_receive(m, receive);
  co_await nic_.smsg(e.dst, e.src, p_.control_bytes);
  co_await notice(e.src);
  co_await cores().run(e.src, nic_.smsg_receive_cost().add(CpuUse::receive, p_.recv_cpu));
  nic_.release(e.dst, e.src);
  send_done(m);
}

// The GET of a rendezvous message, piece after piece. A blocking receiver's core spins in
// MPI_Recv for as long as the GETs take on a quiet machine.
Task<> CrayMpichLayer::rendezvous_get(const Message& m, Bytes size) {
  const Envelope& e = m.envelope;
  const Bytes piece = p_.rdma_chunk > 0 ? std::min(p_.rdma_chunk, size) : size;
  if (blocking_receive()) {
    Time blocked = 0;
    for (Bytes at = 0; at < size; at += piece)
      blocked += nic_.get_zero_load(e.dst, e.src, std::min(piece, size - at), engine_for(piece, p_.rdma_threshold));
    cores().occupy(e.dst, blocked, CpuUse::poll);
  }
  for (Bytes at = 0; at < size; at += piece)
    co_await nic_.get(e.dst, e.src, std::min(piece, size - at), engine_for(piece, p_.rdma_threshold),
                      !blocking_receive());
}

Task<> CrayMpichLayer::put(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, CpuCharge(CpuUse::send, p_.send_cpu + p_.rma_sync_cpu)
                                 .add(CpuUse::registration, nic_.register_memory(self, user_buffer(size), size)));
  co_await nic_.put(self, target, size, engine_for(size, p_.rdma_threshold));
}

Task<> CrayMpichLayer::get(Rank self, Rank target, Bytes size) {
  co_await cores().run(self, CpuCharge(CpuUse::send, p_.send_cpu + p_.rma_sync_cpu)
                                 .add(CpuUse::registration, nic_.register_memory(self, user_buffer(size), size)));
  co_await nic_.get(self, target, size, engine_for(size, p_.rdma_threshold));
}

std::unique_ptr<MessagingLayer> make_cray_mpich_layer(const ParamReader& r, Job& job) {
  return std::make_unique<CrayMpichLayer>(job, nic::gemini_of(job.machine, r.where()), parse_cray_mpich(r));
}

}  // namespace torsim::rt
