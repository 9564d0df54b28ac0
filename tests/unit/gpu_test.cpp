#include <catch2/catch.hpp>

#include <vector>

#include "models/gpu/device.hpp"

using namespace torsim;
using namespace torsim::gpu;

namespace {

// Round numbers: 1,000 resident threads, 100 GB/s (1 B in 10 ps), 1 us memory latency.
EngineParams round_engine(int max_concurrent = 32) { return {1000, 100'000'000'000, kMicrosecond, max_concurrent}; }

GpuParams round_gpu(int queues = 8) {
  GpuParams p;
  p.per_node = 1;
  p.multiprocessors = 1;
  p.threads_per_multiprocessor = 1000;
  p.memory_bandwidth = 100'000'000'000;
  p.memory_latency = kMicrosecond;
  p.sector = 32;
  p.max_concurrent_kernels = 32;
  p.hardware_queues = queues;
  p.launch_latency = 2 * kMicrosecond;
  p.callback_latency = 5 * kMicrosecond;
  p.copy_latency = kMicrosecond;
  p.sync_latency = 3 * kMicrosecond;
  p.pcie_bandwidth = 10'000'000'000;  // 1 MB in 100 us
  return p;
}

// A kernel of `threads` threads moving `megabytes` MB: 10 us per MB at 100 GB/s.
KernelWork work(std::int64_t threads, double megabytes) { return {threads, static_cast<Bytes>(megabytes * 1e6)}; }

Task<> run_kernel(Kernel& k, KernelEngine& e, KernelWork w, Time start, Time& done) {
  co_await k.sleep(start);
  co_await e.run(w);
  done = k.now();
}

Task<> wait_signal(Kernel& k, SignalPtr s, Time& when) {
  Signal& signal = *s;
  co_await signal;
  when = k.now();
}

Task<> synchronize(Kernel& k, Device& d, int stream, Time& when) {
  co_await d.synchronize(stream);
  when = k.now();
}

double us(Time t) { return static_cast<double>(t) / kMicrosecond; }

}  // namespace

TEST_CASE("a layout's element is the widest word dividing every block", "[gpu]") {
  CHECK(Layout({{0, 16}, {64, 8}}).element() == 8);
  CHECK(Layout({{0, 12}, {64, 12}}).element() == 4);
  CHECK(Layout({{0, 12}, {66, 3}}).element() == 1);
  const Layout l({{100, 12}, {0, 4}, {40, 8}});
  CHECK(l.bytes() == 24);
  CHECK(l.block_at(0) == 0);
  CHECK(l.block_at(11) == 0);
  CHECK(l.block_at(12) == 1);
  CHECK(l.block_at(16) == 2);
  CHECK(l.packed_offset(3) == 24);
}

TEST_CASE("a pack kernel's traffic counts the sectors its blocks touch", "[gpu]") {
  const PackCosts costs{32, 8};
  SECTION("contiguous: read and write each byte once, one block entry") {
    const Layout l({{0, 1 << 20}});
    const KernelWork w = pack_work(l, costs);
    CHECK(w.threads == (1 << 20) / 8);
    CHECK(w.traffic == 2 * (1 << 20) + 8);
  }
  SECTION("sparse floats: a whole sector read per float") {
    std::vector<Block> blocks;
    for (int i = 0; i < 100; ++i) blocks.push_back({i * 64, 4});
    const KernelWork w = pack_work(Layout(blocks), costs);
    CHECK(w.threads == 100);
    CHECK(w.traffic == 100 * 32 + 13 * 32 + 100 * 8);  // 100 sectors read, 400 B written in 13 sectors
  }
  SECTION("neighbouring blocks in one sector read it once") {
    const KernelWork w = pack_work(Layout({{0, 4}, {8, 4}, {16, 4}, {24, 4}}), costs);
    CHECK(w.traffic == 32 + 32 + 4 * 8);
  }
  SECTION("a block straddling a sector boundary reads both") {
    CHECK(pack_work(Layout({{28, 8}}), costs).traffic == 64 + 32 + 8);
  }
  SECTION("chunks share the threads, and the block entries of the blocks they cut") {
    std::vector<Block> blocks;
    for (int i = 0; i < 1000; ++i) blocks.push_back({i * 100, 12});
    const Layout l(blocks);
    const KernelWork whole = pack_work(l, costs);
    const KernelWork a = pack_work(l, 0, 6000, costs), b = pack_work(l, 6000, l.bytes(), costs);
    CHECK(a.threads + b.threads == whole.threads);
    CHECK(a.traffic + b.traffic >= whole.traffic);
    CHECK(a.traffic + b.traffic <= whole.traffic + 3 * 32 + 8);
  }
}

TEST_CASE("a kernel alone takes a memory latency per wave or its traffic at the bandwidth", "[gpu]") {
  Kernel k;
  KernelEngine e(k, round_engine());
  CHECK(e.lone_time(work(10, 0)) == kMicrosecond);
  CHECK(e.lone_time(work(2500, 0)) == 3 * kMicrosecond);
  CHECK(e.lone_time(work(1000, 1)) == 10 * kMicrosecond);
  CHECK(e.share(work(100, 0)) == KernelEngine::kFull / 10);
  CHECK(e.share(work(10, 1)) == KernelEngine::kFull);         // bandwidth-bound: all of the memory
  CHECK(e.share(work(10, 0.05)) == KernelEngine::kFull / 2);  // 0.5 us of traffic in 1 us
}

TEST_CASE("concurrent kernels share the device as a processor-sharing server", "[gpu]") {
  Kernel k;
  Time a = 0, b = 0;
  SECTION("small kernels run side by side as fast as alone (Hyper-Q)") {
    KernelEngine e(k, round_engine());
    k.spawn(run_kernel(k, e, work(100, 0), 0, a));
    k.spawn(run_kernel(k, e, work(100, 0), 0, b));
    k.run();
    CHECK(a == kMicrosecond);
    CHECK(b == kMicrosecond);
  }
  SECTION("two kernels that each fill the device split it") {
    KernelEngine e(k, round_engine());
    k.spawn(run_kernel(k, e, work(1000, 1), 0, a));                 // 10 us alone
    k.spawn(run_kernel(k, e, work(1000, 1), 5 * kMicrosecond, b));  // joins halfway
    k.run();
    CHECK(us(a) == Approx(15));  // 5 us alone, then 5 us of work at half speed
    CHECK(us(b) == Approx(20));
    CHECK(e.busy() == 20 * kMicrosecond);
  }
  SECTION("one resident kernel at a time serialises them") {
    KernelEngine e(k, round_engine(1));
    k.spawn(run_kernel(k, e, work(100, 0), 0, a));
    k.spawn(run_kernel(k, e, work(100, 0), 0, b));
    k.run();
    CHECK(a == kMicrosecond);
    CHECK(b == 2 * kMicrosecond);
  }
}

TEST_CASE("a stream runs its work in order, streams overlap", "[gpu]") {
  Kernel k;
  Device d(k, round_gpu());
  const int s0 = d.create_stream(), s1 = d.create_stream();
  Time first = 0, second = 0, other = 0;
  k.spawn(wait_signal(k, d.launch(s0, work(100, 0)), first));
  k.spawn(wait_signal(k, d.launch(s0, work(100, 0)), second));
  k.spawn(wait_signal(k, d.launch(s1, work(100, 0)), other));
  k.run();
  CHECK(us(first) == Approx(3));  // 2 us to reach the device, 1 us to run
  CHECK(us(second) == Approx(4));
  CHECK(us(other) == Approx(3));
  CHECK(d.counters().kernels == 3);
}

TEST_CASE("streams sharing a hardware queue pick up false dependencies", "[gpu]") {
  auto small_after_long = [](int queues) {
    Kernel k;
    Device d(k, round_gpu(queues));
    const int s0 = d.create_stream(), s1 = d.create_stream();
    (void)d.launch(s0, work(1000, 1));  // 10 us
    (void)d.launch(s0, work(1000, 1));
    Time small = 0;
    k.spawn(wait_signal(k, d.launch(s1, work(10, 0)), small));
    k.run();
    return us(small);
  };
  // Beside a long kernel that fills the device, the small one (1 % of it) runs 1 % slower.
  CHECK(small_after_long(2) == Approx(3.01));
  // One queue: the small kernel waits behind the second long one, which waits for the first.
  CHECK(small_after_long(1) == Approx(13.01));
}

TEST_CASE("a callback runs after its stream's work and holds the stream", "[gpu]") {
  Kernel k;
  Device d(k, round_gpu());
  const int s = d.create_stream();
  Time called = 0, after = 0, event = 0;
  struct Probe {
    Kernel* k;
    Time* when;
  } probe{&k, &called};
  (void)d.launch(s, work(100, 0));  // done at 3 us
  const SignalPtr recorded = d.record(s);
  (void)d.add_callback(s, {[](void* ctx, std::uint64_t) {
                             auto* p = static_cast<Probe*>(ctx);
                             *p->when = p->k->now();
                           },
                           &probe, 0});
  k.spawn(wait_signal(k, d.launch(s, work(100, 0)), after));
  k.spawn(wait_signal(k, recorded, event));
  k.run();
  CHECK(us(event) == Approx(3));
  CHECK(us(called) == Approx(8));  // callback_latency after the kernel
  CHECK(us(after) == Approx(9));
  CHECK(d.counters().callbacks == 1);
}

TEST_CASE("copies in one direction share a copy engine, the two directions overlap", "[gpu]") {
  Kernel k;
  Device d(k, round_gpu());
  const int s0 = d.create_stream(), s1 = d.create_stream(), s2 = d.create_stream();
  Time first = 0, second = 0, back = 0;
  k.spawn(wait_signal(k, d.copy(s0, 1'000'000, CopyDirection::to_host), first));
  k.spawn(wait_signal(k, d.copy(s1, 1'000'000, CopyDirection::to_host), second));
  k.spawn(wait_signal(k, d.copy(s2, 1'000'000, CopyDirection::to_device), back));
  k.run();
  CHECK(us(first) == Approx(101));  // 1 us to the engine, 100 us across
  CHECK(us(second) == Approx(201));
  CHECK(us(back) == Approx(101));
  CHECK(d.counters().copied_to_host == 2'000'000);
  CHECK(d.counters().copied_to_device == 1'000'000);
}

TEST_CASE("a host thread synchronising on a stream returns sync_latency after its work", "[gpu]") {
  Kernel k;
  Device d(k, round_gpu());
  const int s = d.create_stream();
  (void)d.launch(s, work(100, 0));                   // done at 3 us
  (void)d.copy(s, 100'000, CopyDirection::to_host);  // reaches the engine at 1 us, runs 3..13 us
  Time returned = 0;
  k.spawn(synchronize(k, d, s, returned));
  k.run();
  CHECK(us(returned) == Approx(16));
}
