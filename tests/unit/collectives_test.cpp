// The collective algorithms (models/collectives): each one's message schedule (who sends how
// many bytes to whom in which step) on a one-port, unit-latency network, and its completion
// and result on a zero-latency network; then the installed defaults over a real layer.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "models/collectives/algorithms.hpp"
#include "models/collectives/collectives.hpp"
#include "models/collectives/group.hpp"
#include "models/messaging/messaging.hpp"
#include "tests/support/layer_job.hpp"

using namespace torsim;
using namespace torsim::test;
using coll::PointToPoint;
using rt::Rank;
using rt::Request;

namespace {

// One message as the schedule sees it: the step it started in, its phase, who to whom, bytes.
struct Sent {
  int step, phase;
  Rank src, dst;
  Bytes bytes;
  bool operator<(const Sent& o) const {
    return std::tie(step, phase, src, dst, bytes) < std::tie(o.step, o.phase, o.src, o.dst, o.bytes);
  }
  bool operator==(const Sent& o) const = default;
};

// A receive as posted: the step it was posted in, by whom, from whom.
struct Posted {
  int step;
  Rank self, src;
  bool operator<(const Posted& o) const { return std::tie(step, self, src) < std::tie(o.step, o.self, o.src); }
  bool operator==(const Posted& o) const = default;
};

// A network of `n` ranks where a rank sends one message at a time, each taking `step` to
// arrive (one-port, unit latency: a message's start time counts its step), or arriving at
// once (step 0: the zero-latency network). Receives match by (source, phase) in order.
class TestNet {
 public:
  TestNet(int n, Time step)
      : n_(n),
        step_(step),
        requests_(kernel),
        port_free_(static_cast<std::size_t>(n), 0),
        mail_(static_cast<std::size_t>(n)) {}
  ~TestNet() { kernel.shutdown(); }

  class Channel;
  Kernel kernel;
  std::vector<Sent> sent;
  std::vector<Posted> posted;

  int step_of(Time t) const { return step_ > 0 ? static_cast<int>(t / step_) : 0; }
  /// Messages sent and not received, or receives posted and not matched.
  std::size_t leftovers() const {
    std::size_t left = 0;
    for (const auto& m : mail_) left += m.arrived.size() + m.waiting.size();
    return left;
  }

 private:
  using Key = std::pair<Rank, int>;  // (source, phase)
  struct Mailbox {
    std::multimap<Key, rt::Envelope> arrived;
    std::multimap<Key, std::uint32_t> waiting;
  };

  Request receive(Rank self, Rank src, int phase) {
    posted.push_back({step_of(kernel.now()), self, src});
    const auto index = requests_.allocate();
    Mailbox& m = mail_[static_cast<std::size_t>(self)];
    if (auto it = m.arrived.find({src, phase}); it != m.arrived.end()) {
      requests_.complete(index, it->second);
      m.arrived.erase(it);
    } else {
      m.waiting.emplace(Key{src, phase}, index);
    }
    return Request(&requests_, index);
  }

  Task<Request> send(Rank self, Rank dst, Bytes bytes, std::uint64_t word, int phase) {
    REQUIRE(dst >= 0);
    REQUIRE(dst < n_);
    REQUIRE(dst != self);
    Time& free = port_free_[static_cast<std::size_t>(self)];
    const Time start = std::max(free, kernel.now());
    free = start + step_;
    sent.push_back({step_of(start), phase, self, dst, bytes});
    const auto request = requests_.allocate();
    kernel.spawn(deliver(start + step_ - kernel.now(), {self, dst, phase, bytes, word}, request));
    return Task<Request>::ready(Request(&requests_, request));
  }

  Task<> deliver(Time delay, rt::Envelope e, std::uint32_t send_request) {
    co_await kernel.sleep(delay);
    requests_.complete(send_request);
    Mailbox& m = mail_[static_cast<std::size_t>(e.dst)];
    if (auto it = m.waiting.find({e.src, e.tag}); it != m.waiting.end()) {
      requests_.complete(it->second, e);
      m.waiting.erase(it);
    } else {
      m.arrived.emplace(Key{e.src, e.tag}, e);
    }
  }

  int n_;
  Time step_;
  rt::RequestPool requests_;
  std::vector<Time> port_free_;
  std::vector<Mailbox> mail_;
};

class TestNet::Channel final : public PointToPoint {
 public:
  Channel(TestNet& net, Rank self) : net_(net), self_(self) {}
  Rank rank() const override { return self_; }
  int size() const override { return net_.n_; }
  Request irecv(Rank src) override { return net_.receive(self_, src, phase_); }
  Task<Request> isend(Rank dst, Bytes bytes, std::uint64_t word) override {
    return net_.send(self_, dst, bytes, word, phase_);
  }
  Task<> combine(Bytes) override { co_return; }
  void next_phase() override { ++phase_; }
  Task<> finish(Bytes) override { co_return; }

 private:
  TestNet& net_;
  Rank self_;
  int phase_ = 0;
};

// Each rank's contribution: distinct, and sums of distinct sets differ in practice.
std::uint64_t contribution(Rank r) { return 0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(r + 1); }
std::uint64_t sum_of_all(int n) {
  std::uint64_t sum = 0;
  for (Rank r = 0; r < n; ++r) sum += contribution(r);
  return sum;
}

using Algorithm = std::function<Task<std::uint64_t>(PointToPoint&)>;

struct Outcome {
  std::vector<std::uint64_t> results;
  std::vector<Time> done;
  std::vector<Sent> sent;
  std::vector<Posted> posted;
  std::size_t leftovers = 0;
  std::size_t live = 0;
};

Task<> run_rank(TestNet& net, Rank r, const Algorithm& algorithm, Outcome& out) {
  TestNet::Channel channel(net, r);
  out.results[static_cast<std::size_t>(r)] = co_await algorithm(channel);
  out.done[static_cast<std::size_t>(r)] = net.kernel.now();
}

Outcome run(int n, Time step, const Algorithm& algorithm) {
  TestNet net(n, step);
  Outcome out{std::vector<std::uint64_t>(static_cast<std::size_t>(n)),
              std::vector<Time>(static_cast<std::size_t>(n), -1),
              {},
              {},
              0,
              0};
  for (Rank r = 0; r < n; ++r) net.kernel.spawn(run_rank(net, r, algorithm, out));
  net.kernel.run();
  out.sent = net.sent;
  out.posted = net.posted;
  std::sort(out.sent.begin(), out.sent.end());
  std::sort(out.posted.begin(), out.posted.end());
  out.leftovers = net.leftovers();
  out.live = net.kernel.live_processes();
  return out;
}

/// The schedule on the one-port, unit-latency network.
std::vector<Sent> schedule(int n, const Algorithm& algorithm) { return run(n, kMicrosecond, algorithm).sent; }

std::vector<Sent> sorted(std::vector<Sent> s) {
  std::sort(s.begin(), s.end());
  return s;
}

// Every algorithm with its expected result per rank (none where the result is unspecified:
// a reduce's or a gather's partial sums off the root).
struct Case {
  std::string name;
  Algorithm algorithm;
  std::function<std::optional<std::uint64_t>(int n, Rank r)> expected;
};

Task<std::uint64_t> barrier_then_zero(PointToPoint& p) {
  co_await coll::dissemination_barrier(p);
  co_return 0;
}

// Block sizes that differ per rank (the v-variants), kept alive for the whole test run.
std::span<const Bytes> uneven(int n) {
  static std::map<int, std::vector<Bytes>> sizes;
  auto& v = sizes[n];
  if (v.empty())
    for (int r = 0; r < n; ++r) v.push_back(7 * r % 5 + 1);
  return v;
}

std::vector<Case> all_cases(Rank root) {
  using Expected = std::optional<std::uint64_t>;
  const auto everyone_sum = [](int n, Rank) -> Expected { return sum_of_all(n); };
  const auto root_sum = [root](int n, Rank r) -> Expected {
    if (r == root % n) return sum_of_all(n);
    return std::nullopt;
  };
  std::vector<Case> cases{
      {"dissemination barrier", [](PointToPoint& p) { return barrier_then_zero(p); },
       [](int, Rank) -> Expected { return 0; }},
      {"binomial bcast",
       [root](PointToPoint& p) { return coll::binomial_bcast(p, root % p.size(), 64, contribution(p.rank())); },
       [root](int n, Rank) -> Expected { return contribution(root % n); }},
      {"recursive-doubling allreduce",
       [](PointToPoint& p) { return coll::recursive_doubling_allreduce(p, 8, contribution(p.rank())); }, everyone_sum},
      {"binomial gather",
       [root](PointToPoint& p) { return coll::binomial_gather(p, root % p.size(), 16, contribution(p.rank())); },
       root_sum},
      {"linear gather",
       [root](PointToPoint& p) { return coll::linear_gather(p, root % p.size(), 16, contribution(p.rank())); },
       root_sum},
      {"pairwise alltoall", [](PointToPoint& p) { return coll::pairwise_alltoall(p, 32, contribution(p.rank())); },
       everyone_sum},
      {"linear alltoall", [](PointToPoint& p) { return coll::linear_alltoall(p, 32, contribution(p.rank())); },
       everyone_sum},
  };
  const auto prefix = [](int, Rank r) -> Expected { return sum_of_all(r + 1); };
  const auto below = [](int, Rank r) -> Expected { return sum_of_all(r); };
  const auto root_word = [root](int n, Rank) -> Expected { return contribution(root % n); };
  cases.push_back(
      {"binomial scatter",
       [root](PointToPoint& p) { return coll::binomial_scatter(p, root % p.size(), 12, contribution(p.rank())); },
       root_word});
  cases.push_back({"linear scatterv",
                   [root](PointToPoint& p) {
                     return coll::linear_scatterv(p, root % p.size(), coll::Blocks(uneven(p.size())),
                                                  contribution(p.rank()));
                   },
                   root_word});
  cases.push_back({"linear gatherv",
                   [root](PointToPoint& p) {
                     return coll::linear_gather(p, root % p.size(), 3 * p.rank(), contribution(p.rank()));
                   },
                   root_sum});
  cases.push_back(
      {"ring allgatherv",
       [](PointToPoint& p) { return coll::ring_allgatherv(p, coll::Blocks(uneven(p.size())), contribution(p.rank())); },
       everyone_sum});
  cases.push_back({"recursive-doubling allgatherv",
                   [](PointToPoint& p) {
                     return coll::recursive_doubling_allgatherv(p, coll::Blocks(uneven(p.size())),
                                                                contribution(p.rank()));
                   },
                   everyone_sum});
  cases.push_back({"pairwise alltoallv",
                   [](PointToPoint& p) {
                     return coll::pairwise_alltoallv(p, coll::Blocks(uneven(p.size())), contribution(p.rank()));
                   },
                   everyone_sum});
  cases.push_back({"linear alltoallv",
                   [](PointToPoint& p) {
                     return coll::linear_alltoallv(p, coll::Blocks(uneven(p.size())), contribution(p.rank()));
                   },
                   everyone_sum});
  cases.push_back({"pairwise reduce-scatter",
                   [](PointToPoint& p) {
                     return coll::pairwise_reduce_scatter(p, coll::Blocks(uneven(p.size())), contribution(p.rank()));
                   },
                   everyone_sum});
  cases.push_back({"recursive-doubling scan",
                   [](PointToPoint& p) { return coll::recursive_doubling_scan(p, 8, contribution(p.rank()), false); },
                   prefix});
  cases.push_back({"recursive-doubling exclusive scan",
                   [](PointToPoint& p) { return coll::recursive_doubling_scan(p, 8, contribution(p.rank()), true); },
                   below});
  for (int degree : {2, 3, 4, 8}) {
    cases.push_back({"k-nomial reduce, degree " + std::to_string(degree),
                     [root, degree](PointToPoint& p) {
                       return coll::knomial_reduce(p, root % p.size(), 8, contribution(p.rank()), degree);
                     },
                     root_sum});
    cases.push_back(
        {"reduce-bcast allreduce, degree " + std::to_string(degree),
         [degree](PointToPoint& p) { return coll::reduce_bcast_allreduce(p, 8, contribution(p.rank()), degree); },
         everyone_sum});
  }
  return cases;
}

bool power_of_two(int n) { return (n & (n - 1)) == 0; }

}  // namespace

TEST_CASE(
    "every collective algorithm completes at once on a zero-latency network, with every contribution "
    "where it belongs",
    "[collectives]") {
  for (int n : {1, 2, 3, 5, 6, 7, 8, 9, 12, 16, 17, 31, 32}) {
    for (Rank root : {0, 1, 4}) {
      for (const auto& c : all_cases(root)) {
        if (c.name.starts_with("recursive-doubling all") && !power_of_two(n)) continue;
        INFO(c.name << ", " << n << " ranks, root " << root % n);
        const Outcome out = run(n, 0, c.algorithm);
        CHECK(out.live == 0);
        CHECK(out.leftovers == 0);
        for (Rank r = 0; r < n; ++r) {
          INFO("rank " << r);
          CHECK(out.done[static_cast<std::size_t>(r)] == 0);
          if (const auto expected = c.expected(n, r)) CHECK(out.results[static_cast<std::size_t>(r)] == *expected);
        }
      }
    }
  }
}

TEST_CASE("the default selection is the selection table's defaults", "[collectives]") {
  const coll::Selection s = coll::default_selection();
  CHECK(s.reduce == coll::ReduceAlgorithm::binomial);
  CHECK(s.degree == 0);
  CHECK(s.allreduce == coll::AllreduceAlgorithm::automatic);
  CHECK(s.gather == coll::GatherAlgorithm::binomial);
  CHECK(s.alltoall == coll::AlltoallAlgorithm::pairwise);
  CHECK(s.alltoallv == coll::AlltoallAlgorithm::linear);
  CHECK(s.allgather == coll::AllgatherAlgorithm::automatic);
}

TEST_CASE("dissemination barrier: in round i every rank signals rank + 2^i", "[collectives]") {
  const auto s = schedule(6, [](PointToPoint& p) { return barrier_then_zero(p); });
  std::vector<Sent> expected;
  for (int round = 0; round < 3; ++round)
    for (Rank r = 0; r < 6; ++r) expected.push_back({round, 0, r, (r + (1 << round)) % 6, 0});
  CHECK(s == sorted(expected));
}

TEST_CASE("binomial broadcast: the root sends to the farthest subtree first", "[collectives]") {
  const auto bcast = [](Rank root) {
    return [root](PointToPoint& p) { return coll::binomial_bcast(p, root, 100, 0); };
  };
  CHECK(schedule(8, bcast(0)) == sorted({{0, 0, 0, 4, 100},
                                         {1, 0, 0, 2, 100},
                                         {1, 0, 4, 6, 100},
                                         {2, 0, 0, 1, 100},
                                         {2, 0, 2, 3, 100},
                                         {2, 0, 4, 5, 100},
                                         {2, 0, 6, 7, 100}}));
  // Six ranks, root 5: relative ranks 4, 2, 1 are absolute 3, 1, 0; relative 5 is 4; 3 is 2.
  CHECK(schedule(6, bcast(5)) ==
        sorted({{0, 0, 5, 3, 100}, {1, 0, 5, 1, 100}, {1, 0, 3, 4, 100}, {2, 0, 5, 0, 100}, {2, 0, 1, 2, 100}}));
}

TEST_CASE("k-nomial reduce: k-1 children per level, ceil(log_k n) levels", "[collectives]") {
  const auto reduce = [](int degree) {
    return [degree](PointToPoint& p) { return coll::knomial_reduce(p, 0, 8, 0, degree); };
  };
  // Degree 2 is the binomial reduce.
  CHECK(schedule(8, reduce(2)) == sorted({{0, 0, 1, 0, 8},
                                          {0, 0, 3, 2, 8},
                                          {0, 0, 5, 4, 8},
                                          {0, 0, 7, 6, 8},
                                          {1, 0, 2, 0, 8},
                                          {1, 0, 6, 4, 8},
                                          {2, 0, 4, 0, 8}}));
  // Degree 4 over 16 ranks: two levels of three children each.
  std::vector<Sent> expected;
  for (Rank r = 1; r < 16; ++r)
    if (r % 4 != 0) expected.push_back({0, 0, r, r - r % 4, 8});
  for (Rank r : {4, 8, 12}) expected.push_back({1, 0, r, 0, 8});
  CHECK(schedule(16, reduce(4)) == sorted(expected));
  // Degree 3 over 10 ranks: rank 9 has no children and sends to the root at once.
  CHECK(schedule(10, reduce(3)) == sorted({{0, 0, 1, 0, 8},
                                           {0, 0, 2, 0, 8},
                                           {0, 0, 4, 3, 8},
                                           {0, 0, 5, 3, 8},
                                           {0, 0, 7, 6, 8},
                                           {0, 0, 8, 6, 8},
                                           {0, 0, 9, 0, 8},
                                           {1, 0, 3, 0, 8},
                                           {1, 0, 6, 0, 8}}));
  CHECK(coll::knomial_levels(16, 4) == 2);
  CHECK(coll::knomial_levels(17, 4) == 3);
  CHECK(coll::knomial_levels(1024, 32) == 2);
  CHECK(coll::knomial_levels(1, 2) == 0);
}

TEST_CASE("recursive doubling: in step i every rank exchanges with rank XOR 2^i", "[collectives]") {
  const auto s = schedule(8, [](PointToPoint& p) { return coll::recursive_doubling_allreduce(p, 4, 0); });
  std::vector<Sent> expected;
  for (int step = 0; step < 3; ++step)
    for (Rank r = 0; r < 8; ++r) expected.push_back({step, 0, r, r ^ (1 << step), 4});
  CHECK(s == sorted(expected));
}

TEST_CASE("reduce-then-broadcast allreduce: the broadcast is a second phase after the reduce", "[collectives]") {
  const auto s = schedule(8, [](PointToPoint& p) { return coll::reduce_bcast_allreduce(p, 4, 0, 2); });
  CHECK(s == sorted({{0, 0, 1, 0, 4},
                     {0, 0, 3, 2, 4},
                     {0, 0, 5, 4, 4},
                     {0, 0, 7, 6, 4},
                     {1, 0, 2, 0, 4},
                     {1, 0, 6, 4, 4},
                     {2, 0, 4, 0, 4},
                     {3, 1, 0, 4, 4},
                     {4, 1, 0, 2, 4},
                     {4, 1, 4, 6, 4},
                     {5, 1, 0, 1, 4},
                     {5, 1, 2, 3, 4},
                     {5, 1, 4, 5, 4},
                     {5, 1, 6, 7, 4}}));
}

TEST_CASE("gathers: a binomial subtree's blocks travel up together; linear sends straight to the root",
          "[collectives]") {
  const auto binomial = schedule(6, [](PointToPoint& p) { return coll::binomial_gather(p, 0, 10, 0); });
  CHECK(binomial == sorted({{0, 0, 1, 0, 10}, {0, 0, 3, 2, 10}, {0, 0, 5, 4, 10}, {1, 0, 2, 0, 20}, {1, 0, 4, 0, 20}}));
  const auto linear = schedule(4, [](PointToPoint& p) { return coll::linear_gather(p, 2, 10, 0); });
  CHECK(linear == sorted({{0, 0, 0, 2, 10}, {0, 0, 1, 2, 10}, {0, 0, 3, 2, 10}}));
}

TEST_CASE("all-to-all: pairwise posts one receive per step, linear posts them all first", "[collectives]") {
  std::vector<Sent> expected;
  for (int step = 0; step < 3; ++step)
    for (Rank r = 0; r < 4; ++r) expected.push_back({step, 0, r, (r + step + 1) % 4, 32});
  const Outcome pairwise = run(4, kMicrosecond, [](PointToPoint& p) { return coll::pairwise_alltoall(p, 32, 0); });
  const Outcome linear = run(4, kMicrosecond, [](PointToPoint& p) { return coll::linear_alltoall(p, 32, 0); });
  // On a one-port network both send in the same order...
  CHECK(pairwise.sent == sorted(expected));
  CHECK(linear.sent == sorted(expected));
  // ...but pairwise expects rank - i in step i - 1, linear expects everyone from the start.
  std::vector<Posted> pairwise_posts, linear_posts;
  for (int step = 0; step < 3; ++step)
    for (Rank r = 0; r < 4; ++r) {
      pairwise_posts.push_back({step, r, (r - step - 1 + 4) % 4});
      linear_posts.push_back({0, r, (r + step + 1) % 4});
    }
  std::sort(pairwise_posts.begin(), pairwise_posts.end());
  std::sort(linear_posts.begin(), linear_posts.end());
  CHECK(pairwise.posted == pairwise_posts);
  CHECK(linear.posted == linear_posts);
}

TEST_CASE("binomial scatter: a subtree's blocks travel down together, the farthest subtree first", "[collectives]") {
  const auto scatter = [](PointToPoint& p) { return coll::binomial_scatter(p, 0, 10, 0); };
  CHECK(schedule(8, scatter) == sorted({{0, 0, 0, 4, 40},
                                        {1, 0, 0, 2, 20},
                                        {1, 0, 4, 6, 20},
                                        {2, 0, 0, 1, 10},
                                        {2, 0, 2, 3, 10},
                                        {2, 0, 4, 5, 10},
                                        {2, 0, 6, 7, 10}}));
  CHECK(schedule(6, scatter) ==
        sorted({{0, 0, 0, 4, 20}, {1, 0, 0, 2, 20}, {1, 0, 4, 5, 10}, {2, 0, 0, 1, 10}, {2, 0, 2, 3, 10}}));
}

TEST_CASE("allgathers: the ring passes each block on; recursive doubling exchanges the blocks held", "[collectives]") {
  static const std::vector<Bytes> sizes{1, 2, 3, 4};
  const auto ring = schedule(4, [](PointToPoint& p) { return coll::ring_allgatherv(p, coll::Blocks(sizes), 0); });
  CHECK(ring == sorted({{0, 0, 0, 1, 1},
                        {0, 0, 1, 2, 2},
                        {0, 0, 2, 3, 3},
                        {0, 0, 3, 0, 4},
                        {1, 0, 0, 1, 4},
                        {1, 0, 1, 2, 1},
                        {1, 0, 2, 3, 2},
                        {1, 0, 3, 0, 3},
                        {2, 0, 0, 1, 3},
                        {2, 0, 1, 2, 4},
                        {2, 0, 2, 3, 1},
                        {2, 0, 3, 0, 2}}));
  const auto doubling =
      schedule(4, [](PointToPoint& p) { return coll::recursive_doubling_allgatherv(p, coll::Blocks(sizes), 0); });
  CHECK(doubling == sorted({{0, 0, 0, 1, 1},
                            {0, 0, 1, 0, 2},
                            {0, 0, 2, 3, 3},
                            {0, 0, 3, 2, 4},
                            {1, 0, 0, 2, 3},
                            {1, 0, 1, 3, 3},
                            {1, 0, 2, 0, 7},
                            {1, 0, 3, 1, 7}}));
}

TEST_CASE("v-variants: each message has its sender's size for its receiver", "[collectives]") {
  static const std::vector<Bytes> sizes{5, 6, 7};
  const auto scatterv =
      schedule(3, [](PointToPoint& p) { return coll::linear_scatterv(p, 1, coll::Blocks(sizes), 0); });
  CHECK(scatterv == sorted({{0, 0, 1, 0, 5}, {1, 0, 1, 2, 7}}));
  const auto alltoallv =
      schedule(3, [](PointToPoint& p) { return coll::pairwise_alltoallv(p, coll::Blocks(sizes), 0); });
  CHECK(alltoallv ==
        sorted({{0, 0, 0, 1, 6}, {0, 0, 1, 2, 7}, {0, 0, 2, 0, 5}, {1, 0, 0, 2, 7}, {1, 0, 1, 0, 5}, {1, 0, 2, 1, 6}}));
  const auto reduce_scatter =
      schedule(3, [](PointToPoint& p) { return coll::pairwise_reduce_scatter(p, coll::Blocks(sizes), 0); });
  CHECK(reduce_scatter == alltoallv);
}

TEST_CASE("scan: recursive doubling with partners beyond the last rank left out", "[collectives]") {
  const auto s = schedule(5, [](PointToPoint& p) { return coll::recursive_doubling_scan(p, 8, 0, false); });
  // Rank 4 has no partner until 0 (4 XOR 4): its one message leaves at once.
  CHECK(s == sorted({{0, 0, 0, 1, 8},
                     {0, 0, 1, 0, 8},
                     {0, 0, 2, 3, 8},
                     {0, 0, 3, 2, 8},
                     {0, 0, 4, 0, 8},
                     {1, 0, 0, 2, 8},
                     {1, 0, 2, 0, 8},
                     {1, 0, 1, 3, 8},
                     {1, 0, 3, 1, 8},
                     {2, 0, 0, 4, 8}}));
}

// ---- The installed defaults, over a real messaging layer

namespace {

Json crossbar(int nodes) { return machine_json({{"type", "crossbar"}, {"nodes", nodes}, {"link_latency", "100ns"}}); }

Task<> every_collective(rt::Comm c, std::vector<std::uint64_t>& got) {
  const std::uint64_t mine = contribution(c.rank());
  co_await c.barrier();
  got.push_back(co_await c.bcast(2, 100, mine));
  got.push_back(co_await c.reduce(1, 100, mine));
  got.push_back(co_await c.allreduce(100, mine));
  got.push_back(co_await c.gather(1, 10, mine));
  got.push_back(co_await c.alltoall(10, mine));
}

}  // namespace

TEST_CASE("the installed collectives run over a messaging layer with every selection", "[collectives]") {
  const Json selections[] = {
      Json::object(),
      {{"reduce", "knomial"},
       {"degree", 3},
       {"allreduce", "reduce_bcast"},
       {"gather", "linear"},
       {"alltoall", "linear"}},
      {{"reduce", "knomial"}, {"allreduce", "recursive_doubling"}},
  };
  for (const Json& selection : selections) {
    for (int n : {8, 6}) {
      if (selection.value("allreduce", "") == "recursive_doubling" && n == 6) continue;
      INFO(selection.dump() << ", " << n << " ranks");
      LayerJob j(crossbar(n), {{"layer", "raw"}, {"collectives", selection}});
      std::vector<std::vector<std::uint64_t>> got(static_cast<std::size_t>(n));
      for (Rank r = 0; r < n; ++r)
        j.kernel.spawn(every_collective(rt::Comm(*j.layer, r), got[static_cast<std::size_t>(r)]));
      j.kernel.run();
      CHECK(j.kernel.live_processes() == 0);
      for (Rank r = 0; r < n; ++r) {
        const auto& g = got[static_cast<std::size_t>(r)];
        REQUIRE(g.size() == 5);
        CHECK(g[0] == contribution(2));
        if (r == 1) CHECK(g[1] == sum_of_all(n));
        CHECK(g[2] == sum_of_all(n));
        if (r == 1) CHECK(g[3] == sum_of_all(n));
        CHECK(g[4] == sum_of_all(n));
      }
    }
  }
}

TEST_CASE("a collectives selection that cannot work is an input error naming its path", "[collectives]") {
  const auto make = [](int n, const Json& selection) {
    LayerJob j(crossbar(n), {{"layer", "raw"}, {"collectives", selection}});
  };
  CHECK_THROWS_WITH(make(6, {{"allreduce", "recursive_doubling"}}),
                    Catch::Contains("/collectives/allreduce") && Catch::Contains("power-of-two"));
  CHECK_THROWS_WITH(make(4, {{"degree", 1}}), Catch::Contains("/collectives/degree"));
  CHECK_THROWS_WITH(make(4, {{"reduce", "flat"}}), Catch::Contains("/collectives/reduce"));
  CHECK_THROWS_WITH(make(4, {{"bcast", "binomial"}}), Catch::Contains("bcast"));
  CHECK_THROWS_WITH(make(6, {{"allgather", "recursive_doubling"}}),
                    Catch::Contains("/collectives/allgather") && Catch::Contains("power-of-two"));
  CHECK_THROWS_WITH(make(4, {{"alltoallv", "bruck"}}), Catch::Contains("/collectives/alltoallv"));
}

TEST_CASE("allgather's automatic choice: recursive doubling on a power of two below 80 KiB in all, else ring",
          "[collectives]") {
  const auto steps = [](int n, Bytes each, const coll::Selection& s) {
    return schedule(n,
                    [each, s](PointToPoint& p) { return coll::run_allgatherv(p, s, coll::Blocks(each, p.size()), 0); })
        .size();
  };
  const coll::Selection automatic = coll::default_selection();
  CHECK(steps(8, 1024, automatic) == 8 * 3);   // 8 KiB in all: log2 8 exchanges per rank
  CHECK(steps(8, 16384, automatic) == 8 * 7);  // 128 KiB: the ring's n - 1 steps
  CHECK(steps(6, 16, automatic) == 6 * 5);     // not a power of two: ring
  coll::Selection ring = coll::default_selection();
  ring.allgather = coll::AllgatherAlgorithm::ring;
  CHECK(steps(8, 16, ring) == 8 * 7);
  coll::Selection doubling = coll::default_selection();
  doubling.allgather = coll::AllgatherAlgorithm::recursive_doubling;
  CHECK(steps(8, 16384, doubling) == 8 * 3);
  CHECK(steps(6, 16, doubling) == 6 * 5);  // on a group that is not a power of two: ring
}

TEST_CASE("the k-nomial degree is the selection's, else the layer's choice, and 2 for binomial", "[collectives]") {
  coll::Selection s = coll::default_selection();
  CHECK(coll::Algorithms(s).reduce_degree(16, 4) == 2);
  s.reduce = coll::ReduceAlgorithm::knomial;
  CHECK(coll::Algorithms(s).reduce_degree(16, 4) == 2);  // no model: the default layer picks 2
  s.degree = 5;
  CHECK(coll::Algorithms(s).reduce_degree(16, 4) == 5);
}

namespace {

std::uint64_t sum_of(const std::vector<Rank>& ranks) {
  std::uint64_t sum = 0;
  for (Rank r : ranks) sum += contribution(r);
  return sum;
}

// Every rank runs an allreduce and a broadcast on each group it belongs to, then one over the
// whole job: rank 1, a member of both groups, interleaves them.
Task<> two_groups(rt::Comm c, const std::vector<const coll::Group*>& groups, std::vector<std::uint32_t>& sequences,
                  std::vector<std::uint64_t>& got) {
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& members = groups[g]->members;
    const auto index = static_cast<int>(std::find(members.begin(), members.end(), c.rank()) - members.begin());
    if (index == groups[g]->size()) continue;
    coll::GroupChannel ch(c, *groups[g], index, sequences[g]);
    got.push_back(co_await coll::run_allreduce(ch, coll::Selection{}, 16, contribution(c.rank()), 2));
    ch.next_phase();
    got.push_back(co_await coll::binomial_bcast(ch, 1, 16, contribution(c.rank())));
  }
  got.push_back(co_await c.allreduce(8, contribution(c.rank())));
}

}  // namespace

TEST_CASE(
    "collectives over groups: members numbered in the group, messages kept apart from the job's and "
    "other groups'",
    "[collectives]") {
  const coll::Group a{{6, 1, 3}, 1}, b{{0, 2, 4, 5, 7, 1}, 2};
  const std::vector<const coll::Group*> groups{&a, &b};
  LayerJob j(crossbar(8), {{"layer", "raw"}});
  std::vector<std::vector<std::uint32_t>> sequences(8, std::vector<std::uint32_t>(2, 0));
  std::vector<std::vector<std::uint64_t>> got(8);
  for (Rank r = 0; r < 8; ++r)
    j.kernel.spawn(
        two_groups(j.comm(r), groups, sequences[static_cast<std::size_t>(r)], got[static_cast<std::size_t>(r)]));
  j.kernel.run();
  CHECK(j.kernel.live_processes() == 0);
  for (Rank r = 0; r < 8; ++r) {
    INFO("rank " << r);
    std::vector<std::uint64_t> expected;
    for (const coll::Group* g : groups) {
      if (std::find(g->members.begin(), g->members.end(), r) == g->members.end()) continue;
      expected.push_back(sum_of(g->members));
      expected.push_back(contribution(g->members[1]));
    }
    expected.push_back(sum_of_all(8));
    CHECK(got[static_cast<std::size_t>(r)] == expected);
  }
  CHECK(j.layer->posted_receives(0) == 0);
  // The group tags sit above every tag next_collective_tag gives.
  CHECK(coll::kGroupCollectiveTag > rt::kFirstCollectiveTag + static_cast<rt::Tag>((1u << 29) - 1));
}
