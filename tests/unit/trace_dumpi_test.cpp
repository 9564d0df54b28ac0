// DUMPI traces. The golden test: testtrace-0000.txt is sst-dumpi's own decode (dumpi2ascii) of
// testtrace-0000.bin; the reader's records, printed the way dumpi2ascii prints them, must give
// that file line for line: header, every call with every argument and both clocks, keyvals,
// footer counts, perfcounters and datatype sizes.
#include <catch2/catch.hpp>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "models/apps/replay/dumpi_reader.hpp"
#include "tests/support/input_error.hpp"
#include "tests/support/scratch_path.hpp"

using namespace torsim;
using namespace torsim::replay;

namespace {

const std::string kData = std::string(TORSIM_SOURCE_DIR) + "/tests/data/traces/";
const std::string kTestTrace = kData + "dumpi-testtrace/";
const std::string kAmg = kData + "dumpi-amg27-hopper/";

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string clock_text(const dumpi::Clock& c) {
  char text[40];
  std::snprintf(text, sizeof text, "%lld.%09lld", static_cast<long long>(c.sec), static_cast<long long>(c.nsec));
  return text;
}

// ctime()'s form; sst-dumpi's decode was printed at UTC-8 (the recording machine's zone).
std::string start_text(std::int64_t seconds) {
  const std::time_t t = seconds - 8 * 3600;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::strftime(text, sizeof text, "%a %b %e %H:%M:%S %Y", &tm);
  return text;
}

std::string list(std::span<const std::int64_t> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

// One argument as dumpi2ascii prints it.
void print_arg(std::vector<std::string>& out, const dumpi::Record& r, const dumpi::ArgSpec& spec,
               const dumpi::Record::Arg& a) {
  const std::string name(spec.name), v = std::to_string(a.value);
  switch (spec.kind) {
    case dumpi::Kind::int32:
      if (name == "source" && a.value == dumpi::kAnySource)
        out.push_back("int source=" + v + " (MPI_ANY_SOURCE)");
      else if (name == "tag" && a.value == dumpi::kAnyTag)
        out.push_back("int tag=" + v + " (MPI_ANY_TAG)");
      else
        out.push_back("int " + name + "=" + v);
      return;
    case dumpi::Kind::datatype:
      out.push_back("MPI_Datatype " + name + "=" + v + " (" +
                    std::string(dumpi::datatype_name(static_cast<std::int32_t>(a.value))) + ")");
      return;
    case dumpi::Kind::comm:
      out.push_back("MPI_Comm " + name + "=" + v + " (" +
                    std::string(dumpi::comm_name(static_cast<std::int32_t>(a.value))) + ")");
      return;
    case dumpi::Kind::op:
      out.push_back("MPI_Op " + name + "=" + v + " (" +
                    std::string(dumpi::op_name(static_cast<std::int32_t>(a.value))) + ")");
      return;
    case dumpi::Kind::request:
      out.push_back("MPI_Request " + name + "=[" + v + "]");
      return;
    case dumpi::Kind::statuses: {
      if (!a.present || a.n == 0) {
        out.push_back("MPI_Status " + name + "=<IGNORED>");
        return;
      }
      std::string text = "MPI_Status " + name + "=[";
      for (std::size_t i = 0; i < a.n; ++i) {
        const dumpi::Status& s = r.statuses[a.first + i];
        text += std::string(i ? ", " : "") + "{bytes=" + std::to_string(s.bytes) +
                ", cancelled=" + std::to_string(s.cancelled) + ", source=" + std::to_string(s.source) +
                ", tag=" + std::to_string(s.tag) + ", error=" + std::to_string(s.error) + "}";
      }
      out.push_back(text + "]");
      return;
    }
    case dumpi::Kind::texts: {
      out.push_back("int argc=" + v);
      std::string text = "string " + name + "[" + v + "]=[";
      for (std::size_t i = 0; i < a.n; ++i)
        text += std::string(i ? ", " : "") + "\"" + std::string(r.texts[a.first + i]) + "\"";
      out.push_back(text + "]");
      return;
    }
    default:
      out.push_back(name + "=" + list(r.values(a)));
  }
}

std::vector<std::string> print_like_dumpi2ascii(const dumpi::File& f) {
  std::vector<std::string> out;
  const auto v = f.version();
  out.push_back("version=" + std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]));
  out.push_back("starttime=" + start_text(f.start_time()));
  out.push_back("hostname=" + f.hostname());
  out.push_back("username=" + f.username());
  out.push_back("meshdim=" + std::to_string(f.mesh_coords().size()));
  auto ints = [](const std::vector<std::int32_t>& values) {
    std::vector<std::int64_t> wide(values.begin(), values.end());
    return list(wide);
  };
  out.push_back("meshsize=" + ints(f.mesh_size()));
  out.push_back("meshcrd=" + ints(f.mesh_coords()));
  dumpi::File::Stream stream(f);
  dumpi::Record r;
  while (stream.next(r)) {
    const std::string name(r.function().name), thread = " seconds in thread " + std::to_string(r.thread) + ".";
    out.push_back(name + " entering at walltime " + clock_text(r.wall_start) + ", cputime " + clock_text(r.cpu_start) +
                  thread);
    for (std::size_t i = 0; i < r.args.size(); ++i) print_arg(out, r, r.function().args[i], r.args[i]);
    out.push_back(name + " returning at walltime " + clock_text(r.wall_stop) + ", cputime " + clock_text(r.cpu_stop) +
                  thread);
  }
  out.push_back("Total keyvals: " + std::to_string(f.keyvals().size()));
  for (std::uint16_t label = 0; label <= dumpi::kAllFunctions; ++label)
    out.push_back(std::string(dumpi::function(label).name) + " called " + std::to_string(f.call_counts()[label]) +
                  " times and ignored " + std::to_string(f.ignored_counts()[label]) + " times");
  out.push_back("Performance counters: " + std::to_string(f.perf_labels().size()));
  for (std::size_t id = 0; id < f.datatype_sizes().size(); ++id)
    out.push_back("Datatype " + std::to_string(id) + " (" +
                  std::string(dumpi::datatype_name(static_cast<std::int32_t>(id))) + ") has size " +
                  std::to_string(f.datatype_sizes()[id]));
  return out;
}

std::vector<Call> calls_of(const Trace& trace, std::int32_t rank) {
  std::vector<Call> calls;
  auto cursor = trace.cursor(rank);
  Call call;
  while (cursor->next(call)) calls.push_back(call);
  return calls;
}

// A copy of a rank file, altered, in a scratch directory.
struct AlteredCopy {
  AlteredCopy() : dir(test::scratch_path("torsim-dumpi")) {
    std::filesystem::create_directories(dir);
    for (const char* f :
         {"testtrace.meta", "testtrace-0000.bin", "testtrace-0001.bin", "testtrace-0002.bin", "testtrace-0003.bin"})
      std::filesystem::copy_file(kTestTrace + f, dir / f, std::filesystem::copy_options::overwrite_existing);
    std::ifstream in(dir / "testtrace-0000.bin", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ~AlteredCopy() { std::filesystem::remove_all(dir); }
  void write() const {
    std::ofstream(dir / "testtrace-0000.bin", std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  std::string meta() const { return (dir / "testtrace.meta").string(); }
  std::string bin() const { return (dir / "testtrace-0000.bin").string(); }
  std::filesystem::path dir;
  std::vector<char> bytes;
};

InputError error_reading(const std::string& path) {
  return test::input_error_of([&] {
    auto trace = open_trace(path, Format::automatic, Where("test"));
    for (std::int32_t r = 0; r < trace->ranks(); ++r) calls_of(*trace, r);
  });
}

}  // namespace

TEST_CASE("the DUMPI reader decodes testtrace-0000.bin exactly as sst-dumpi does", "[trace][dumpi][golden]") {
  const dumpi::File file(kTestTrace + "testtrace-0000.bin");
  const auto expected = lines_of(kTestTrace + "testtrace-0000.txt");
  const auto decoded = print_like_dumpi2ascii(file);
  REQUIRE(expected.size() > 300);
  for (std::size_t i = 0; i < std::min(expected.size(), decoded.size()); ++i) {
    INFO("line " << i + 1);
    REQUIRE(decoded[i] == expected[i]);
  }
  CHECK(decoded.size() == expected.size());
}

TEST_CASE("DUMPI records become calls: sizes from the datatype table, times from the earliest start",
          "[trace][dumpi]") {
  const auto trace = open_trace(kTestTrace + "testtrace.meta", Format::automatic, Where("test"));
  CHECK(trace->format() == Format::dumpi);
  REQUIRE(trace->ranks() == 4);
  CHECK(trace->rank(2).host == "hadalst-mbp.ca.sandia.gov");
  CHECK(trace->rank(3).file == kTestTrace + "testtrace-0003.bin");
  CHECK(trace->datatypes()[9].name == "MPI_INT");
  CHECK(trace->datatypes()[9].size == 4);
  const auto calls = calls_of(*trace, 0);
  REQUIRE(calls.size() == 9);
  CHECK(calls[0].type == CallType::init);
  CHECK(calls[2].type == CallType::comm_size);
  CHECK(calls[2].count == 4);
  CHECK(calls[4].type == CallType::isend);
  CHECK(calls[4].peer == 1);
  CHECK(calls[4].tag == 1337);
  CHECK(calls[4].bytes == 4);
  CHECK(calls[4].comm == kCommWorld);
  CHECK(calls[5].type == CallType::recv);
  CHECK(calls[5].peer == 3);
  CHECK(calls[6].type == CallType::wait);
  CHECK(calls[6].request == calls[4].request);
  CHECK(calls[6].matched_source == 9);  // the status sst-dumpi recorded (uninitialised by the program)
  CHECK(calls[7].type == CallType::allreduce);
  CHECK(calls[7].bytes == 4);
  CHECK(calls[8].type == CallType::finalize);
  CHECK(calls[4].function == "MPI_Isend");
  // Isend entered at 1296777956.739674 s; the earliest record of any rank starts the trace.
  CHECK(calls[4].end - calls[4].start == 15 * kMicrosecond);
  CHECK(calls[0].start >= 0);
  Time earliest = kNoTime;
  for (std::int32_t r = 0; r < 4; ++r) {
    const Time t = calls_of(*trace, r).front().start;
    earliest = earliest == kNoTime ? t : std::min(earliest, t);
  }
  CHECK(earliest == 0);
  CHECK(trace->where(0, calls[4]) ==
        kTestTrace + "testtrace-0000.bin: at record 4 (byte " + std::to_string(calls[4].offset) + ")");
}

TEST_CASE("a rank's .bin opens its run through the .meta beside it", "[trace][dumpi]") {
  const auto trace = open_trace(kTestTrace + "testtrace-0002.bin", Format::automatic, Where("test"));
  CHECK(trace->ranks() == 4);
  CHECK(trace->path() == kTestTrace + "testtrace.meta");
}

TEST_CASE("the AMG trace recorded on Hopper decodes on every rank", "[trace][dumpi]") {
  const auto trace = open_trace(kAmg + "dumpi-2014.03.03.14.55.00.meta", Format::automatic, Where("test"));
  REQUIRE(trace->ranks() == 27);
  CHECK(trace->rank(0).host == "nid05840");
  CHECK(trace->rank(23).host == "nid05840");
  CHECK(trace->rank(24).host == "nid05841");
  std::map<CallType, std::int64_t> counts;
  std::int64_t records = 0;
  for (std::int32_t r = 0; r < trace->ranks(); ++r) {
    const auto calls = calls_of(*trace, r);
    CHECK(calls.size() >= 900);  // the stream holds the first ~0.5 s: 991 to 2,400 records per rank
    records += static_cast<std::int64_t>(calls.size());
    Time previous = 0;
    for (const Call& c : calls) {
      ++counts[c.type];
      CHECK(c.start >= previous);
      CHECK(c.end >= c.start);
      previous = c.start;
      if (c.type == CallType::isend || c.type == CallType::irecv) {
        CHECK(c.peer >= 0);
        CHECK(c.peer < 27);
        CHECK(c.bytes >= 0);
      }
    }
  }
  CHECK(counts[CallType::isend] > 0);
  CHECK(counts[CallType::isend] == counts[CallType::irecv]);
  CHECK(counts[CallType::waitall] > 0);
  CHECK(records > 27000);
}

TEST_CASE("malformed DUMPI traces name the file and the record", "[trace][dumpi]") {
  AlteredCopy copy;
  SECTION("a wrong magic") {
    copy.bytes[3] = 'X';
    copy.write();
    const auto e = error_reading(copy.meta());
    CHECK(e.file() == copy.bin());
    CHECK(e.path() == "byte 0");
    CHECK_THAT(e.message(), Catch::Contains("not a DUMPI trace file"));
  }
  SECTION("a truncated file") {
    copy.bytes.resize(copy.bytes.size() - 20);
    copy.write();
    CHECK_THAT(error_reading(copy.meta()).message(), Catch::Contains("truncated"));
  }
  SECTION("a missing rank file") {
    std::filesystem::remove(copy.dir / "testtrace-0003.bin");
    const auto e = error_reading(copy.meta());
    CHECK(e.file() == copy.meta());
    CHECK_THAT(e.message(), Catch::Contains("the trace file of rank 3"));
  }
  SECTION("an unknown datatype") {
    // MPI_Isend's datatype (MPI_INT, 9) at the 5th record becomes 200.
    const dumpi::File f(copy.bin());
    dumpi::File::Stream s(f);
    dumpi::Record r;
    for (int i = 0; i < 5; ++i) s.next(r);
    const std::size_t datatype_at = r.offset + 2 + 1 + 2 + 24 + 4;  // label, mask, thread, clocks, count
    REQUIRE(static_cast<unsigned char>(copy.bytes[datatype_at + 1]) == 9);
    copy.bytes[datatype_at + 1] = static_cast<char>(200);
    copy.write();
    const auto e = error_reading(copy.meta());
    CHECK(e.file() == copy.bin());
    CHECK(e.path() == "record 4 (byte " + std::to_string(r.offset) + ")");
    CHECK_THAT(e.message(),
               Catch::Contains("MPI_Isend: unknown datatype 200: the trace's datatype table has 28 entries"));
  }
  SECTION("a negative count") {
    // MPI_Isend's count at the 5th record becomes -2: no size can be replayed from it.
    const dumpi::File f(copy.bin());
    dumpi::File::Stream s(f);
    dumpi::Record r;
    for (int i = 0; i < 5; ++i) s.next(r);
    const std::size_t count_at = r.offset + 2 + 1 + 2 + 24;  // label, mask, thread, clocks
    for (int b = 0; b < 4; ++b) copy.bytes[count_at + b] = static_cast<char>(b == 3 ? 0xfe : 0xff);
    copy.write();
    const auto e = error_reading(copy.meta());
    CHECK(e.path() == "record 4 (byte " + std::to_string(r.offset) + ")");
    CHECK_THAT(e.message(), Catch::Contains("MPI_Isend: a negative count (-2)"));
  }
  SECTION("a destination out of range") {
    const dumpi::File f(copy.bin());
    dumpi::File::Stream s(f);
    dumpi::Record r;
    for (int i = 0; i < 5; ++i) s.next(r);
    const std::size_t dest_at = r.offset + 2 + 1 + 2 + 24 + 4 + 2;
    REQUIRE(static_cast<unsigned char>(copy.bytes[dest_at + 3]) == 1);
    copy.bytes[dest_at + 3] = 7;
    copy.write();
    CHECK_THAT(error_reading(copy.meta()).message(), Catch::Contains("rank 7 is out of range: the run had 4 ranks"));
  }
  SECTION("a communicator no call created") {
    const dumpi::File f(copy.bin());
    dumpi::File::Stream s(f);
    dumpi::Record r;
    for (int i = 0; i < 4; ++i) s.next(r);  // MPI_Barrier: its only argument is the communicator
    const std::size_t comm_at = r.offset + 2 + 1 + 2 + 24;
    REQUIRE(static_cast<unsigned char>(copy.bytes[comm_at + 1]) == 2);
    copy.bytes[comm_at + 1] = 12;
    copy.write();
    CHECK_THAT(error_reading(copy.meta()).message(), Catch::Contains("communicator 12 is out of range"));
  }
  SECTION("an unknown function label") {
    const dumpi::File f(copy.bin());
    dumpi::File::Stream s(f);
    dumpi::Record r;
    for (int i = 0; i < 3; ++i) s.next(r);
    copy.bytes[r.offset] = 0x7f;
    copy.write();
    CHECK_THAT(error_reading(copy.meta()).message(), Catch::Contains("unknown function label"));
  }
}
