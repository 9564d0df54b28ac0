#include "models/nic/via.hpp"
#include "sim/config/fields.hpp"

#include <algorithm>

namespace torsim::nic {

namespace {
using P = ViaParams;
constexpr Field<P> kFields[] = {
    unbound<P>({"model", ParamKind::text, kRequired, "", "", "", "via", "-"}),
    bind<&P::post_cpu>({"post_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                        "VipPostSend or VipPostRecv on the caller's core: build a descriptor, ring the VI's doorbell",
                        "preset"}),
    bind<&P::completion_poll_cpu>({"completion_poll_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                   "VipRecvDone that finds a completed receive descriptor", "preset"}),
    bind<&P::flag_poll_cpu>({"flag_poll_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                             "a spin on a flag in memory that sees it change (the line comes from memory)", "preset"}),
    bind<&P::receive_descriptor>(
        {"receive_descriptor", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "target NIC, send/receive only: fetch the posted receive descriptor, write its status back", "preset"}),
    bind<&P::receive_credits>(
        {"receive_credits", ParamKind::integer, "16", "", "1", "100000",
         "receive descriptors kept posted per connection: sends a sender may have outstanding to one receiver",
         "[C-code] ARMCI on cLAN keeps pools of 16 descriptors (GlobalArrays/ga armci/src/via.c @ 0b06aeff)"}),
    bind<&P::flag_bytes>({"flag_bytes", ParamKind::size, "8B", "B", "0B", "64B",
                          "a completion flag (sequence number) written after the data in the same RDMA write",
                          "assumption: one 64-bit word"}),
    bind<&P::registration_cpu>(
        {"registration_cpu", ParamKind::time, kRequired, "ns", "0ns", "1s", "VipRegisterMem, per call", "preset"}),
    bind<&P::registration_page_cpu>({"registration_page_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                     "VipRegisterMem, per page pinned", "preset"}),
    bind<&P::page_size>({"page_size", ParamKind::size, "4KiB", "B", "4KiB", "1GiB", "page size of registered memory",
                         "[C] the IA-32 page size, 4 KiB (Intel SDM vol. 3, paging); VipRegisterMem pins whole pages"}),
};
constexpr auto kSpecs = specs_of(kFields);

std::uint64_t pair_key(Rank src, Rank dst) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) | static_cast<std::uint32_t>(dst);
}

}  // namespace

const ParamTable kViaParams{"machine.nic (model: via)", "A VIA NIC (cLAN) and the VIPL calls' costs.", kSpecs};

ViaParams parse_via(const ParamReader& r) { return parse_fields(r, kFields); }

ViaParams via_of(const Machine& machine, const Where& where) {
  if (machine.nic.value("model", std::string()) != "via")
    where.fail("this messaging layer needs a VIA NIC; machine '" + machine.name +
               "' has no \"nic\": {\"model\": \"via\"} (the clan-16 preset has one)");
  return parse_via(ParamReader(machine.nic, machine.where / "nic", kViaParams));
}

// ---- Credits

Semaphore& Credits::pair(Rank src, Rank dst) { return pairs_.try_emplace(pair_key(src, dst), per_pair_).first->second; }

int Credits::available(Rank src, Rank dst) { return static_cast<int>(pair(src, dst).available()); }

Task<> Credits::take(Rank src, Rank dst) {
  co_await pair(src, dst).acquire();  // a node-based map: the semaphore stays put
}

void Credits::give_back(Rank src, Rank dst) { nic_.job().kernel.spawn(send_back(src, dst)); }

Task<> Credits::send_back(Rank src, Rank dst) {
  co_await nic_.header(dst, src);
  pair(src, dst).release(nic_.job().kernel);
}

// ---- NIC

ViaNic::ViaNic(node::Job& job, const ViaParams& params)
    : job_(job),
      p_(params),
      credits_(*this, params.receive_credits),
      engine_free_(static_cast<std::size_t>(job.machine.node_count()), 0),
      registered_(job.size(), 0) {}

// The engine takes a message when it is done with the ones posted before it, and is busy for
// as long as the message's wire bytes take at the node's injection rate; every packet the NIC
// sends goes through it, so a message's packets are on the link before the next message's.
Task<> ViaNic::transfer(Rank src, Rank dst, Bytes bytes, Callback left) {
  const auto& machine = job_.machine;
  Time& free = engine_free_[static_cast<std::size_t>(job_.node_of(src))];
  const Time start = std::max(free, job_.kernel.now());
  free = start + transfer_time(machine.packet.wire_bytes(bytes), machine.node.injection_bandwidth);
  if (start > job_.kernel.now()) co_await job_.kernel.sleep(start - job_.kernel.now());
  Signal landed(job_.kernel);
  job_.network.start({job_.node_of(src), job_.node_of(dst), bytes, left, landed.firing()});
  co_await landed;
}

Task<> ViaNic::send(Rank src, Rank dst, Bytes bytes, Callback left) {
  co_await transfer(src, dst, bytes, left);
  co_await job_.kernel.sleep(p_.receive_descriptor);
}

Task<> ViaNic::rdma_write(Rank src, Rank dst, Bytes bytes, Callback left) {
  co_await transfer(src, dst, bytes + p_.flag_bytes, left);
}

Time ViaNic::register_memory(Rank r, std::uint64_t buffer, Bytes bytes) {
  if (registered_.holds(r, buffer)) return 0;
  return registration_cost(p_.registration_cpu, p_.registration_page_cpu, p_.page_size, bytes);
}

}  // namespace torsim::nic
