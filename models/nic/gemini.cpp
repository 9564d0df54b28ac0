#include "models/nic/gemini.hpp"

#include <algorithm>

#include "models/network/route.hpp"
#include "sim/config/fields.hpp"

namespace torsim::nic {

namespace {
using P = GeminiParams;
constexpr Field<P> kFields[] = {
    unbound<P>({"model", ParamKind::text, kRequired, "", "", "", "gemini", "-"}),
    bind<&P::smsg_max_small>({"smsg_max_small_job", ParamKind::size, "1024B", "B", "64B", "64KiB",
                              "SMSG maximum size up to 4,096 PEs",
                              "[C-code] Charm++ gemini_gni machine.c (2011-2012)"}),
    bind<&P::smsg_max_medium>({"smsg_max_medium_job", ParamKind::size, "512B", "B", "64B", "64KiB",
                               "SMSG maximum size up to 16,384 PEs", "[C-code] same"}),
    bind<&P::smsg_max_large>({"smsg_max_large_job", ParamKind::size, "256B", "B", "64B", "64KiB",
                              "SMSG maximum size above 16,384 PEs", "[C-code] same"}),
    bind<&P::smsg_credits>({"smsg_credits", ParamKind::integer, "72", "", "1", "100000",
                            "mailbox slots per sender and receiver", "[C-code] Charm++ gemini_gni (2012)"}),
    bind<&P::smsg_header>(
        {"smsg_header", ParamKind::size, kRequired, "B", "0B", "1KiB", "bytes uGNI adds to each SMSG", "preset"}),
    bind<&P::smsg_send_cpu>({"smsg_send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                             "GNI_SmsgSendWTag on the sender's core", "preset"}),
    bind<&P::smsg_receive_cpu>({"smsg_receive_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                "GNI_SmsgGetNextWTag and GNI_SmsgRelease on the receiver's core", "preset"}),
    bind<&P::cq_poll_cpu>({"cq_poll_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                           "one completion-queue poll that finds an event", "preset"}),
    bind<&P::fma_post_cpu>(
        {"fma_post_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "GNI_PostFma set-up", "preset"}),
    bind<&P::fma_request_cpu>({"fma_request_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                               "core time per 64 B network request: FMA is processor-driven", "preset"}),
    bind<&P::bte_post_cpu>(
        {"bte_post_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "GNI_PostRdma set-up", "preset"}),
    bind<&P::bte_setup>({"bte_setup", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                         "BTE engine start-up before data moves", "preset"}),
    bind<&P::bte_bandwidth>({"bte_bandwidth", ParamKind::rate, kRequired, "GB/s", "1MB/s", "10000GB/s",
                             "payload rate of the BTE engine", "preset"}),
    bind<&P::get_request>({"get_request", ParamKind::size, "24B", "B", "0B", "1KiB",
                           "wire bytes of a GET request packet",
                           "[C] 8 phits of 3 B: Pedretti et al., SAND2013-0216C, quoted in LANL PPT gemini_mpiopt.py"}),
    bind<&P::get_response_overhead>({"get_response_overhead", ParamKind::size, "17B", "B", "0B", "1KiB",
                                     "wire bytes a GET response adds to its 64 B of payload",
                                     "[C] 27 phits = 81 B for 64 B: same source"}),
    bind<&P::registration_cpu>(
        {"registration_cpu", ParamKind::time, kRequired, "ns", "0ns", "1s", "GNI_MemRegister, per call", "preset"}),
    bind<&P::registration_page_cpu>({"registration_page_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                     "GNI_MemRegister, per page pinned", "preset"}),
    bind<&P::page_size>(
        {"page_size", ParamKind::size, "4KiB", "B", "4KiB", "1GiB", "page size of registered memory", "preset"}),
};
constexpr auto kSpecs = specs_of(kFields);
}  // namespace

const ParamTable kGeminiParams{"machine.nic (model: gemini)", "Cray Gemini NIC and the uGNI calls' costs.", kSpecs};

GeminiParams parse_gemini(const ParamReader& r) { return parse_fields(r, kFields); }

GeminiParams gemini_of(const Machine& machine, const Where& where) {
  if (machine.nic.value("model", std::string()) != "gemini")
    where.fail("this messaging layer needs a Gemini NIC; machine '" + machine.name +
               "' has no \"nic\": {\"model\": "
               "\"gemini\"} (Cray XE6 machines such as hopper have one)");
  return parse_gemini(ParamReader(machine.nic, machine.where / "nic", kGeminiParams));
}

GeminiNic::GeminiNic(node::Job& job, const GeminiParams& params)
    : job_(job),
      p_(params),
      put_format_(job_.machine.packet),
      get_format_{job_.machine.packet.payload, params.get_response_overhead, job_.machine.packet.chunk},
      request_format_{job_.machine.packet.payload, params.get_request, 1},
      bte_(static_cast<std::size_t>(job_.machine.node_count())),
      registered_(job_.size(), 0) {}

Bytes GeminiNic::smsg_max() const {
  const int pes = job_.size();
  return pes <= 4096 ? p_.smsg_max_small : pes <= 16384 ? p_.smsg_max_medium : p_.smsg_max_large;
}

namespace {
std::uint64_t pair_key(Rank src, Rank dst) {
  return (static_cast<std::uint64_t>(src) << 32) | static_cast<std::uint32_t>(dst);
}
}  // namespace

GeminiNic::Mailbox& GeminiNic::mailbox(Rank src, Rank dst) {
  const auto key = pair_key(src, dst);
  return mailboxes_.try_emplace(key, Mailbox{p_.smsg_credits, {}, {}, false}).first->second;
}

Task<> GeminiNic::transfer(Rank from, Rank to, Bytes bytes, const PacketFormat* format) {
  co_await net::Delivery(job_.network, job_.node_of(from), job_.node_of(to), bytes, format);
}

Task<> GeminiNic::smsg(Rank src, Rank dst, Bytes bytes) {
  co_await job_.cores.run(src, p_.smsg_send_cpu, node::CpuUse::send);
  Mailbox* m = &mailbox(src, dst);
  reclaim(*m);
  while (m->credits == 0) {
    schedule_wake(*m, pair_key(src, dst));
    co_await m->waiting.wait();
    m = &mailbox(src, dst);
    reclaim(*m);
  }
  --m->credits;
  if (!m->waiting.empty()) {  // pass the turn on: at once if a credit is left, else at the next return
    if (m->credits > 0)
      wake_sender(pair_key(src, dst));
    else
      schedule_wake(*m, pair_key(src, dst));
  }
  co_await transfer(src, dst, bytes + p_.smsg_header, &put_format_);
}

void GeminiNic::reclaim(Mailbox& m) {
  const Time now = job_.kernel.now();
  std::size_t back = 0;
  while (back < m.returning.size() && m.returning[back] <= now) ++back;
  m.credits += static_cast<int>(back);
  m.returning.erase(m.returning.begin(), m.returning.begin() + static_cast<std::ptrdiff_t>(back));
}

void GeminiNic::schedule_wake(Mailbox& m, std::uint64_t key) {
  if (m.wake_scheduled || m.returning.empty()) return;  // release() schedules it otherwise
  m.wake_scheduled = true;
  job_.kernel.at(std::max(job_.kernel.now(), m.returning.front()),
                 member_callback<GeminiNic, &GeminiNic::wake_sender>(this, key));
}

void GeminiNic::release(Rank src, Rank dst) {
  Mailbox& m = mailbox(src, dst);
  const Time back = job_.kernel.now() + small_latency(dst, src);
  m.returning.push_back(m.returning.empty() ? back : std::max(back, m.returning.back()));
  if (!m.waiting.empty()) schedule_wake(m, pair_key(src, dst));
}

// A credit is back: the first waiter tries again (and passes the turn on when it has sent).
void GeminiNic::wake_sender(std::uint64_t key) {
  Mailbox& m = mailboxes_.at(key);
  m.wake_scheduled = false;
  m.waiting.wake_one(job_.kernel);
}

// The node's DMA engine takes one transfer descriptor at a time: it sets the transfer up, then
// streams the payload at its own rate. Set-up occupies the engine, so a transfer cut into many
// pieces moves slower than one large transfer (the engine's per-transaction cost).
Task<Time> GeminiNic::bte_start(Rank r, Bytes bytes) {
  auto& engine = bte_[static_cast<std::size_t>(job_.node_of(r))];
  const Time now = job_.kernel.now();
  engine.forget_before(now);
  const auto plan = engine.plan(now, p_.bte_setup + transfer_time(bytes, p_.bte_bandwidth));
  engine.book(plan);
  co_await job_.kernel.sleep(plan.first + p_.bte_setup - now);
  co_return plan.end;
}

Task<> GeminiNic::bte_stream(Rank from, Rank to, Bytes bytes, const PacketFormat* format, Time paced_until) {
  Signal delivered(job_.kernel);
  job_.network.start({job_.node_of(from), job_.node_of(to), bytes, {}, delivered.firing(), format});
  if (const Time now = job_.kernel.now(); paced_until > now) co_await job_.kernel.sleep(paced_until - now);
  co_await delivered;
}

namespace {
std::int64_t requests_of(Bytes bytes) { return std::max<std::int64_t>(1, (bytes + 63) / 64); }
}  // namespace

Task<> GeminiNic::put(Rank initiator, Rank target, Bytes bytes, Engine engine, Signal* arrived) {
  if (engine == Engine::fma) {
    co_await job_.cores.run(initiator, p_.fma_post_cpu + requests_of(bytes) * p_.fma_request_cpu, node::CpuUse::send);
    co_await transfer(initiator, target, bytes, &put_format_);
  } else {
    co_await job_.cores.run(initiator, p_.bte_post_cpu, node::CpuUse::send);
    // The last bytes the engine lets out arrive one latency later.
    const Time engine_done = co_await bte_start(initiator, bytes);
    co_await bte_stream(initiator, target, bytes, &put_format_, engine_done + small_latency(initiator, target));
  }
  if (arrived) arrived->fire();
  co_await job_.kernel.sleep(small_latency(target, initiator));  // PUT responses complete it
}

// A GET: a request packet to the target, the data back in GET responses. With the BTE the
// initiator's engine paces the responses.
Task<> GeminiNic::get(Rank initiator, Rank target, Bytes bytes, Engine engine, bool charge_post) {
  const Time post = engine == Engine::fma ? p_.fma_post_cpu + requests_of(bytes) * p_.fma_request_cpu : p_.bte_post_cpu;
  if (charge_post)
    co_await job_.cores.run(initiator, post, node::CpuUse::send);
  else
    co_await job_.kernel.sleep(post);
  if (engine == Engine::fma) {
    co_await transfer(initiator, target, 0, &request_format_);
    co_return co_await transfer(target, initiator, bytes, &get_format_);
  }
  // The engine paces the GET requests; the last response is back one round trip after the last.
  const Time engine_done = co_await bte_start(initiator, bytes);
  const Time round_trip = small_latency(initiator, target) + small_latency(target, initiator);
  co_await transfer(initiator, target, 0, &request_format_);
  co_await bte_stream(target, initiator, bytes, &get_format_, engine_done + round_trip);
}

Time GeminiNic::get_zero_load(Rank initiator, Rank target, Bytes bytes, Engine engine) const {
  const Time there_and_back = small_latency(initiator, target) + small_latency(target, initiator);
  const Rate link = slowest_link(target, initiator);
  const Time wire = link > 0 ? transfer_time(get_format_.wire_bytes(bytes), link) : 0;
  if (engine == Engine::fma) return p_.fma_post_cpu + requests_of(bytes) * p_.fma_request_cpu + there_and_back + wire;
  // The responses stream behind the request's leg, or the engine's pacing ends one round trip early.
  return p_.bte_post_cpu + p_.bte_setup + there_and_back + std::max(wire, transfer_time(bytes, p_.bte_bandwidth));
}

Time GeminiNic::register_memory(Rank r, std::uint64_t buffer, Bytes bytes) {
  return registered_.holds(r, buffer) ? 0 : registration_cost(bytes);
}

Time GeminiNic::registration_cost(Bytes bytes) const {
  return nic::registration_cost(p_.registration_cpu, p_.registration_page_cpu, p_.page_size, bytes);
}

Rate GeminiNic::slowest_link(Rank a, Rank b) const {
  const auto na = job_.node_of(a), nb = job_.node_of(b);
  return na == nb ? 0 : net::route_cost(*job_.machine.topology, na, nb).bottleneck;
}

Time GeminiNic::small_latency(Rank a, Rank b) const {
  const auto na = job_.node_of(a), nb = job_.node_of(b);
  const auto& machine = job_.machine;
  if (na == nb) return machine.node.memcpy_latency;
  return machine.node.nic_latency + net::route_cost(*machine.topology, na, nb).latency;
}

}  // namespace torsim::nic
