// The Cray Gemini NIC as uGNI exposes it: SMSG mailboxes with credits, FMA (processor-driven,
// 64 B network requests) and BTE (DMA engine) puts and gets, the wire formats of PUT and GET,
// memory registration with a cache, and the CPU costs of the uGNI calls. Messaging layers
// (uGNI-level, MPI, Charm++ over uGNI) drive it; it charges the uGNI calls' CPU time on the
// calling rank and moves bytes through the network model.
#pragma once

#include <unordered_map>
#include <vector>

#include "models/network/link_timeline.hpp"
#include "models/nic/registration_cache.hpp"
#include "models/node/job.hpp"
#include "sim/core/wait.hpp"

namespace torsim::nic {

using node::Rank;

// Every field is read by parse_gemini from its declaration in gemini.cpp, which holds the default.
struct GeminiParams {
  Bytes smsg_max_small = 0, smsg_max_medium = 0, smsg_max_large = 0;  // by job size
  int smsg_credits = 0;
  Bytes smsg_header = 0;
  Time smsg_send_cpu = 0, smsg_receive_cpu = 0, cq_poll_cpu = 0;
  Time fma_post_cpu = 0, fma_request_cpu = 0;  // per 64 B request: the CPU drives FMA
  Time bte_post_cpu = 0, bte_setup = 0;
  Rate bte_bandwidth = 0;
  Bytes get_request = 0, get_response_overhead = 0;  // GET wire format per 64 B
  Time registration_cpu = 0, registration_page_cpu = 0;
  Bytes page_size = 0;
};

extern const ParamTable kGeminiParams;
GeminiParams parse_gemini(const ParamReader& r);
/// The machine's "nic" object as Gemini parameters; an error if the machine has no Gemini.
GeminiParams gemini_of(const Machine& machine, const Where& where);

enum class Engine { fma, bte };

class GeminiNic {
 public:
  GeminiNic(node::Job& job, const GeminiParams& params);
  const GeminiParams& params() const { return p_; }

  /// SMSG maximum message size for this job (uGNI mailboxes shrink as jobs grow).
  Bytes smsg_max() const;
  /// Sends a small message into dst's mailbox: charges GNI_SmsgSend on src's core, waits for
  /// a mailbox credit if none is left, and resumes when the message is in the mailbox.
  Task<> smsg(Rank src, Rank dst, Bytes bytes);
  /// The receiver took a message out of its mailbox: the credit returns to the sender one
  /// zero-load latency later.
  void release(Rank src, Rank dst);
  /// CPU time for the receiver to find and read one SMSG (CQ poll + GNI_SmsgGetNext).
  node::CpuCharge smsg_receive_cost() const {
    return node::CpuCharge(node::CpuUse::poll, p_.cq_poll_cpu).add(node::CpuUse::receive, p_.smsg_receive_cpu);
  }

  /// RDMA put of `bytes` from initiator to target: resumes when the initiator's CQ reports
  /// completion (the responses are back). `arrived`, if given, fires when the data is at the
  /// target (where a remote event would appear).
  Task<> put(Rank initiator, Rank target, Bytes bytes, Engine engine, Signal* arrived = nullptr);
  /// RDMA get: resumes when the data is at the initiator. `charge_post` false: the initiator's
  /// core is already accounted for (a blocking call spinning on it), the post only takes time.
  Task<> get(Rank initiator, Rank target, Bytes bytes, Engine engine, bool charge_post = true);
  /// How long get() takes on a quiet machine, from its post to the data's arrival.
  Time get_zero_load(Rank initiator, Rank target, Bytes bytes, Engine engine) const;

  /// CPU time to register `bytes` of `buffer` on rank r, or 0 when the registration cache has
  /// it; registers it.
  Time register_memory(Rank r, std::uint64_t buffer, Bytes bytes);
  /// CPU time of one GNI_MemRegister of `bytes`, bypassing the cache (memory registered for
  /// one transfer and released after it).
  Time registration_cost(Bytes bytes) const;
  /// One-way zero-load latency of a header-only packet between two ranks' nodes.
  Time small_latency(Rank a, Rank b) const;
  /// The lowest link rate on the route from a's node to b's (0 on one node).
  Rate slowest_link(Rank a, Rank b) const;

  const PacketFormat& put_format() const { return put_format_; }
  const PacketFormat& get_format() const { return get_format_; }

 private:
  // Credits come back one zero-load latency after the receiver releases a slot; they are
  // reclaimed lazily on the next send (no event per message), or by an event only when a
  // sender is waiting for one.
  struct Mailbox {
    int credits;
    std::vector<Time> returning;  // times credits come back, in order
    WaitQueue waiting;
    bool wake_scheduled = false;
  };
  Mailbox& mailbox(Rank src, Rank dst);
  void reclaim(Mailbox& m);
  /// Schedules one wake-up for the mailbox's waiters at its next returning credit.
  void schedule_wake(Mailbox& m, std::uint64_t key);
  Task<> transfer(Rank from, Rank to, Bytes bytes, const PacketFormat* format);
  /// Books the node's DMA engine for one transfer (its set-up, then the payload at the engine's
  /// rate) and resumes when the set-up is done; returns when the engine has paced the payload.
  Task<Time> bte_start(Rank r, Bytes bytes);
  /// Sends the payload through the network and resumes when it is delivered and the engine
  /// (done pacing at `engine_done`) has let it all out.
  Task<> bte_stream(Rank from, Rank to, Bytes bytes, const PacketFormat* format, Time engine_done);
  void wake_sender(std::uint64_t pair);

  node::Job& job_;
  GeminiParams p_;
  PacketFormat put_format_, get_format_, request_format_;
  std::unordered_map<std::uint64_t, Mailbox> mailboxes_;
  std::vector<net::LinkTimeline> bte_;  // per node: the DMA engine
  RegistrationCache registered_;
};

}  // namespace torsim::nic
