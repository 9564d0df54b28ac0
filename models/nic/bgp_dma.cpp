#include "models/nic/bgp_dma.hpp"
#include "sim/config/fields.hpp"

#include <algorithm>
#include <utility>

namespace torsim::nic {

namespace {
using P = BgpParams;
constexpr Field<P> kFields[] = {
    unbound<P>({"model", ParamKind::text, kRequired, "", "", "", "bgp", "-"}),
    bind<&P::remote_get_turnaround>(
        {"remote_get_turnaround", ParamKind::time, kRequired, "ns", "0ns", "1ms",
         "target DMA: from a remote-get packet's arrival to the injection of what its descriptor describes", "preset"}),
    bind<&P::descriptor_bytes>({"descriptor_bytes", ParamKind::size, "32B", "B", "0B", "1KiB",
                                "a DMA descriptor, the payload of a remote get",
                                "[C-code] BG/P DMA SPI DMA_Descriptors.h: 32 B descriptors"}),
    bind<&P::ack_bytes>({"ack_bytes", ParamKind::size, "16B", "B", "0B", "1KiB",
                         "payload of a memory-FIFO completion packet", "preset"}),
    bind<&P::tree_bandwidth>({"tree_bandwidth", ParamKind::rate, kRequired, "MB/s", "1MB/s", "10000GB/s",
                              "collective network: payload rate of one tree link per direction", "preset"}),
    bind<&P::tree_hop_latency>({"tree_hop_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                "collective network: latency of one tree hop", "preset"}),
    bind<&P::tree_fanout>({"tree_fanout", ParamKind::integer, "2", "", "1", "16",
                           "children per node of the collective-network tree", "preset"}),
    bind<&P::tree_packet>({"tree_packet", ParamKind::size, "256B", "B", "1B", "64KiB",
                           "collective network: payload per packet (operations are padded to whole packets)",
                           "preset"}),
    bind<&P::barrier_latency>({"barrier_latency", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                               "global barrier network: from the last rank's entry to every rank's release", "preset"}),
};
constexpr auto kSpecs = specs_of(kFields);
}  // namespace

const ParamTable kBgpParams{"machine.nic (model: bgp)",
                            "Blue Gene/P torus DMA engine, collective (tree) network and barrier network.", kSpecs};

BgpParams parse_bgp(const ParamReader& r) { return parse_fields(r, kFields); }

BgpParams bgp_of(const Machine& machine, const Where& where) {
  if (machine.nic.value("model", std::string()) != "bgp")
    where.fail("this messaging layer needs a Blue Gene/P NIC; machine '" + machine.name +
               "' has no \"nic\": {\"model\": "
               "\"bgp\"} (the intrepid presets have one)");
  return parse_bgp(ParamReader(machine.nic, machine.where / "nic", kBgpParams));
}

namespace {

// Levels below the root of a complete tree of `fanout` children per node over `nodes` nodes.
int complete_tree_depth(std::int64_t nodes, int fanout) {
  int depth = 0;
  std::int64_t covered = 1, level = 1;
  while (covered < nodes) {
    level *= fanout;
    covered += level;
    ++depth;
  }
  return depth;
}

// One network transfer as an awaitable: resumes at delivery; runs `injected` (if any) when
// the source has sent its last byte.
class Transfer {
 public:
  Transfer(net::NetworkModel& network, topo::NodeId from, topo::NodeId to, Bytes bytes, Callback injected)
      : network_(network), request_{from, to, bytes, injected, {}, nullptr} {}
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    waiter_ = h;
    request_.on_delivered = {[](void* self, std::uint64_t) { static_cast<Transfer*>(self)->waiter_.resume(); }, this,
                             0};
    network_.start(request_);
  }
  void await_resume() const noexcept {}

 private:
  net::NetworkModel& network_;
  net::TransferRequest request_;
  std::coroutine_handle<> waiter_;
};

}  // namespace

BgpDma::BgpDma(node::Job& job, const BgpParams& params)
    : job_(job),
      p_(params),
      tree_depth_(complete_tree_depth(static_cast<std::int64_t>(job.placement.nodes.size()), params.tree_fanout)) {
  // A put's record is read again when its data lands and when its ack does, a network
  // crossing after it was last touched: asked for one event ahead.
  const auto prefetch_put = [](const void* ctx, std::uint64_t index) {
    __builtin_prefetch(&static_cast<const BgpDma*>(ctx)->puts_[static_cast<std::uint32_t>(index)]);
  };
  job.kernel.add_prefetcher(member_callback<BgpDma, &BgpDma::send_ack>(this).fn, prefetch_put);
  job.kernel.add_prefetcher(member_callback<BgpDma, &BgpDma::ack_landed>(this).fn, prefetch_put);
}

Task<> BgpDma::transfer(Rank from, Rank to, Bytes bytes, Callback injected) {
  co_await Transfer(job_.network, job_.node_of(from), job_.node_of(to), bytes, injected);
}

void BgpDma::start_transfer(Rank from, Rank to, Bytes bytes, Callback delivered, Callback injected) {
  job_.network.start({job_.node_of(from), job_.node_of(to), bytes, injected, delivered, nullptr});
}

Task<> BgpDma::remote_get(Rank initiator, Rank target, Bytes bytes, Callback data_injected) {
  co_await transfer(initiator, target, p_.descriptor_bytes);
  co_await job_.kernel.sleep(p_.remote_get_turnaround);
  co_await transfer(target, initiator, bytes, data_injected);
}

void BgpDma::start_put_with_ack(Rank initiator, Rank target, Bytes bytes, Callback acked) {
  const auto index = puts_.add({initiator, target, acked});
  job_.network.start({job_.node_of(initiator),
                      job_.node_of(target),
                      bytes + p_.descriptor_bytes,
                      {},
                      member_callback<BgpDma, &BgpDma::put_landed>(this, index),
                      nullptr});
}

void BgpDma::put_landed(std::uint64_t index) {
  job_.kernel.after(p_.remote_get_turnaround, member_callback<BgpDma, &BgpDma::send_ack>(this, index));
}

void BgpDma::send_ack(std::uint64_t index) {
  const PutInFlight& put = puts_[static_cast<std::uint32_t>(index)];
  job_.network.start({job_.node_of(put.target),
                      job_.node_of(put.initiator),
                      p_.ack_bytes,
                      {},
                      member_callback<BgpDma, &BgpDma::ack_landed>(this, index),
                      nullptr});
}

void BgpDma::ack_landed(std::uint64_t index) {
  const Callback acked = puts_[static_cast<std::uint32_t>(index)].acked;
  puts_.release(static_cast<std::uint32_t>(index));
  acked();
}

Task<> BgpDma::put_with_ack(Rank initiator, Rank target, Bytes bytes) {
  Signal acked(job_.kernel);
  start_put_with_ack(initiator, target, bytes, acked.firing());
  co_await acked;
}

// The last to arrive sets when everyone leaves.
void Meeting::arrive(std::coroutine_handle<> h, Time release) {
  waiting_.push_back(h);
  if (static_cast<int>(waiting_.size()) < participants_) return;
  // Everyone reads the result after the release, and nobody enters again before it.
  result_ = std::exchange(sum_, 0);
  for (auto w : waiting_) kernel_.resume_at(release, w);
  waiting_.clear();
}

Time BgpDma::tree_operation(Time entered, Bytes bytes, int passes, bool up, bool down) {
  const Bytes packets = std::max<Bytes>(1, (bytes + p_.tree_packet - 1) / p_.tree_packet);
  const Time stream = transfer_time(packets * p_.tree_packet, p_.tree_bandwidth);
  const Time climb = static_cast<Time>((up ? tree_depth_ : 0) + (down ? tree_depth_ : 0)) * p_.tree_hop_latency;
  const Time duration = static_cast<Time>(passes) * (climb + stream);
  tree_.forget_before(job_.kernel.now());
  const auto plan = tree_.plan(entered, duration);
  tree_.book(plan);
  return plan.end;
}

}  // namespace torsim::nic
