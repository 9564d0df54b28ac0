#include "cli/trace_reader_bench.hpp"

#include <unistd.h>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <otf2/otf2.h>

#include "models/apps/replay/ti_writer.hpp"
#include "models/apps/replay/trace.hpp"

namespace torsim {

namespace {

using namespace replay;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kTraces = std::string(TORSIM_SOURCE_DIR) + "/tests/data/traces/";

// Every record of every rank, once; the number read.
std::int64_t read_all(const Trace& trace) {
  std::int64_t records = 0;
  Call call;
  for (std::int32_t r = 0; r < trace.ranks(); ++r) {
    auto cursor = trace.cursor(r);
    while (cursor->next(call)) ++records;
  }
  return records;
}

// Passes over the whole trace (each rank's cursor from its start) until at least `seconds` went
// by; opening the trace (its definitions, the check of every rank's file) is not counted.
Json measure(const std::string& label, const std::string& path, Format format, double seconds) {
  const auto trace = open_trace(path, format, Where("the benchmark"));
  std::int64_t records = 0, passes = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  while (elapsed < seconds) {
    records += read_all(*trace);
    ++passes;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return {{"format", label},
          {"trace", path.starts_with(kTraces) ? path.substr(kTraces.size()) : "written by the benchmark"},
          {"records", records / passes},
          {"passes", passes},
          {"records_per_s", static_cast<double>(records) / elapsed}};
}

struct FileSink : TiSink {
  explicit FileSink(fs::path d) : dir(std::move(d)) {}
  void append(const std::string& name, std::string_view text) override {
    fs::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::app) << text;
  }
  fs::path dir;
};

}  // namespace

// Per step, isends and irecvs to 4 neighbours, a waitall, an allreduce, a compute.
std::string write_halo_trace(const fs::path& dir, std::int32_t ranks, std::int32_t steps) {
  FileSink sink(dir);
  TiWriter writer(sink, "bench.txt", ranks, TiWriter::Layout::per_rank, Where("the benchmark"));
  for (std::int32_t r = 0; r < ranks; ++r) {
    std::int64_t request = 0;
    writer.write(r, Call{.type = CallType::init});
    std::vector<std::int64_t> requests;
    for (std::int32_t s = 0; s < steps; ++s) {
      requests.clear();
      for (std::int32_t d : {1, ranks - 1, 2, ranks - 2}) {
        requests.push_back(request);
        requests.push_back(request + 1);
        writer.write(
            r, Call{.type = CallType::irecv, .peer = (r + d) % ranks, .tag = s, .bytes = 8192, .request = request++});
        writer.write(
            r, Call{.type = CallType::isend, .peer = (r + d) % ranks, .tag = s, .bytes = 8192, .request = request++});
      }
      writer.write(r, Call{.type = CallType::waitall, .requests = requests});
      writer.write(r, Call{.type = CallType::allreduce, .bytes = 8, .flops = 1});
      writer.write(r, Call{.type = CallType::compute, .flops = 1e6});
    }
    writer.write(r, Call{.type = CallType::finalize});
  }
  writer.finish();
  return (dir / "bench.txt").string();
}

namespace {

// The same exchange as an OTF2 archive (as Score-P would record it), written with the OTF2
// library: regions MPI_Irecv, MPI_Isend, MPI_Waitall, MPI_Allreduce; a tick is a nanosecond.
OTF2_FlushType always_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }

void write_otf2_events(OTF2_Archive* archive, std::uint32_t ranks, std::uint32_t r, std::int32_t steps) {
  OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(archive, r);
  OTF2_TimeStamp t = 0;
  std::uint64_t request = 0;
  auto region = [&](OTF2_RegionRef id, auto&& inside) {
    OTF2_EvtWriter_Enter(w, nullptr, ++t, id);
    inside();
    OTF2_EvtWriter_Leave(w, nullptr, ++t, id);
  };
  for (std::int32_t s = 0; s < steps; ++s) {
    const std::uint64_t first = request;
    for (std::uint32_t d : {1u, ranks - 1, 2u, ranks - 2}) {
      const std::uint32_t peer = (r + d) % ranks, tag = static_cast<std::uint32_t>(s);
      region(0, [&] { OTF2_EvtWriter_MpiIrecvRequest(w, nullptr, t, request++); });
      region(1, [&] { OTF2_EvtWriter_MpiIsend(w, nullptr, t, peer, 0, tag, 8192, request++); });
    }
    region(2, [&] {
      for (std::uint64_t q = first; q < request; q += 2) {
        OTF2_EvtWriter_MpiIrecv(w, nullptr, t, (r + 1) % ranks, 0, static_cast<std::uint32_t>(s), 8192, q);
        OTF2_EvtWriter_MpiIsendComplete(w, nullptr, t, q + 1);
      }
    });
    region(3, [&] {
      OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, t);
      OTF2_EvtWriter_MpiCollectiveEnd(w, nullptr, t, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, OTF2_UNDEFINED_UINT32, 8 * ranks,
                                      8 * ranks);
    });
    t += 1000;
  }
  OTF2_Archive_CloseEvtWriter(archive, w);
}

void write_otf2_definitions(OTF2_Archive* archive, std::uint32_t ranks) {
  OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(archive);
  OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0, 1, OTF2_UNDEFINED_TIMESTAMP);
  const char* names[] = {"",     "MPI_Irecv", "MPI_Isend", "MPI_Waitall", "MPI_Allreduce", "MPI_COMM_WORLD",
                         "node", "rank"};
  for (std::uint32_t i = 0; i < 8; ++i) OTF2_GlobalDefWriter_WriteString(d, i, names[i]);
  for (std::uint32_t i = 0; i < 4; ++i)
    OTF2_GlobalDefWriter_WriteRegion(d, i, i + 1, i + 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 6, 6, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  std::vector<std::uint64_t> members;
  for (std::uint32_t r = 0; r < ranks; ++r) {
    OTF2_GlobalDefWriter_WriteLocationGroup(d, r, 7, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(d, r, 7, OTF2_LOCATION_TYPE_CPU_THREAD, 0, r);
    members.push_back(r);
  }
  OTF2_GlobalDefWriter_WriteGroup(d, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                  ranks, members.data());
  OTF2_GlobalDefWriter_WriteGroup(d, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks,
                                  members.data());
  OTF2_GlobalDefWriter_WriteComm(d, 0, 5, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
}

std::string write_otf2_trace(const fs::path& dir, std::uint32_t ranks, std::int32_t steps) {
  OTF2_Archive* archive = OTF2_Archive_Open(dir.c_str(), "bench", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                            OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  const OTF2_FlushCallbacks flush = {always_flush, nullptr};
  OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive);
  OTF2_Archive_OpenEvtFiles(archive);
  for (std::uint32_t r = 0; r < ranks; ++r) write_otf2_events(archive, ranks, r, steps);
  OTF2_Archive_CloseEvtFiles(archive);
  write_otf2_definitions(archive, ranks);
  OTF2_Archive_Close(archive);
  return (dir / "bench.otf2").string();
}

}  // namespace

Json trace_reader_speed(bool quick) {
  const double seconds = quick ? 0.2 : 1.0;
  Json figures = Json::array();
  const fs::path dir = fs::temp_directory_path() / ("torsim-bench-traces-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::int32_t ranks = quick ? 16 : 64, steps = quick ? 500 : 2000;
  const std::string ti = write_halo_trace(dir / "ti", ranks, steps);
  figures.push_back(measure("ti", ti, Format::time_independent, seconds));
  figures.push_back(
      measure("dumpi", kTraces + "dumpi-amg27-hopper/dumpi-2014.03.03.14.55.00.meta", Format::dumpi, seconds));
  const std::string otf2 = write_otf2_trace(dir / "otf2", static_cast<std::uint32_t>(ranks), steps);
  figures.push_back(measure("otf2", otf2, Format::otf2, seconds));
  fs::remove_all(dir);
  return figures;
}

void print_trace_reader_speed(std::ostream& out, const Json& figures) {
  out << "trace readers (records decoded per second, one core):\n";
  for (const Json& f : figures) {
    char line[200];
    std::snprintf(line, sizeof line, "  %-6s %10.2f M records/s  (%s, %lld records a pass, %lld passes)\n",
                  f["format"].get<std::string>().c_str(), f["records_per_s"].get<double>() / 1e6,
                  f["trace"].get<std::string>().c_str(), static_cast<long long>(f["records"].get<std::int64_t>()),
                  static_cast<long long>(f["passes"].get<std::int64_t>()));
    out << line;
  }
}

}  // namespace torsim
