// The time-independent trace writer: what it writes, the reader reads back as the same calls;
// a recording's files appear only when published.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "models/apps/replay/ti_writer.hpp"
#include "run/trace_recording.hpp"
#include "tests/support/input_error.hpp"
#include "tests/support/scratch_path.hpp"

using namespace torsim;
using namespace torsim::replay;

namespace {

const std::string kActions = std::string(TORSIM_SOURCE_DIR) + "/tests/data/traces/ti-simgrid-actions/";
namespace fs = std::filesystem;

// Files in memory, written out to a scratch folder to be read back.
struct MemorySink : TiSink {
  void append(const std::string& name, std::string_view text) override { files[name] += text; }
  std::map<std::string, std::string> files;
};

struct Scratch {
  Scratch() : dir(test::scratch_path("torsim-tiw")) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string save(const MemorySink& sink) const {
    for (const auto& [name, text] : sink.files) {
      fs::create_directories((dir / name).parent_path());
      std::ofstream(dir / name) << text;
    }
    return (dir / "trace.txt").string();
  }
  fs::path dir;
};

// A call's fields that the format keeps, with its lists copied (they live only until next()).
struct Kept {
  CallType type;
  std::int32_t peer, source2, tag, root;
  Bytes bytes, recv_bytes;
  double flops;
  std::vector<std::int64_t> counts, recv_counts;
  bool operator==(const Kept&) const = default;
};

Kept keep(const Call& c, const std::vector<Datatype>& types) {
  // Sizes are written in bytes: compare v-variant counts in bytes.
  auto in_bytes = [&](std::span<const std::int64_t> v, std::int32_t dt) {
    std::vector<std::int64_t> out;
    for (auto x : v) out.push_back(x * (dt >= 0 ? types[static_cast<std::size_t>(dt)].size : 1));
    return out;
  };
  return {c.type,
          c.peer,
          c.source2,
          c.tag,
          c.root,
          c.bytes,
          c.recv_bytes,
          c.flops,
          in_bytes(c.counts, c.datatype),
          in_bytes(c.recv_counts, c.recv_datatype)};
}

std::vector<Kept> read_all(const Trace& trace, std::int32_t r) {
  std::vector<Kept> calls;
  auto cursor = trace.cursor(r);
  Call call;
  while (cursor->next(call)) calls.push_back(keep(call, trace.datatypes()));
  return calls;
}

// Reads `path` and writes it again in `layout`; the copy must read back as the same calls.
void round_trip(const std::string& path, TiWriter::Layout layout) {
  const auto original = open_trace(path, Format::time_independent, Where("test"));
  MemorySink sink;
  TiWriter writer(sink, "trace.txt", original->ranks(), layout, Where("test"), original->datatypes(),
                  64);  // a tiny buffer: many flushes
  for (std::int32_t r = 0; r < original->ranks(); ++r) {
    auto cursor = original->cursor(r);
    Call call;
    while (cursor->next(call)) writer.write(r, call);
  }
  writer.finish();
  Scratch scratch;
  const auto copy = open_trace(scratch.save(sink), Format::time_independent, Where("test"));
  REQUIRE(copy->ranks() == original->ranks());
  for (std::int32_t r = 0; r < original->ranks(); ++r) {
    INFO(path << ", rank " << r);
    CHECK(read_all(*copy, r) == read_all(*original, r));
  }
}

}  // namespace

TEST_CASE("SimGrid's action files written again read back as the same calls", "[trace][ti][writer]") {
  for (const char* file : {"actions_with_isend.txt", "actions_waitall.txt", "actions_alltoallv.txt",
                           "actions_allgatherv.txt", "actions_bcast.txt", "actions_gather.txt",
                           "actions_reducescatter.txt", "actions_barrier.txt", "split_traces"}) {
    round_trip(kActions + file, TiWriter::Layout::per_rank);
    round_trip(kActions + file, TiWriter::Layout::one_file);
  }
}

TEST_CASE("the writer names the requests a wait completes by source, destination and tag", "[trace][ti][writer]") {
  MemorySink sink;
  TiWriter writer(sink, "trace.txt", 2, TiWriter::Layout::per_rank, Where("test"));
  Call isend{.type = CallType::isend, .peer = 1, .tag = 7, .bytes = 100, .request = 40};
  Call irecv{.type = CallType::irecv, .peer = 1, .tag = 8, .bytes = 50, .request = 41};
  Call wait{.type = CallType::wait, .request = 41};
  Call waitall{.type = CallType::waitall};
  const std::int64_t left[] = {40};
  waitall.requests = left;
  for (const Call& c : {isend, irecv, wait, waitall}) writer.write(0, c);
  writer.finish();
  CHECK(sink.files["trace.txt_files/rank-0.txt"] == "0 isend 1 7 100\n0 irecv 1 8 50\n0 wait 1 0 8\n0 waitall\n");
  CHECK(sink.files["trace.txt_files/rank-1.txt"].empty());
  CHECK(sink.files["trace.txt"] == "trace.txt_files/rank-0.txt\ntrace.txt_files/rank-1.txt\n");
}

TEST_CASE("waits on requests of one source, destination and tag are written oldest first, or refused",
          "[trace][ti][writer]") {
  MemorySink sink;
  TiWriter writer(sink, "trace.txt", 2, TiWriter::Layout::per_rank, Where("command line", "--record-mpi trace.txt"));
  const Call first{.type = CallType::irecv, .peer = 1, .tag = 3, .bytes = 8, .request = 10};
  const Call second{.type = CallType::irecv, .peer = 1, .tag = 3, .bytes = 8, .request = 11};
  const Call other{.type = CallType::irecv, .peer = 1, .tag = 4, .bytes = 8, .request = 12};
  for (const Call& c : {first, second, other}) writer.write(0, c);
  // A waitall of some of them names each in creation order, whatever order the call lists them in.
  Call waitall{.type = CallType::waitall};
  const std::int64_t listed[] = {11, 10};
  waitall.requests = listed;
  writer.write(0, waitall);
  writer.write(0, Call{.type = CallType::wait, .request = 12});
  for (const Call& c : {first, second}) writer.write(0, c);
  // The later of two pending requests waited first: a replay would complete the earlier one.
  const auto later = test::input_error_of([&] { writer.write(0, Call{.type = CallType::wait, .request = 11}); });
  CHECK(later.file() == "command line");
  CHECK_THAT(later.message(),
             Catch::Contains("rank 0's wait cannot be recorded") &&
                 Catch::Contains("an earlier one with the same source (1), destination (0) and tag (3)"));
  writer.write(0, Call{.type = CallType::wait, .request = 10});
  writer.write(0, Call{.type = CallType::wait, .request = 11});
  writer.finish();
  CHECK(sink.files["trace.txt_files/rank-0.txt"] ==
        "0 irecv 1 3 8\n0 irecv 1 3 8\n0 irecv 1 4 8\n0 wait 1 0 3\n0 wait 1 0 3\n0 wait 1 0 4\n"
        "0 irecv 1 3 8\n0 irecv 1 3 8\n0 wait 1 0 3\n0 wait 1 0 3\n");
}

TEST_CASE("calls the format cannot hold are input errors", "[trace][ti][writer]") {
  MemorySink sink;
  TiWriter writer(sink, "trace.txt", 2, TiWriter::Layout::one_file, Where("command line", "--record-mpi trace.txt"));
  const auto other_comm = test::input_error_of([&] { writer.write(0, Call{.type = CallType::barrier, .comm = 5}); });
  CHECK(other_comm.file() == "command line");
  CHECK_THAT(other_comm.message(), Catch::Contains("rank 0's barrier cannot be recorded as a time-independent trace: "
                                                   "the format holds calls on MPI_COMM_WORLD only"));
  const auto wildcard =
      test::input_error_of([&] { writer.write(1, Call{.type = CallType::recv, .peer = kAnySource, .tag = 0}); });
  CHECK_THAT(wildcard.message(), Catch::Contains("wildcards"));
  const auto probe = test::input_error_of([&] { writer.write(1, Call{.type = CallType::probe, .peer = 0, .tag = 0}); });
  CHECK_THAT(probe.message(), Catch::Contains("the format has no action for it"));
}

TEST_CASE("a recording's files appear when it is published, and not otherwise", "[trace][ti][writer]") {
  Scratch scratch;
  const std::string path = (scratch.dir / "rec.txt").string();
  {
    TraceRecording files(path, Where("test"));
    TiWriter writer(files, files.index_name(), 2, TiWriter::Layout::per_rank, Where("test"), {}, 1);
    writer.write(0, Call{.type = CallType::init});
    writer.write(1, Call{.type = CallType::init});
    writer.finish();
  }  // never published
  CHECK(fs::is_empty(scratch.dir));
  {
    TraceRecording files(path, Where("test"));
    TiWriter writer(files, files.index_name(), 2, TiWriter::Layout::per_rank, Where("test"), {}, 1);
    writer.write(0, Call{.type = CallType::init});
    writer.write(1, Call{.type = CallType::compute, .flops = 1e9});
    writer.finish();
    files.publish();
  }
  const auto trace = open_trace(path, Format::automatic, Where("test"));
  REQUIRE(trace->ranks() == 2);
  CHECK(trace->rank(1).file == (scratch.dir / "rec.txt_files" / "rank-1.txt").string());
  CHECK(read_all(*trace, 1).front().flops == 1e9);
  {
    const std::string one = (scratch.dir / "one.txt").string();
    TraceRecording files(one, Where("test"));
    TiWriter writer(files, files.index_name(), 1, TiWriter::Layout::one_file, Where("test"));
    writer.write(0, Call{.type = CallType::init});
    writer.finish();
    files.publish();
    CHECK(fs::exists(one));
    CHECK_FALSE(fs::exists(one + "_files"));
  }
}
