// SimGrid time-independent traces: SimGrid's own replay examples decode into the calls its
// replay makes of them; every malformed line is an InputError naming the file and the line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "models/apps/replay/trace.hpp"
#include "tests/support/input_error.hpp"
#include "tests/support/scratch_path.hpp"

using namespace torsim;
using namespace torsim::replay;

namespace {

const std::string kActions = std::string(TORSIM_SOURCE_DIR) + "/tests/data/traces/ti-simgrid-actions/";

std::unique_ptr<Trace> open(const std::string& path) { return open_trace(path, Format::automatic, Where("test")); }

std::vector<Call> calls_of(const Trace& trace, std::int32_t rank) {
  std::vector<Call> calls;
  auto cursor = trace.cursor(rank);
  Call call;
  while (cursor->next(call)) calls.push_back(call);
  return calls;
}

// A scratch trace written by the test.
struct ScratchTrace {
  explicit ScratchTrace(const std::string& text, const std::string& name = "trace.txt")
      : dir(test::scratch_path("torsim-ti")) {
    std::filesystem::create_directories(dir);
    path = (dir / name).string();
    std::ofstream(path) << text;
  }
  ~ScratchTrace() { std::filesystem::remove_all(dir); }
  void add(const std::string& name, const std::string& text) const { std::ofstream(dir / name) << text; }
  std::filesystem::path dir;
  std::string path;
};

// Runs `check` on call `index` of `rank` while its cursor lives (a call's lists are views into it).
template <class F>
void check_call(const Trace& trace, std::int32_t rank, std::uint64_t index, F check) {
  auto cursor = trace.cursor(rank);
  Call call;
  while (cursor->next(call))
    if (call.record == index) return check(call);
  FAIL("no call " << index);
}

std::vector<std::int64_t> list(std::span<const std::int64_t> values) { return {values.begin(), values.end()}; }

InputError error_reading(const std::string& path) {
  return test::input_error_of([&] {
    auto trace = open(path);
    for (std::int32_t r = 0; r < trace->ranks(); ++r) calls_of(*trace, r);
  });
}

}  // namespace

TEST_CASE("a one-file trace gives each rank its own actions, in order", "[trace][ti]") {
  const auto trace = open(kActions + "actions_bcast.txt");
  CHECK(trace->format() == Format::time_independent);
  REQUIRE(trace->ranks() == 3);
  CHECK(trace->local_handles());
  REQUIRE(trace->communicators().size() == 2);
  CHECK(trace->communicators()[kCommWorld].ranks == std::vector<std::int32_t>{0, 1, 2});
  const auto calls = calls_of(*trace, 1);
  REQUIRE(calls.size() == 7);
  CHECK(calls[0].type == CallType::init);
  CHECK(calls[1].type == CallType::bcast);
  CHECK(calls[1].count == 50000);
  CHECK(calls[1].root == 0);
  CHECK(calls[1].datatype == 6);  // MPI_BYTE: init without argument
  CHECK(calls[1].bytes == 50000);
  CHECK(calls[2].type == CallType::compute);
  CHECK(calls[2].flops == 2e8);
  CHECK(calls[5].type == CallType::reduce);
  CHECK(calls[5].flops == 5e8);
  CHECK(calls[6].type == CallType::finalize);
  CHECK(calls[1].start == kNoTime);
  CHECK(calls[1].function == "bcast");
  CHECK(calls[1].record == 1);
  CHECK(calls[1].offset == 6);  // line 6 of the file
  CHECK(trace->where(1, calls[1]) == kActions + "actions_bcast.txt: at record 1 (line 6)");
}

TEST_CASE("init with an argument makes MPI_DOUBLE the default; explicit datatypes and roots", "[trace][ti]") {
  const auto trace = open(kActions + "actions_bcast_reduce_datatypes.txt");
  const auto calls = calls_of(*trace, 0);
  REQUIRE(calls.size() == 7);
  CHECK(calls[1].root == 1);
  CHECK(calls[1].datatype == 0);  // MPI_DOUBLE
  CHECK(calls[1].bytes == 400000);
  CHECK(calls[3].datatype == 3);  // MPI_SHORT
  CHECK(calls[3].bytes == 100000);
  CHECK(calls[5].root == 0);
  CHECK(calls[5].datatype == 4);  // MPI_LONG
  CHECK(calls[5].bytes == 400000);
}

TEST_CASE("an index lists one file per rank; requests are matched by source, destination and tag", "[trace][ti]") {
  const auto trace = open(kActions + "split_traces");
  REQUIRE(trace->ranks() == 2);
  CHECK(trace->rank(1).file == kActions + "actions1.txt");
  const auto calls = calls_of(*trace, 1);
  REQUIRE(calls.size() == 7);
  CHECK(calls[1].type == CallType::recv);
  CHECK(calls[1].peer == 0);
  CHECK(calls[1].tag == 0);
  CHECK(calls[1].bytes == 1000000);
  CHECK(calls[3].type == CallType::isend);
  CHECK(calls[4].type == CallType::irecv);
  CHECK(calls[3].request != calls[4].request);
  CHECK(calls[5].type == CallType::wait);  // "wait 0 1 2": the irecv from 0 with tag 2
  CHECK(calls[5].request == calls[4].request);
}

TEST_CASE("SMPI's MPI_ANY_TAG on a receive and its wait is a receive for any tag", "[trace][ti]") {
  const ScratchTrace t("0 isend 1 7 100\n0 wait 0 1 7\n1 irecv 0 -444 100\n1 wait 0 1 -444\n");
  const auto trace = open_trace(t.path, Format::time_independent, Where("test"));
  const auto calls = calls_of(*trace, 1);
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].tag == kAnyTag);
  CHECK(calls[1].tag == kAnyTag);
  CHECK(calls[1].request == calls[0].request);
}

TEST_CASE("a test leaves its request for the wait; waitall completes every pending request", "[trace][ti]") {
  const auto with_isend = calls_of(*open(kActions + "actions_with_isend.txt"), 2);
  REQUIRE(with_isend.size() == 10);
  CHECK(with_isend[4].type == CallType::test);
  CHECK(with_isend[6].type == CallType::wait);
  CHECK(with_isend[4].request == with_isend[2].request);
  CHECK(with_isend[6].request == with_isend[2].request);

  const auto trace = open(kActions + "actions_waitall.txt");
  const auto waitall = calls_of(*trace, 0);
  REQUIRE(waitall.size() == 5);
  check_call(*trace, 0, 3, [&](const Call& call) {
    CHECK(call.type == CallType::waitall);
    CHECK(list(call.requests) == std::vector<std::int64_t>{waitall[1].request, waitall[2].request});
  });
}

TEST_CASE("v-variant collectives hold one count per rank", "[trace][ti]") {
  check_call(*open(kActions + "actions_alltoallv.txt"), 1, 1, [](const Call& alltoallv) {
    CHECK(list(alltoallv.counts) == std::vector<std::int64_t>{80, 1, 40});
    CHECK(list(alltoallv.recv_counts) == std::vector<std::int64_t>{40, 1, 30});
    CHECK(alltoallv.bytes == 121);
  });

  const auto allgatherv = calls_of(*open(kActions + "actions_allgatherv.txt"), 3);
  CHECK(allgatherv[1].count == 204020);
  CHECK(allgatherv[1].recv_bytes == (3 * 275427 + 204020) * 8);
  CHECK(allgatherv[1].datatype == 0);

  const auto gather = calls_of(*open(kActions + "actions_gather.txt"), 2);
  CHECK(gather[1].type == CallType::gather);
  CHECK(gather[1].root == 0);
  CHECK(gather[1].bytes == 68 * 8);  // datatype 0: MPI_DOUBLE

  check_call(*open(kActions + "actions_reducescatter.txt"), 0, 1, [](const Call& reducescatter) {
    CHECK(reducescatter.type == CallType::reduce_scatter);
    CHECK(list(reducescatter.recv_counts) == std::vector<std::int64_t>{275427, 275427, 275427, 204020});
    CHECK(reducescatter.flops == 11349173);
  });
}

TEST_CASE("every shipped action file decodes", "[trace][ti]") {
  for (const auto& entry : std::filesystem::directory_iterator(kActions)) {
    if (entry.path().extension() != ".txt" || entry.path().filename().string().starts_with("actions0") ||
        entry.path().filename().string().starts_with("actions1"))
      continue;
    INFO(entry.path());
    const auto trace = open(entry.path().string());
    for (std::int32_t r = 0; r < trace->ranks(); ++r) {
      const auto calls = calls_of(*trace, r);
      CHECK(calls.front().type == CallType::init);
      CHECK(calls.back().type == CallType::finalize);
    }
  }
}

TEST_CASE("malformed time-independent traces name the file and the line", "[trace][ti]") {
  SECTION("an unknown action") {
    const ScratchTrace t("0 init\n0 bcastt 100\n");
    const auto e = error_reading(t.path);
    CHECK(e.file() == t.path);
    CHECK(e.path() == "line 2");
    CHECK_THAT(e.message(), Catch::Contains("unknown action 'bcastt'"));
  }
  SECTION("a destination out of range") {
    const ScratchTrace t("0 send 1 0 100\n1 recv 0 0 100\n0 send 5 0 100\n");
    const auto e = error_reading(t.path);
    CHECK(e.path() == "line 3");
    CHECK_THAT(e.message(), Catch::Contains("destination 5 is out of range: the trace's ranks are 0 to 1"));
  }
  SECTION("a negative tag, which the replay would take for a wildcard") {
    const ScratchTrace t("0 send 1 -2 100\n1 recv 0 -2 100\n");
    const auto e = error_reading(t.path);
    CHECK(e.path() == "line 1");
    CHECK_THAT(e.message(), Catch::Contains("a negative tag (-2) as argument 2 of 'send': MPI tags are 0 or more"));
  }
  SECTION("an unknown datatype") {
    const ScratchTrace t("0 bcast 100 0 77\n");
    CHECK_THAT(error_reading(t.path).message(), Catch::Contains("unknown datatype '77'"));
  }
  SECTION("a missing or extra argument") {
    CHECK_THAT(error_reading(ScratchTrace("0 send 1 0\n1 recv 0 0 4\n").path).message(),
               Catch::Contains("action 'send' takes 3 to 4 arguments, got 2"));
    CHECK_THAT(error_reading(ScratchTrace("0 barrier 4\n").path).message(),
               Catch::Contains("action 'barrier' takes 0 arguments, got 1"));
  }
  SECTION("a size that is not a number") {
    CHECK_THAT(error_reading(ScratchTrace("0 bcast lots\n").path).message(),
               Catch::Contains("must be a count (0 or more), got 'lots'"));
  }
  SECTION("a rank with no action") {
    const ScratchTrace t("0 init\n2 init\n");
    CHECK_THAT(error_reading(t.path).message(), Catch::Contains("rank 1 has no action"));
  }
  SECTION("a missing rank file in an index") {
    const ScratchTrace t("a.txt\nb.txt\n", "index");
    t.add("a.txt", "0 init\n");
    const auto e = error_reading(t.path);
    CHECK(e.file() == t.path);
    CHECK(e.path() == "line 2");
    CHECK_THAT(e.message(), Catch::Contains("b.txt listed for rank 1 does not exist"));
  }
  SECTION("a rank file holding another rank's actions") {
    const ScratchTrace t("a.txt\nb.txt\n", "index");
    t.add("a.txt", "0 init\n");
    t.add("b.txt", "0 init\n");
    const auto e = error_reading(t.path);
    CHECK(e.file() == (t.dir / "b.txt").string());
    CHECK_THAT(e.message(), Catch::Contains("the line is for rank 0, but this file holds the actions of rank 1"));
  }
  SECTION("a negative count, a rank past 2^31, a negative computation") {
    CHECK_THAT(error_reading(ScratchTrace("0 bcast -8\n").path).message(),
               Catch::Contains("must be a count (0 or more), got '-8'"));
    CHECK_THAT(error_reading(ScratchTrace("0 send 4294967297 0 8\n").path).message(),
               Catch::Contains("expected destination as argument 1 of 'send', got '4294967297'"));
    CHECK_THAT(error_reading(ScratchTrace("0 compute -1e9\n").path).message(),
               Catch::Contains("must be a number (0 or more), got '-1e9'"));
  }
  SECTION("v-variant counts that add up past 2^63 bytes") {
    // 40 ranks, each receiving 9e15 elements of 32 bytes (datatype 27: MPI_C_LONG_DOUBLE_COMPLEX).
    std::string text;
    for (int r = 0; r < 40; ++r) text += std::to_string(r) + " init\n";
    text += "0 gatherv 1";
    for (int r = 0; r < 40; ++r) text += " 9e15";
    text += " 0 27 27\n";
    const auto e = error_reading(ScratchTrace(text).path);
    CHECK(e.path() == "line 41");
    CHECK_THAT(e.message(), Catch::Contains("the counts of 'gatherv' add up to more than 2^63 bytes"));
  }
  SECTION("a missing trace") {
    const auto e = test::input_error_of([] { open("/nonexistent/trace.txt"); });
    CHECK_THAT(e.message(), Catch::Contains("does it exist?"));
  }
}
