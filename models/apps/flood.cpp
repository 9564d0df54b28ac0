// Flood: rank 0 streams windows of messages to 1..k neighbouring nodes at once, each over a
// distinct torus link (+d0, -d0, +d1, -d1, ...); with "bidirectional" the neighbours stream
// back at the same time. Measures how bandwidth scales with the links in use. The messages are
// two-sided sends, or non-blocking puts synced at the end of each window.
#include <map>

#include "models/apps/micro.hpp"

namespace torsim::apps {
namespace {

constexpr ChoiceName<bool> kOperationNames[] = {{"send_recv", false}, {"put", true}};

struct FloodParams {
  std::vector<std::int64_t> links;
  std::vector<Bytes> sizes;
  std::int64_t window = 0;
  std::int64_t iterations = 0;
  bool bidirectional = false;
  bool puts = false;
};
using P = FloodParams;
constexpr Field<P> kFields[] = {
    workload_name<P>(),
    bind<&P::links>(
        {"links", ParamKind::integer_list, "[1, 2, 4, 6]", "", "1", "12", "numbers of links flooded at once", "-"}),
    bind<&P::sizes>({"sizes", ParamKind::size_list, R"({"from": "512B", "to": "1MiB", "factor": 4})", "B", "1B", "1GiB",
                     "message sizes swept", "-"}),
    bind<&P::window>(
        {"window", ParamKind::integer, "16", "", "1", "100000", "messages in flight per link per window", "-"}),
    bind<&P::iterations>({"iterations", ParamKind::integer, "4", "", "1", "10000000", "windows per point", "-"}),
    bind<&P::bidirectional>(
        {"bidirectional", ParamKind::boolean, "true", "", "", "", "neighbours flood back at the same time", "-"}),
    bind_choice<&P::puts, kOperationNames>(
        {"operation", ParamKind::choice, "send_recv", "", "", "",
         "send_recv: Isend/Irecv; put: non-blocking puts, synced at the end of each window", "-", "send_recv|put"}),
};
constexpr auto kSpecs = specs_of(kFields);
const ParamTable kParams{"workload (name: flood)", "Bandwidth over 1..k distinct torus links at once.", kSpecs};

constexpr rt::Tag kData = 1;
constexpr rt::Tag kAck = 2;

// One node on each distinct (dimension, direction) link out of `node`'s router, in the order
// +d0, -d0, +d1, -d1, ... Size-2 rings are skipped: both directions reach the same node.
std::vector<NodeId> link_neighbours(const topo::Topology& t, NodeId node) {
  std::map<topo::RouterId, NodeId> node_on_router;
  for (NodeId n = t.node_count() - 1; n >= 0; --n) node_on_router[t.router_of(n)] = n;
  std::map<std::pair<int, int>, NodeId> by_direction;  // (dim, -direction) sorts + before -
  for (const topo::LinkId id : t.network_links_from(t.router_of(node))) {
    const auto& link = t.link(id);
    if (link.dim < 0) continue;
    const auto target = node_on_router.find(link.to);
    if (target == node_on_router.end()) continue;
    by_direction.emplace(std::make_pair(int{link.dim}, -int{link.direction}), target->second);
  }
  std::vector<NodeId> out;
  std::map<NodeId, int> seen;
  for (const auto& [_, n] : by_direction) ++seen[n];
  for (const auto& [_, n] : by_direction)
    if (seen[n] == 1) out.push_back(n);
  return out;
}

class Flood final : public Workload {
 public:
  explicit Flood(const ParamReader& r) : p_(parse_fields(r, kFields)) {}

  void check(const rt::Job& job, const Where& where) const override {
    Workload::check(job, where);
    const auto neighbours = link_neighbours(*job.machine.topology, job.node_of(0));
    for (auto k : p_.links)
      if (k > static_cast<std::int64_t>(neighbours.size()))
        (where / "links")
            .fail("flooding " + std::to_string(k) + " links needs as many distinct neighbours; node " +
                  std::to_string(job.node_of(0)) + " has " + std::to_string(neighbours.size()));
    for (NodeId n : neighbours)
      if (rank_on(job, n) < 0) where.fail("node " + std::to_string(n) + " (a neighbour of rank 0) is not in the job");
  }

  void start(rt::MessagingLayer& layer) override {
    const auto& job = layer.job();
    neighbour_ranks_.clear();
    for (NodeId n : link_neighbours(*job.machine.topology, job.node_of(0))) neighbour_ranks_.push_back(rank_on(job, n));
    elapsed_.assign(p_.links.size() * p_.sizes.size(), 0);
    layer.kernel().spawn(root(Comm(layer, 0)));
    for (std::size_t i = 0; i < neighbour_ranks_.size(); ++i)
      layer.kernel().spawn(neighbour(Comm(layer, neighbour_ranks_[i]), static_cast<int>(i)));
  }

  void finish(RunOutput& out) const override {
    auto& table = out.add_series("flood", {"links", "size_bytes", "bandwidth_MBps"});
    double peak = 0;
    for (std::size_t l = 0; l < p_.links.size(); ++l) {
      for (std::size_t s = 0; s < p_.sizes.size(); ++s) {
        const Bytes moved = p_.links[l] * p_.window * p_.iterations * p_.sizes[s] * (p_.bidirectional ? 2 : 1);
        const double mbps = megabytes_per_second(moved, elapsed_[l * p_.sizes.size() + s]);
        table.add({static_cast<double>(p_.links[l]), static_cast<double>(p_.sizes[s]), mbps});
        peak = std::max(peak, mbps);
      }
    }
    out.metrics["peak_bandwidth_MBps"] = peak;
  }

 private:
  static Rank rank_on(const rt::Job& job, NodeId n) {
    for (Rank r = 0; r < job.size(); ++r)
      if (job.node_of(r) == n) return r;
    return -1;
  }

  Task<> root(Comm c) {
    for (std::size_t l = 0; l < p_.links.size(); ++l) {
      for (std::size_t s = 0; s < p_.sizes.size(); ++s) {
        const Time begin = c.now();
        for (std::int64_t k = 0; k < p_.iterations; ++k)
          co_await root_window(c, static_cast<int>(p_.links[l]), p_.sizes[s]);
        elapsed_[l * p_.sizes.size() + s] = c.now() - begin;
      }
    }
  }

  // One message of the flood: a send, or a non-blocking put.
  Task<rt::Request> post(Comm c, Rank to, Bytes size) const {
    if (p_.puts) co_return co_await c.iput(to, size);
    co_return co_await c.isend(to, size, kData);
  }

  Task<> root_window(Comm c, int links, Bytes size) {
    std::vector<rt::Request> pending;
    if (p_.bidirectional && !p_.puts)
      for (int i = 0; i < links; ++i)
        for (std::int64_t m = 0; m < p_.window; ++m) pending.push_back(c.irecv(neighbour_ranks_[i], kData));
    for (std::int64_t m = 0; m < p_.window; ++m)
      for (int i = 0; i < links; ++i) pending.push_back(co_await post(c, neighbour_ranks_[i], size));
    co_await Comm::wait_all(pending);
    // Puts need no receive: the root acknowledges each window too, so that no side runs ahead.
    if (p_.puts)
      for (int i = 0; i < links; ++i) co_await c.send(neighbour_ranks_[i], 0, kAck);
    for (int i = 0; i < links; ++i) co_await c.recv(neighbour_ranks_[i], kAck);
  }

  Task<> neighbour(Comm c, int index) {
    for (const auto links : p_.links) {
      if (index >= links) continue;
      for (const Bytes size : p_.sizes) {
        for (std::int64_t k = 0; k < p_.iterations; ++k) {
          std::vector<rt::Request> pending;
          if (!p_.puts)
            for (std::int64_t m = 0; m < p_.window; ++m) pending.push_back(c.irecv(0, kData));
          if (p_.bidirectional)
            for (std::int64_t m = 0; m < p_.window; ++m) pending.push_back(co_await post(c, 0, size));
          co_await Comm::wait_all(pending);
          co_await c.send(0, 0, kAck);
          if (p_.puts) co_await c.recv(0, kAck);
        }
      }
    }
  }

  const FloodParams p_;
  std::vector<Rank> neighbour_ranks_;
  std::vector<Time> elapsed_;
};

}  // namespace

const WorkloadEntry kFloodWorkload{"flood", "rank 0 floods 1..k neighbours over distinct torus links at once", &kParams,
                                   &make_from<Flood>};

}  // namespace torsim::apps
