// The recorder of a run's MPI calls (torsim run --record-mpi): what it writes for the calls the
// messaging interface reports, including a receive for any source, which is written with the
// source it matched once its wait returns.
#include <catch2/catch.hpp>

#include <map>

#include "models/apps/replay/recorder.hpp"
#include "tests/support/input_error.hpp"

using namespace torsim;
using namespace torsim::replay;

namespace {

struct MemorySink : TiSink {
  void append(const std::string& name, std::string_view text) override { files[name] += text; }
  std::map<std::string, std::string> files;
};

struct Recording {
  MemorySink sink;
  TiWriter writer{sink, "run.txt", 2, TiWriter::Layout::per_rank, Where("test")};
  MpiRecorder recorder{writer, 2, 2.5, Where("test")};  // 2.5 ps a flop
  std::string rank(int r) {
    recorder.finish();
    return sink.files["run.txt_files/rank-" + std::to_string(r) + ".txt"];
  }
};

}  // namespace

TEST_CASE("the recorder writes sends, receives, waits and computation in the order of the calls", "[replay]") {
  Recording rec;
  rec.recorder.compute(0, 1000);  // 400 flops at 2.5 ps
  rec.recorder.isend(0, 1, 64, 7, 11);
  rec.recorder.irecv(0, 1, 7, 12);
  rec.recorder.waited(11, rt::Envelope{});
  rec.recorder.waited(12, rt::Envelope{.src = 1, .tag = 7, .size = 64});
  CHECK(rec.rank(0) == "0 compute 400\n0 isend 1 7 64\n0 irecv 1 7 -1\n0 wait 0 1 7\n0 wait 1 0 7\n");
  CHECK(rec.sink.files["run.txt"] == "run.txt_files/rank-0.txt\nrun.txt_files/rank-1.txt\n");
}

TEST_CASE("a receive for any source is written with the source it matched, the calls after it held back", "[replay]") {
  Recording rec;
  rec.recorder.irecv(1, rt::kAnySource, 3, 5);
  rec.recorder.isend(1, 0, 8, 3, 6);
  CHECK(rec.sink.files["run.txt_files/rank-1.txt"].empty());
  rec.recorder.waited(5, rt::Envelope{.src = 0, .tag = 3, .size = 8});
  rec.recorder.waited(6, rt::Envelope{});
  CHECK(rec.rank(1) == "1 irecv 0 3 -1\n1 isend 0 3 8\n1 wait 0 1 3\n1 wait 1 0 3\n");
}

TEST_CASE("a collective's own messages and computation are not the workload's calls", "[replay]") {
  Recording rec;
  rec.recorder.enter_collective(0);
  rec.recorder.isend(0, 1, 8, rt::kFirstCollectiveTag, 1);
  rec.recorder.compute(0, 500);
  rec.recorder.waited(1, rt::Envelope{});
  rec.recorder.collective(0, rt::CollectiveOp::allreduce, 0, 8);
  rec.recorder.enter_collective(0);
  rec.recorder.collective(0, rt::CollectiveOp::bcast, 1, 32);
  CHECK(rec.rank(0) == "0 allreduce 8 0\n0 bcast 32 1\n");
}

TEST_CASE("a recording stops at what the format cannot hold", "[replay]") {
  SECTION("a one-sided operation") {
    Recording rec;
    const InputError e = test::input_error_of([&] { rec.recorder.unrecordable(1, "put"); });
    CHECK_THAT(e.what(), Catch::Contains("rank 1 uses put"));
  }
  SECTION("a receive for any source that no wait completed") {
    Recording rec;
    rec.recorder.irecv(0, rt::kAnySource, 0, 4);
    const InputError e = test::input_error_of([&] { rec.recorder.finish(); });
    CHECK_THAT(e.what(), Catch::Contains("rank 0 posted a receive for any source"));
  }
}
