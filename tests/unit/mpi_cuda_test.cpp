#include <catch2/catch.hpp>

#include "models/runtime/cuda/mvapich2_cuda.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"
#include "tests/support/layer_job.hpp"

using namespace torsim;
using namespace torsim::test;

namespace {

// Round numbers: kernels take 1 us (one wave, memory at 1 TB/s), copies cross PCIe at 1 GB/s
// (1 MB in 1 ms), every GPU call 1 us of CPU and 1 us to reach the device.
gpu::GpuParams round_gpu() {
  gpu::GpuParams p;
  p.per_node = 2;
  p.multiprocessors = 1000;
  p.threads_per_multiprocessor = 1000;
  p.memory_bandwidth = 1'000'000'000'000;
  p.memory_latency = kMicrosecond;
  p.sector = 32;
  p.max_concurrent_kernels = 32;
  p.hardware_queues = 8;
  p.launch_cpu = p.launch_latency = p.copy_cpu = p.copy_latency = kMicrosecond;
  p.sync_latency = p.callback_latency = kMicrosecond;
  p.pcie_bandwidth = 1'000'000'000;
  return p;
}

struct Transfer {
  Time sent = 0, received = 0;
};

Task<> send(rt::Mvapich2Cuda& mpi, Kernel& k, const gpu::Layout& l, Transfer& t) {
  co_await mpi.send(0, 1, l);
  t.sent = k.now();
}
Task<> recv(rt::Mvapich2Cuda& mpi, Kernel& k, const gpu::Layout& l, Transfer& t) {
  co_await mpi.recv(1, 0, l);
  t.received = k.now();
}

const Json kOneNode{{"node_list", {0}}, {"ranks_per_node", 2}};
const Json kTwoNodes{{"node_list", {0, 1}}, {"ranks_per_node", 1}};

// Round-number design parameters: 256 KB pipeline blocks, 250 KB chunks on 4 streams, and
// GPUDirect RDMA up to 1000 B at 1 MB/s (1000 B in 1 ms) after 1 us.
rt::Mvapich2CudaParams round_mpi() { return {256'000, 256'000, 250'000, 4, 1000, 1'000'000, kMicrosecond}; }

Transfer one_way(rt::GpuDesign design, Bytes bytes, gpu::DeviceCounters* sender = nullptr,
                 const Json& placement = kOneNode) {
  LayerJob j(machine_json(torus_json({2}, {"5GB/s"})), {{"layer", "raw"}}, placement);
  rt::Mvapich2Cuda mpi(*j.layer, round_gpu(), round_mpi(), design);
  const gpu::Layout layout({{0, bytes}});
  Transfer t;
  j.kernel.spawn(send(mpi, j.kernel, layout, t));
  j.kernel.spawn(recv(mpi, j.kernel, layout, t));
  j.kernel.run();
  if (sender) *sender = mpi.device_of(0).counters();
  CHECK(&mpi.device_of(0) != &mpi.device_of(1));  // two GPUs
  return t;
}

Json ddtbench_on_wilkes(const Json& placement) {
  return {{"machine", "wilkes"},
          {"placement", placement},
          {"workload", {{"name", "ddtbench"}, {"test", "WRF_y_sa"}, {"iterations", 1}, {"warmup", 0}}}};
}

double ms(Time t) { return static_cast<double>(t) / 1e9; }

}  // namespace

TEST_CASE("the baseline packs, then moves the message in pipeline blocks", "[gpu][mpi_cuda]") {
  gpu::DeviceCounters c;
  const Transfer t = one_way(rt::GpuDesign::baseline, 1'000'000, &c);
  CHECK(c.kernels == 1);
  CHECK(c.copies == 4);  // 1 MB in 256 KB blocks
  CHECK(c.copied_to_host == 1'000'000);
  // The copies to the host take 1 ms; the last block's copy to the GPU follows its copy to
  // the host (0.256 ms), then the unpack: a little over 1.256 ms.
  CHECK(ms(t.sent) > 1.0);
  CHECK(ms(t.received) > 1.256);
  CHECK(ms(t.received) < 1.3);
}

TEST_CASE("the overlapped design pipelines chunks and never blocks on the GPU", "[gpu][mpi_cuda]") {
  gpu::DeviceCounters c;
  const Transfer t = one_way(rt::GpuDesign::overlap, 1'000'000, &c);
  CHECK(c.kernels == 4);  // a pack per chunk of 250 KB
  CHECK(c.callbacks == 4);
  CHECK(ms(t.received) > 1.25);  // the last chunk's copy to the GPU follows the others'
  CHECK(ms(t.received) < 1.3);
  // A single chunk: no pipelining at all, both copies in turn.
  const Transfer single = one_way(rt::GpuDesign::overlap, 200'000);
  CHECK(ms(single.received) > 0.4);
}

TEST_CASE("for a small message the overlapped design saves the blocking synchronisations", "[gpu][mpi_cuda]") {
  const Transfer base = one_way(rt::GpuDesign::baseline, 1000);
  const Transfer overlap = one_way(rt::GpuDesign::overlap, 1000);
  CHECK(overlap.received < base.received);
}

TEST_CASE("the DDTBench ping-pong times every parameter set between a node's two GPUs", "[gpu][mpi_cuda]") {
  const Json one_node{{"node_list", {0}}, {"ranks_per_node", 2}};
  const PointResult r = Simulation(Scenario(ddtbench_on_wilkes(one_node), "test").doc(), Where("test"), 1).run();
  CHECK(r.blocked_processes == 0);
  const Series* latency = nullptr;
  for (const auto& s : r.output.series)
    if (s.name == "latency") latency = &s;
  REQUIRE(latency != nullptr);
  REQUIRE(latency->rows.size() == 5);  // process grids 8x8 .. 2x2
  CHECK(latency->rows.front()[0] == 43428);
  CHECK(latency->rows.back()[0] == 90804);
  for (std::size_t i = 1; i < latency->rows.size(); ++i) CHECK(latency->rows[i][1] > latency->rows[i - 1][1]);
  // Two nodes: not the intra-node path.
  const Json two_nodes{{"node_list", {0, 1}}, {"ranks_per_node", 1}};
  CHECK_THROWS_AS(Simulation(Scenario(ddtbench_on_wilkes(two_nodes), "test").doc(), Where("test"), 1).run(),
                  InputError);
}

TEST_CASE("a message takes shared memory, the staged network path or GPUDirect RDMA", "[gpu][mpi_cuda]") {
  LayerJob j(machine_json(torus_json({2}, {"5GB/s"})), {{"layer", "raw"}},
             {{"node_list", {0, 1}}, {"ranks_per_node", 2}});
  const rt::Mvapich2Cuda mpi(*j.layer, round_gpu(), round_mpi(), rt::GpuDesign::baseline);
  CHECK(mpi.path_of(0, 1, 1'000'000) == rt::GpuPath::shared_memory);
  CHECK(mpi.path_of(0, 2, 1000) == rt::GpuPath::gpudirect);
  CHECK(mpi.path_of(0, 2, 1001) == rt::GpuPath::staged_network);
  CHECK(mpi.pieces(1000, rt::GpuPath::gpudirect) == std::vector<Bytes>{1000});
  CHECK(mpi.pieces(600'000, rt::GpuPath::staged_network) == std::vector<Bytes>{256'000, 256'000, 88'000});
}

TEST_CASE("between nodes the host-staged pipeline overlaps copies and the network", "[gpu][mpi_cuda]") {
  // 1 MB in 256 KB blocks, copies at 1 GB/s, the network at 5 GB/s with 32 B of header per
  // 64 B packet (3.33 GB/s of data): the first block is copied to the host (0.256 ms) and
  // crosses (0.0768 ms) while the next is copied; from then on the copies to the receiving GPU
  // (1 ms in all) follow one another: 1.333 ms and a few us of calls. Without the pipeline:
  // 2.3 ms.
  gpu::DeviceCounters c;
  const Transfer t = one_way(rt::GpuDesign::baseline, 1'000'000, &c, kTwoNodes);
  CHECK(c.copies == 4);
  CHECK(ms(t.received) > 0.256 + 0.0768 + 1.0);
  CHECK(ms(t.received) < 0.256 + 0.0768 + 1.0 + 0.03);
  // 250 KB chunks: 0.25 + 0.075 + 1.0 ms.
  const Transfer overlap = one_way(rt::GpuDesign::overlap, 1'000'000, nullptr, kTwoNodes);
  CHECK(ms(overlap.received) > 0.25 + 0.075 + 1.0);
  CHECK(ms(overlap.received) < 0.25 + 0.075 + 1.0 + 0.03);
}

TEST_CASE("GPUDirect RDMA sends a small message from GPU memory without copies", "[gpu][mpi_cuda]") {
  // 1000 B read by the HCA at 1 MB/s: 1 ms, after 1 us; pack and unpack a few us.
  for (const rt::GpuDesign design : {rt::GpuDesign::baseline, rt::GpuDesign::overlap}) {
    gpu::DeviceCounters c;
    const Transfer t = one_way(design, 1000, &c, kTwoNodes);
    CHECK(c.copies == 0);
    CHECK(ms(t.received) > 1.001);
    CHECK(ms(t.received) < 1.03);
  }
}

TEST_CASE("the baseline packs inside MPI_Isend, one message at a time; the overlapped design does not wait",
          "[gpu][mpi_cuda]") {
  // Four 1000 B messages to the other GPU of the node: each baseline Isend returns only after its
  // pack and synchronisation (a launch's 1 us of CPU, 1 us to the device, 1 us of kernel, 1 us
  // to see it done: at least 4 us each); the overlapped Isend returns after its launch call
  // (1 us each), and the core also runs the first transfers' calls meanwhile.
  for (const rt::GpuDesign design : {rt::GpuDesign::baseline, rt::GpuDesign::overlap}) {
    LayerJob j(machine_json(torus_json({2}, {"5GB/s"})), {{"layer", "raw"}}, kOneNode);
    rt::Mvapich2Cuda mpi(*j.layer, round_gpu(), round_mpi(), design);
    const gpu::Layout layout({{0, 1000}});
    Time posted = 0;
    std::vector<gpu::SignalPtr> received;
    for (rt::Tag tag = 0; tag < 4; ++tag) received.push_back(mpi.irecv(1, 0, layout, tag));
    j.kernel.spawn([](rt::Mvapich2Cuda& m, Kernel& k, const gpu::Layout& l, Time& at) -> Task<> {
      for (rt::Tag tag = 0; tag < 4; ++tag) (void)co_await m.isend(0, 1, l, tag);
      at = k.now();
    }(mpi, j.kernel, layout, posted));
    j.kernel.run();
    for (const gpu::SignalPtr& r : received) CHECK(r->fired());
    if (design == rt::GpuDesign::baseline)
      CHECK(posted >= 16 * kMicrosecond);
    else
      CHECK(posted < 8 * kMicrosecond);
  }
}

TEST_CASE("a baseline rank blocked in a synchronisation moves none of its other transfers", "[gpu][mpi_cuda]") {
  // Message 0 is packed (4 us), then MPI_Isend of message 1 blocks the thread in its own pack
  // for about 3 us more: message 0's copy to the host waits for it, so message 0 arrives at
  // least 3 us later than when it is sent alone (about 1 us later if only the core were
  // shared).
  auto arrival_of_first = [](int sends) {
    LayerJob j(machine_json(torus_json({2}, {"5GB/s"})), {{"layer", "raw"}}, kOneNode);
    rt::Mvapich2Cuda mpi(*j.layer, round_gpu(), round_mpi(), rt::GpuDesign::baseline);
    const gpu::Layout layout({{0, 1000}});
    std::vector<gpu::SignalPtr> received;
    for (rt::Tag tag = 0; tag < sends; ++tag) received.push_back(mpi.irecv(1, 0, layout, tag));
    Time first = 0;
    j.kernel.spawn([](rt::Mvapich2Cuda& m, const gpu::Layout& l, int n) -> Task<> {
      for (rt::Tag tag = 0; tag < n; ++tag) (void)co_await m.isend(0, 1, l, tag);
    }(mpi, layout, sends));
    j.kernel.spawn([](Kernel& k, gpu::SignalPtr r, Time& at) -> Task<> {
      Signal& s = *r;
      co_await s;
      at = k.now();
    }(j.kernel, received.front(), first));
    j.kernel.run();
    return first;
  };
  CHECK(arrival_of_first(2) - arrival_of_first(1) >= 3 * kMicrosecond);
}
