#include "models/apps/replay/trace.hpp"

#include <array>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "models/apps/replay/dumpi_reader.hpp"
#include "models/apps/replay/otf2_reader.hpp"
#include "models/apps/replay/ti_reader.hpp"
#include "sim/config/error.hpp"
#include "sim/config/registry.hpp"

namespace torsim::replay {

namespace {

// clang-format off
constexpr std::array<std::string_view, kCallTypes> kCallTypeNames = {
    "init", "finalize", "comm_rank", "comm_size",
    "send", "bsend", "ssend", "rsend", "isend", "ibsend", "issend", "irsend", "recv", "irecv", "sendrecv",
    "sendrecv_replace", "probe", "iprobe", "send_init", "recv_init", "start", "startall", "request_free", "cancel",
    "wait", "waitall", "waitany", "waitsome", "test", "testall", "testany", "testsome",
    "barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
    "alltoall", "alltoallv", "alltoallw", "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
    "comm_dup", "comm_split", "comm_create", "comm_free", "comm_group", "group_incl", "group_excl",
    "group_range_incl", "group_range_excl", "group_union", "group_intersection", "group_difference", "group_free",
    "cart_create", "cart_sub",
    "compute", "sleep",
    "other"};
// clang-format on

constexpr std::array<std::string_view, 4> kFormatNames = {"auto", "ti", "dumpi", "otf2"};

constexpr std::array<std::string_view, 12> kOriginNames = {"world", "self",  "empty",     "dup",  "split", "create",
                                                           "cart",  "graph", "intercomm", "incl", "excl",  "other"};

bool ends_with(const std::string& text, std::string_view suffix) { return text.ends_with(suffix); }

// A directory holds an OTF2 archive (traces.otf2) or one DUMPI run (one .meta).
std::string trace_in_directory(const std::string& dir, const Where& where) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(fs::path(dir) / "traces.otf2", ec)) return (fs::path(dir) / "traces.otf2").string();
  std::vector<std::string> metas;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".meta") metas.push_back(entry.path().string());
  if (metas.size() == 1) return metas.front();
  where.fail("no trace found in the directory " + dir + (metas.empty() ? "" : " (it holds several DUMPI .meta files)") +
             ": give the OTF2 anchor file (traces.otf2), a DUMPI .meta file, or a time-independent index file");
}

}  // namespace

std::string_view call_type_name(CallType type) { return kCallTypeNames[static_cast<std::size_t>(type)]; }

CallType call_type_of_mpi_function(std::string_view name) {
  static const std::unordered_map<std::string_view, CallType> types = [] {
    std::unordered_map<std::string_view, CallType> all;
    for (std::uint16_t label = 0; label < dumpi::kAllFunctions; ++label)  // every MPI-2 function
      if (dumpi::function(label).name.starts_with("MPI_"))
        all[dumpi::function(label).name] = dumpi::function(label).type;
    all["MPI_Reduce_scatter_block"] = CallType::reduce_scatter_block;
    return all;
  }();
  const auto it = types.find(name);
  return it == types.end() ? CallType::other : it->second;
}

std::string_view format_name(Format format) { return kFormatNames[static_cast<std::size_t>(format)]; }

Format parse_format(std::string_view name, const Where& where) {
  for (std::size_t i = 0; i < kFormatNames.size(); ++i)
    if (kFormatNames[i] == name) return static_cast<Format>(i);
  where.fail(unknown_name_message("trace format", name, {kFormatNames.begin(), kFormatNames.end()}));
}

std::string_view origin_name(Origin origin) { return kOriginNames[static_cast<std::size_t>(origin)]; }

void Trace::define_world(std::int32_t ranks) {
  CommDefinition world{kCommWorld, {}, Origin::world, kNone, "MPI_COMM_WORLD"};
  for (std::int32_t r = 0; r < ranks; ++r) world.ranks.push_back(r);
  communicators_.clear();
  communicators_.push_back(std::move(world));
  communicators_.push_back({kCommSelf, {}, Origin::self, kNone, "MPI_COMM_SELF"});
  groups_.clear();
  groups_.push_back({kGroupEmpty, {}, Origin::empty, kNone, "MPI_GROUP_EMPTY"});
}

std::string Trace::where(std::int32_t r, const Call& call) const {
  const Where w = locate(r, call);
  return w.file() + ": at " + w.pointer();
}

Where Trace::locate(std::int32_t r, const Call& call) const {
  const std::string& file = r >= 0 && r < ranks() ? rank(r).file : path_;
  const char* unit = offset_unit_ == OffsetUnit::line    ? "line "
                     : offset_unit_ == OffsetUnit::event ? "event "
                                                         : "byte ";
  const std::string position = unit + std::to_string(call.offset);
  return Where(file, "record " + std::to_string(call.record) + " (" + position + ")");
}

Format detect_format(const std::string& path, const Where& where) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return detect_format(trace_in_directory(path, where), where);
  if (ends_with(path, ".otf2")) return Format::otf2;
  if (ends_with(path, ".meta") || ends_with(path, ".bin")) return Format::dumpi;
  std::ifstream in(path, std::ios::binary);
  if (!in) where.fail("cannot read the trace " + path + " (does it exist?)");
  std::array<char, 8> head{};
  in.read(head.data(), head.size());
  if (in.gcount() == 8 && std::string_view(head.data(), 8) == std::string_view("\xff\xaa\xdd"
                                                                               "DUMPI",
                                                                               8))
    return Format::dumpi;
  return Format::time_independent;
}

std::unique_ptr<Trace> open_trace(const std::string& path, Format format, const Where& where) {
  std::string file = path;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) file = trace_in_directory(path, where);
  if (format == Format::automatic) format = detect_format(file, where);
  switch (format) {
    case Format::time_independent:
      return open_ti_trace(file, where);
    case Format::dumpi:
      return open_dumpi_trace(file, where);
    case Format::otf2:
      return open_otf2_trace(file, where);
    case Format::automatic:
      break;
  }
  where.fail("cannot tell the format of the trace " + path);
}

}  // namespace torsim::replay
