// OTF2 traces through the OTF2 library. The golden test: otf2-print's own listing of the events
// (saved beside each trace) gives, for every MPI call of a location, its region, enter and leave
// times, peers, tags, sizes, requests, communicator and root; the reader's calls must match.
#include <catch2/catch.hpp>

#include <otf2/otf2.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>

#include "cli/trace_reader_bench.hpp"
#include "models/apps/replay/trace.hpp"
#include "tests/support/input_error.hpp"
#include "tests/support/scratch_path.hpp"

using namespace torsim;
using namespace torsim::replay;

namespace {

const std::string kData = std::string(TORSIM_SOURCE_DIR) + "/tests/data/traces/";

struct Expected {
  std::string function;
  std::uint64_t enter = 0, leave = 0;
  std::int32_t peer = kNone, tag = kNone, root = kNone;
  std::int64_t bytes = -1, recv_bytes = -1, request = kNone;
  std::string comm;
  std::vector<std::int64_t> requests;
  std::int64_t sent = -1, received = -1;
};

struct Clock {
  std::uint64_t resolution = 0, offset = 0;
};

Clock clock_of(const std::string& defs) {
  std::ifstream in(defs);
  const std::regex clock(R"(^CLOCK_PROPERTIES\s+Ticks per Seconds: (\d+), Global Offset: (\d+),)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, clock)) return {std::stoull(m[1]), std::stoull(m[2])};
  FAIL("no clock properties in " << defs);
  return {};
}

std::int64_t field(const std::string& attributes, const std::string& name) {
  std::smatch m;
  if (std::regex_search(attributes, m, std::regex(name + ": (\\d+)"))) return std::stoll(m[1]);
  return kNone;
}

std::string comm_name(const std::string& attributes) {
  std::smatch m;
  return std::regex_search(attributes, m, std::regex("Communicator: \"([^\"]*)\"")) ? std::string(m[1]) : "";
}

// The MPI calls of `location` as otf2-print lists its events.
std::vector<Expected> expected_calls(const std::string& listing, std::uint64_t location) {
  std::ifstream in(listing);
  const std::regex event(R"(^(\S+)\s+(\d+)\s+(\d+)\s*(.*)$)");
  std::vector<Expected> calls;
  std::map<std::int64_t, std::deque<std::size_t>> open_irecvs;  // request -> its MPI_Irecv calls
  bool in_call = false;
  int depth = 0;
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_match(line, m, event) || std::stoull(m[2]) != location) continue;
    const std::string kind = m[1], attributes = m[4];
    const std::uint64_t time = std::stoull(m[3]);
    if (kind == "ENTER") {
      std::smatch region;
      std::regex_search(attributes, region, std::regex("Region: \"([^\"]*)\""));
      if (in_call)
        ++depth;
      else if (std::string(region[1]).starts_with("MPI_")) {
        calls.push_back({});
        calls.back().function = region[1];
        calls.back().enter = time;
        in_call = true;
      }
      continue;
    }
    if (!in_call) continue;
    Expected& call = calls.back();
    if (kind == "LEAVE") {
      if (depth > 0)
        --depth;
      else {
        call.leave = time;
        in_call = false;
      }
    } else if (kind == "MPI_SEND" || kind == "MPI_ISEND") {
      call.peer = static_cast<std::int32_t>(field(attributes, "Receiver"));
      call.tag = static_cast<std::int32_t>(field(attributes, "Tag"));
      call.bytes = field(attributes, "Length");
      call.comm = comm_name(attributes);
      if (kind == "MPI_ISEND") call.request = field(attributes, "Request");
    } else if (kind == "MPI_RECV") {
      call.peer = static_cast<std::int32_t>(field(attributes, "Sender"));
      call.tag = static_cast<std::int32_t>(field(attributes, "Tag"));
      call.bytes = field(attributes, "Length");
      call.comm = comm_name(attributes);
    } else if (kind == "MPI_IRECV_REQUEST") {
      call.request = field(attributes, "Request");
      open_irecvs[call.request].push_back(calls.size() - 1);
    } else if (kind == "MPI_IRECV" || kind == "MPI_ISEND_COMPLETE") {
      const std::int64_t request = field(attributes, "Request");
      call.requests.push_back(request);
      if (kind == "MPI_IRECV") {  // completes the oldest MPI_Irecv with this request
        Expected& irecv = calls[open_irecvs[request].front()];
        open_irecvs[request].pop_front();
        irecv.peer = static_cast<std::int32_t>(field(attributes, "Sender"));
        irecv.tag = static_cast<std::int32_t>(field(attributes, "Tag"));
        irecv.bytes = field(attributes, "Length");
        irecv.comm = comm_name(attributes);
      }
    } else if (kind == "MPI_COLLECTIVE_END") {
      call.comm = comm_name(attributes);
      call.root = static_cast<std::int32_t>(field(attributes, "Root"));
      call.sent = field(attributes, "Sent");
      call.received = field(attributes, "Received");
    }
  }
  return calls;
}

Time picoseconds(std::uint64_t ticks, const Clock& clock) {
  return static_cast<Time>(static_cast<Int128>(ticks - clock.offset) * kSecond / clock.resolution);
}

void check_location(const Trace& trace, std::int32_t rank, const std::string& listing, const Clock& clock) {
  const auto expected = expected_calls(listing, static_cast<std::uint64_t>(rank));
  REQUIRE(!expected.empty());
  auto cursor = trace.cursor(rank);
  Call call;
  for (const Expected& e : expected) {
    INFO("rank " << rank << ", " << e.function << " entered at " << e.enter);
    REQUIRE(cursor->next(call));
    CHECK(call.function == e.function);
    CHECK(call.type == call_type_of_mpi_function(e.function));
    CHECK(call.start == picoseconds(e.enter, clock));
    CHECK(call.end == picoseconds(e.leave, clock));
    if (!e.comm.empty()) CHECK(trace.communicators()[static_cast<std::size_t>(call.comm)].name == e.comm);
    if (e.peer != kNone) CHECK(call.peer == e.peer);
    if (e.tag != kNone) CHECK(call.tag == e.tag);
    if (e.bytes >= 0) CHECK(call.bytes == e.bytes);
    if (e.request != kNone) CHECK(call.request == e.request);
    CHECK(std::vector<std::int64_t>(call.requests.begin(), call.requests.end()) == e.requests);
    if (e.sent >= 0) {
      CHECK(call.root == e.root);
      const auto n = static_cast<std::int64_t>(trace.communicators()[static_cast<std::size_t>(call.comm)].ranks.size());
      if (call.type == CallType::bcast) CHECK(call.bytes == (e.sent > 0 ? e.sent / n : e.received));
      if (call.type == CallType::barrier) CHECK(call.bytes == 0);
    }
  }
  CHECK_FALSE(cursor->next(call));
}

}  // namespace

TEST_CASE("the OTF2 reader gives the calls otf2-print lists (ember's broadcast, Score-P)", "[trace][otf2][golden]") {
  const std::string dir = kData + "otf2-ember-bcast/";
  const auto trace = open_trace(dir + "traces.otf2", Format::automatic, Where("test"));
  CHECK(trace->format() == Format::otf2);
  REQUIRE(trace->ranks() == 4);
  CHECK_FALSE(trace->local_handles());
  CHECK(trace->rank(0).host == "dane5");
  CHECK(trace->communicators()[kCommWorld].name == "MPI_COMM_WORLD");
  CHECK(trace->communicators()[kCommWorld].ranks == std::vector<std::int32_t>{0, 1, 2, 3});
  const Clock clock = clock_of(dir + "otf2-print-defs.txt");
  for (std::int32_t r = 0; r < 4; ++r) check_location(*trace, r, dir + "otf2-print.txt", clock);
}

TEST_CASE("the OTF2 reader gives the calls otf2-print lists (TraceR's 4-D stencil, 32 ranks)",
          "[trace][otf2][golden]") {
  const std::string dir = kData + "otf2-stencil4d/";
  const auto trace = open_trace(dir + "traces.otf2", Format::automatic, Where("test"));
  REQUIRE(trace->ranks() == 32);
  CHECK(trace->rank(0).host == "quartz1");
  CHECK(trace->rank(1).host == "quartz2");
  const Clock clock = clock_of(dir + "otf2-print-defs.txt");
  for (std::int32_t r : {0, 17})
    check_location(*trace, r, dir + "otf2-print-location-" + std::to_string(r) + ".txt", clock);
}

TEST_CASE("an MPI_Irecv gets its source, tag and size from its completion", "[trace][otf2]") {
  const auto trace = open_trace(kData + "otf2-stencil4d/traces.otf2", Format::otf2, Where("test"));
  auto cursor = trace->cursor(5);
  Call call;
  int irecvs = 0, waitalls = 0;
  while (cursor->next(call)) {
    if (call.type == CallType::irecv) {
      ++irecvs;
      CHECK(call.peer >= 0);
      CHECK(call.bytes == 128 * 1024);
    }
    if (call.type == CallType::waitall) {
      ++waitalls;
      CHECK(call.requests.size() == 8);
      CHECK(call.completed.size() == 8);
    }
  }
  CHECK(irecvs == 16);
  CHECK(waitalls == 2);
}

// sst-macro writes no CommCreate event in MPI_Comm_split: the calls after it name their
// communicator, whose ranks the definitions give.
TEST_CASE("sst-macro's coverage trace: split communicators with their ranks", "[trace][otf2]") {
  const auto trace = open_trace(kData + "otf2-sstmacro-coverage", Format::automatic, Where("test"));
  REQUIRE(trace->ranks() == 10);
  CHECK(trace->communicators().size() > 2);
  std::map<CallType, int> counts;
  for (std::int32_t r = 0; r < trace->ranks(); ++r) {
    auto cursor = trace->cursor(r);
    Call call;
    while (cursor->next(call)) {
      ++counts[call.type];
      CHECK(call.comm >= 0);
      CHECK(call.comm < static_cast<std::int32_t>(trace->communicators().size()));
      if (call.type == CallType::isend && call.comm != kCommWorld) {
        const auto& comm = trace->communicators()[static_cast<std::size_t>(call.comm)];
        CHECK(comm.ranks.size() < 10);
        if (comm.ranks.empty())
          CHECK(comm.name == "(ranks not recorded)");
        else
          CHECK(std::find(comm.ranks.begin(), comm.ranks.end(), r) != comm.ranks.end());
      }
    }
  }
  CHECK(counts[CallType::comm_split] == 20);
  CHECK(counts[CallType::alltoall] == 360);
  CHECK(counts[CallType::other] == 360 * 3 + 20);  // MPI_Ialltoall, Iallreduce, Iallgather, MPI_Initialized
}

TEST_CASE("a cursor can be opened again, and twice at once", "[trace][otf2]") {
  const auto trace = open_trace(kData + "otf2-ember-bcast/traces.otf2", Format::otf2, Where("test"));
  auto count = [](RankCursor& c) {
    Call call;
    int n = 0;
    while (c.next(call)) ++n;
    return n;
  };
  const int first = count(*trace->cursor(2));
  CHECK(first == 4);
  CHECK(count(*trace->cursor(2)) == first);
  auto a = trace->cursor(1);
  auto b = trace->cursor(1);
  CHECK(count(*a) == count(*b));
}

TEST_CASE("a missing OTF2 anchor file is an input error", "[trace][otf2]") {
  const auto e = test::input_error_of([] { open_trace(kData + "missing.otf2", Format::automatic, Where("test")); });
  CHECK(e.file() == kData + "missing.otf2");
}

namespace {

// A 2-rank OTF2 archive written with the library, with the values of its one message chosen
// by the test: rank 0 calls MPI_Send (to `receiver`, with `tag`, of `length` bytes), rank 1
// MPI_Recv; ticks are nanoseconds and rank 0 leaves its send at `leave`.
struct Otf2Message {
  std::uint32_t receiver = 1, tag = 0;
  std::uint64_t length = 8;
  OTF2_TimeStamp leave = 2;
};

OTF2_FlushType flush_always(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }

void write_otf2_definitions(OTF2_Archive* archive) {
  OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(archive);
  OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0, 10, OTF2_UNDEFINED_TIMESTAMP);
  const char* names[] = {"", "MPI_Send", "MPI_Recv", "MPI_COMM_WORLD", "node", "rank"};
  for (std::uint32_t i = 0; i < 6; ++i) OTF2_GlobalDefWriter_WriteString(d, i, names[i]);
  for (std::uint32_t i = 0; i < 2; ++i)
    OTF2_GlobalDefWriter_WriteRegion(d, i, i + 1, i + 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 4, 4, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  const std::uint64_t members[] = {0, 1};
  for (std::uint32_t r = 0; r < 2; ++r) {
    OTF2_GlobalDefWriter_WriteLocationGroup(d, r, 5, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(d, r, 5, OTF2_LOCATION_TYPE_CPU_THREAD, 3, r);
  }
  OTF2_GlobalDefWriter_WriteGroup(d, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2,
                                  members);
  OTF2_GlobalDefWriter_WriteGroup(d, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2,
                                  members);
  OTF2_GlobalDefWriter_WriteComm(d, 0, 3, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
}

struct Otf2Scratch {
  std::filesystem::path dir = test::scratch_path("torsim-otf2");
  std::string anchor = (dir / "t.otf2").string();
  explicit Otf2Scratch(const Otf2Message& m) {
    std::filesystem::remove_all(dir);
    OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "t", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    const OTF2_FlushCallbacks flush = {flush_always, nullptr};
    OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr);
    OTF2_Archive_SetSerialCollectiveCallbacks(archive);
    OTF2_Archive_OpenEvtFiles(archive);
    OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, 0);
    OTF2_EvtWriter_Enter(w, nullptr, 1, 0);
    OTF2_EvtWriter_MpiSend(w, nullptr, 1, m.receiver, 0, m.tag, m.length);
    OTF2_EvtWriter_Leave(w, nullptr, m.leave, 0);
    OTF2_Archive_CloseEvtWriter(archive, w);
    w = OTF2_Archive_GetEvtWriter(archive, 1);
    OTF2_EvtWriter_Enter(w, nullptr, 1, 1);
    OTF2_EvtWriter_MpiRecv(w, nullptr, 2, 0, 0, m.tag, m.length);
    OTF2_EvtWriter_Leave(w, nullptr, 3, 1);
    OTF2_Archive_CloseEvtWriter(archive, w);
    OTF2_Archive_CloseEvtFiles(archive);
    write_otf2_definitions(archive);
    OTF2_Archive_Close(archive);
  }
  ~Otf2Scratch() { std::filesystem::remove_all(dir); }
};

// The first call of rank 0.
Call send_of(const Otf2Message& m) {
  const Otf2Scratch scratch(m);
  const auto trace = open_trace(scratch.anchor, Format::otf2, Where("test"));
  Call call;
  const bool read = trace->cursor(0)->next(call);  // outside REQUIRE: the errors must pass through
  REQUIRE(read);
  return call;
}

std::string error_of(const Otf2Message& m) {
  return test::input_error_of([&] { send_of(m); }).message();
}

}  // namespace

TEST_CASE("OTF2's unsigned fields past the replay's signed ones are input errors", "[trace][otf2]") {
  const Call fine = send_of({});
  CHECK(fine.type == CallType::send);
  CHECK(fine.peer == 1);
  CHECK(fine.bytes == 8);
  CHECK(fine.end - fine.start == 1000);  // a tick is a nanosecond
  CHECK_THAT(error_of({.length = std::uint64_t{1} << 63}),
             Catch::Contains("a message size of 9223372036854775808 bytes is past 2^63 - 1"));
  CHECK_THAT(error_of({.tag = std::uint32_t{1} << 31}), Catch::Contains("tag 2147483648 is beyond"));
  CHECK_THAT(error_of({.receiver = 5}), Catch::Contains("destination 5 is out of range"));
  CHECK_THAT(error_of({.leave = OTF2_UNDEFINED_TIMESTAMP - 1}), Catch::Contains("more than 2^63 ps"));
}

TEST_CASE("the readers' benchmark reads every record of the traces it writes", "[trace][bench]") {
  const Json figures = trace_reader_speed(true);
  REQUIRE(figures.size() == 3);
  CHECK(figures[0]["format"] == "ti");
  CHECK(figures[0]["records"] == 16 * (500 * 11 + 2));  // per step: 8 isend/irecv, waitall, allreduce, compute
  CHECK(figures[1]["format"] == "dumpi");
  CHECK(figures[1]["records"] == 37389);
  CHECK(figures[2]["format"] == "otf2");
  CHECK(figures[2]["records"] == 16 * 500 * 10);
  for (const Json& f : figures) CHECK(f["records_per_s"].get<double>() > 0);
}
