#include "models/apps/replay/dumpi_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sim/config/error.hpp"

namespace torsim::replay {

namespace {

constexpr std::array<unsigned char, 8> kMagic = {0xff, 0xaa, 0xdd, 'D', 'U', 'M', 'P', 'I'};
constexpr std::uint64_t kFooterMagic = 0xf007fee7;
// Option mask bits (sst-dumpi's settings.h): statuses, CPU time, wall time, thread, counters.
constexpr std::uint8_t kStatusMask = 0x03, kCpuMask = 0x04, kWallMask = 0x08, kThreadMask = 0x40, kPerfMask = 0x80;

}  // namespace

bool is_dumpi_magic(const unsigned char* bytes) { return std::equal(kMagic.begin(), kMagic.end(), bytes); }

namespace dumpi {

namespace {

// Big-endian reads from a mapped file, each checked against the end of the region it belongs to.
class Reader {
 public:
  Reader(const File& file, const unsigned char* data, std::size_t pos, std::size_t end, std::uint64_t record_offset,
         std::int64_t index)
      : file_(file), data_(data), pos_(pos), end_(end), record_offset_(record_offset), index_(index) {}

  template <int kBytes>
  std::uint64_t read() {
    need(kBytes);
    std::uint64_t value = 0;
    for (int i = 0; i < kBytes; ++i) value = (value << 8) | data_[pos_ + static_cast<std::size_t>(i)];
    pos_ += kBytes;
    return value;
  }
  std::uint64_t uint(int bytes) {
    switch (bytes) {
      case 1:
        return read<1>();
      case 2:
        return read<2>();
      case 4:
        return read<4>();
      default:
        return read<8>();
    }
  }
  std::uint8_t u8() { return static_cast<std::uint8_t>(read<1>()); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(read<2>()); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(read<4>()); }
  std::uint64_t u64() { return read<8>(); }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  /// A length before an array: negative or beyond what the region can hold is corrupt.
  std::size_t length(std::size_t element_bytes, const char* what) {
    const std::int32_t n = i32();
    if (n < 0 || static_cast<std::size_t>(n) * element_bytes > end_ - pos_)
      file_.fail(record_offset_, index_,
                 "the record is truncated or corrupt: " + std::string(what) + " of " + std::to_string(n) +
                     " elements runs past byte " + std::to_string(end_));
    return static_cast<std::size_t>(n);
  }
  std::string_view text(std::size_t n) {
    need(n);
    const std::string_view s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }
  std::string_view string16() { return text(u16()); }  // the header's strings: 16-bit length
  std::size_t pos() const { return pos_; }

 private:
  void need(std::size_t n) const {
    if (n > end_ - pos_) [[unlikely]]
      truncated(n);
  }
  [[noreturn, gnu::noinline, gnu::cold]] void truncated(std::size_t n) const {
    file_.fail(record_offset_, index_,
               "the record is truncated: it needs " + std::to_string(n) + " more bytes at byte " +
                   std::to_string(pos_) + ", but its section ends at byte " + std::to_string(end_));
  }
  const File& file_;
  const unsigned char* data_;
  std::size_t pos_, end_;
  std::uint64_t record_offset_;
  std::int64_t index_;
};

}  // namespace

File::File(std::string path) : file_(std::make_shared<const MappedFile>(std::move(path))) {
  if (file_->size() < 8 || !is_dumpi_magic(file_->data()))
    fail(0, -1, "not a DUMPI trace file: it does not start with DUMPI's magic bytes (ff aa dd 'DUMPI')");
  read_index();
  read_header();
  if (version_[0] == 0 && (version_[1] < 6 || (version_[1] == 6 && version_[2] < 9)))
    fail(header_, -1,
         "DUMPI version " + std::to_string(version_[0]) + "." + std::to_string(version_[1]) + "." +
             std::to_string(version_[2]) + " is not supported (0.6.9 and later are)");
  read_footer();
  read_tables();
  read_keyvals();
}

void File::fail(std::uint64_t offset, std::int64_t index, const std::string& message) const {
  const std::string at = index >= 0 ? "record " + std::to_string(index) + " (byte " + std::to_string(offset) + ")"
                                    : "byte " + std::to_string(offset);
  throw InputError(path(), at, message);
}

// The index: the last 8 words are magic, datatype sizes, function addresses, perfcounter labels,
// header, body, footer, keyvals (older versions lack the first sections; 0.6.9 has them all).
void File::read_index() {
  constexpr std::size_t kIndexBytes = 8 * 8;
  if (file_->size() < 8 + kIndexBytes)
    fail(file_->size(), -1, "the file is truncated: it is too short for DUMPI's index");
  Reader in(*this, file_->data(), file_->size() - kIndexBytes, file_->size(), file_->size() - kIndexBytes, -1);
  std::array<unsigned char, 8> magic{};
  for (auto& b : magic) b = in.u8();
  if (!is_dumpi_magic(magic.data()))
    fail(file_->size() - kIndexBytes, -1, "the file is truncated: its last 64 bytes are not DUMPI's index");
  sizelbl_ = in.u64();
  addrlbl_ = in.u64();
  perflbl_ = in.u64();
  header_ = in.u64();
  body_ = in.u64();
  footer_ = in.u64();
  keyval_ = in.u64();
  const std::uint64_t limit = file_->size() - kIndexBytes;
  for (std::uint64_t offset : {sizelbl_, addrlbl_, perflbl_, header_, body_, footer_, keyval_})
    if (offset > limit)
      fail(offset, -1, "the file is truncated: its index points past its end (byte " + std::to_string(limit) + ")");
  if (body_ == 0 || header_ == 0) fail(file_->size(), -1, "the index has no body or no header section");
  // The stream ends where the next section begins.
  body_end_ = limit;
  for (std::uint64_t offset : {sizelbl_, addrlbl_, perflbl_, header_, footer_, keyval_})
    if (offset > body_ && offset < body_end_) body_end_ = offset;
}

void File::read_header() {
  Reader in(*this, file_->data(), header_, body_ < header_ ? file_->size() : body_, header_, -1);
  for (auto& v : version_) v = in.u8();
  start_time_ = in.i64();
  hostname_ = in.string16();
  username_ = in.string16();
  const std::size_t dims = in.length(4, "the mesh coordinates");
  for (std::size_t i = 0; i < dims; ++i) mesh_coords_.push_back(in.i32());
  if (dims > 0) {
    const std::size_t size_dims = in.length(4, "the mesh size");
    for (std::size_t i = 0; i < size_dims; ++i) mesh_size_.push_back(in.i32());
  }
}

void File::read_footer() {
  call_counts_.assign(kAllFunctions + 1, 0);
  ignored_counts_.assign(kAllFunctions + 1, 0);
  if (footer_ == 0) return;
  Reader in(*this, file_->data(), footer_, file_->size(), footer_, -1);
  if (in.u64() != kFooterMagic) fail(footer_, -1, "the footer does not start with DUMPI's footer magic (f007fee7)");
  for (auto& c : call_counts_) c = in.i32();
  for (auto& c : ignored_counts_) c = in.i32();
}

void File::read_tables() {
  if (perflbl_ > 0) {
    Reader in(*this, file_->data(), perflbl_, file_->size(), perflbl_, -1);
    const std::size_t n = in.length(2, "the perfcounter labels");
    for (std::size_t i = 0; i < n; ++i) perf_labels_.emplace_back(in.string16());
  }
  if (addrlbl_ > 0) {
    Reader in(*this, file_->data(), addrlbl_, file_->size(), addrlbl_, -1);
    const std::size_t n = in.length(10, "the function addresses");
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t address = in.u64();
      addresses_.emplace_back(address, std::string(in.string16()));
    }
  }
  if (sizelbl_ > 0) {
    Reader in(*this, file_->data(), sizelbl_, file_->size(), sizelbl_, -1);
    const std::size_t n = in.length(4, "the datatype sizes");
    for (std::size_t i = 0; i < n; ++i) sizes_.push_back(in.i32());
  }
}

void File::read_keyvals() {
  if (keyval_ == 0) return;
  Reader in(*this, file_->data(), keyval_, file_->size(), keyval_, -1);
  const std::size_t n = in.length(4, "the key/value pairs");
  for (std::size_t i = 0; i < n; ++i) {
    std::string key(in.string16());
    keyvals_.emplace_back(std::move(key), std::string(in.string16()));
  }
}

// ---- the stream

File::Stream::Stream(const File& file) : file_(file), pos_(file.body_ + 8) {
  Reader in(file, file.file_->data(), file.body_, file.body_end_, file.body_, -1);
  cpu_bias_ = in.i32();
  wall_bias_ = in.i32();
}

namespace {

Clock read_clock(Reader& in, std::int64_t bias) {
  Clock c;
  c.sec = in.u16() + bias;
  c.nsec = in.u32();
  return c;
}

// The value at the position of argument `name` in a record being decoded (0 if absent).
std::int64_t scalar(const Record& r, const FunctionSpec& f, std::string_view name) {
  for (std::size_t i = 0; i < r.args.size(); ++i)
    if (f.args[i].name == name) return r.args[i].value;
  return 0;
}

// Decodes one argument of `r` (its slot is the last of r.args).
void read_arg(Reader& in, Record& r, const ArgSpec& spec) {
  Record::Arg& a = r.args.back();
  a.present = true;
  switch (spec.kind) {
    case Kind::int32:
    case Kind::request:
      a.value = in.i32();
      return;
    case Kind::int64:
      a.value = in.i64();
      return;
    case Kind::int8:
    case Kind::op:
      a.value = in.u8();
      return;
    case Kind::handle:
    case Kind::comm:
    case Kind::datatype:
    case Kind::group:
      a.value = in.u16();
      return;
    case Kind::statuses: {
      if (!(r.mask & kStatusMask)) {
        a.present = false;
        return;
      }
      const std::size_t n = in.length(14, "a status array");
      a.value = static_cast<std::int64_t>(n);
      a.first = r.statuses.size();
      a.n = n;
      for (std::size_t i = 0; i < n; ++i) {
        Status s{};
        s.bytes = in.i32();
        s.source = in.i32();
        s.cancelled = static_cast<std::int8_t>(in.u8());
        s.error = static_cast<std::int8_t>(in.u8());
        s.tag = in.i32();
        r.statuses.push_back(s);
      }
      return;
    }
    case Kind::ints:
    case Kind::requests:
    case Kind::datatypes:
    case Kind::handles:
    case Kind::bytes: {
      const int width = spec.kind == Kind::bytes                                       ? 1
                        : (spec.kind == Kind::datatypes || spec.kind == Kind::handles) ? 2
                                                                                       : 4;
      const std::size_t n = in.length(static_cast<std::size_t>(width), "an array");
      a.value = static_cast<std::int64_t>(n);
      a.first = r.ints.size();
      a.n = n;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t v = in.uint(width);
        r.ints.push_back(width == 4 ? static_cast<std::int32_t>(v) : static_cast<std::int64_t>(v));
      }
      return;
    }
    case Kind::int_arrays: {
      const std::size_t rows = in.length(4, "an array of arrays");
      a.value = static_cast<std::int64_t>(rows);
      a.rows_first = r.ints.size();
      r.ints.resize(r.ints.size() + rows);
      a.first = r.ints.size();
      for (std::size_t row = 0; row < rows; ++row) {
        const std::size_t n = in.length(4, "an array");
        r.ints[a.rows_first + row] = static_cast<std::int64_t>(n);
        for (std::size_t i = 0; i < n; ++i) r.ints.push_back(in.i32());
      }
      a.n = r.ints.size() - a.first;
      return;
    }
    case Kind::text:
      a.first = r.texts.size();
      a.n = 1;
      r.texts.push_back(in.text(in.length(1, "a string")));
      return;
    case Kind::texts: {
      const std::size_t n = in.length(4, "an array of strings");
      a.value = static_cast<std::int64_t>(n);
      a.first = r.texts.size();
      a.n = n;
      for (std::size_t i = 0; i < n; ++i) r.texts.push_back(in.text(in.length(1, "a string")));
      return;
    }
    case Kind::text_arrays: {
      const std::size_t rows = in.length(4, "an array of string arrays");
      a.value = static_cast<std::int64_t>(rows);
      a.first = r.texts.size();
      for (std::size_t row = 0; row < rows; ++row) {
        const std::size_t n = in.length(4, "an array of strings");
        for (std::size_t i = 0; i < n; ++i) r.texts.push_back(in.text(in.length(1, "a string")));
      }
      a.n = r.texts.size() - a.first;
      return;
    }
  }
}

}  // namespace

bool File::Stream::next(Record& r) {
  if (pos_ + 2 > file_.body_end_) return false;
  const std::uint64_t offset = pos_;
  Reader in(file_, file_.file_->data(), pos_, file_.body_end_, offset, static_cast<std::int64_t>(index_));
  const std::uint16_t label = in.u16();
  if (label == kEndOfStream) return false;
  if (label > kEndOfStream || label == kAllFunctions)
    file_.fail(offset, static_cast<std::int64_t>(index_), "unknown function label " + std::to_string(label));
  const FunctionSpec& f = function(label);
  if (!f.decodable)
    file_.fail(offset, static_cast<std::int64_t>(index_), std::string(f.name) + " records cannot be decoded");
  r.label = label;
  r.offset = offset;
  r.index = index_;
  r.mask = in.u8();
  r.thread = (r.mask & kThreadMask) ? in.u16() : 0;
  r.has_cpu = r.mask & kCpuMask;
  r.has_wall = r.mask & kWallMask;
  if (r.has_cpu) {
    r.cpu_start = read_clock(in, cpu_bias_);
    r.cpu_stop = read_clock(in, cpu_bias_);
  }
  if (r.has_wall) {
    r.wall_start = read_clock(in, wall_bias_);
    r.wall_stop = read_clock(in, wall_bias_);
  }
  r.perf_in.clear();
  r.perf_out.clear();
  if (r.mask & kPerfMask) {
    in.u8();  // sst-dumpi reads as many values as the trace has counter labels, whatever this says
    for (std::size_t i = 0; i < file_.perf_labels_.size(); ++i) {
      r.perf_in.push_back(in.i64());
      r.perf_out.push_back(in.i64());
    }
  }
  r.args.clear();
  r.ints.clear();
  r.texts.clear();
  r.statuses.clear();
  for (const ArgSpec& spec : f.args) {
    r.args.emplace_back();
    // Arguments only the root records: the caller's rank and the root come before them.
    if (spec.at_root_only && scalar(r, f, "commrank") + scalar(r, f, "oldcommrank") != scalar(r, f, "root")) continue;
    read_arg(in, r, spec);
  }
  pos_ = in.pos();
  ++index_;
  return true;
}

}  // namespace dumpi

// ---- the trace

namespace {

using dumpi::Record;

// Where each argument role sits in a function's layout (-1: the function has none).
enum Role : std::uint8_t {
  kCount,
  kDatatype,
  kDest,
  kSource,
  kTag,
  kCommArg,
  kRequest,
  kRequests,
  kStatus,
  kRoot,
  kSendCount,
  kSendType,
  kRecvCount,
  kRecvType,
  kSendCounts,
  kRecvCounts,
  kSendTag,
  kRecvTag,
  kNewComm,
  kOldComm,
  kColor,
  kKey,
  kGroupArg,
  kGroup1,
  kGroup2,
  kNewGroup,
  kRanks,
  kRanges,
  kFlag,
  kIndex,
  kIndices,
  kSize,
  kSendTypes,
  kRecvTypes,
  kRoles
};
constexpr std::array<std::string_view, kRoles> kRoleNames = {
    "count",   "datatype",  "dest",     "source",    "tag",      "comm",       "request",    "requests", "statuses",
    "root",    "sendcount", "sendtype", "recvcount", "recvtype", "sendcounts", "recvcounts", "sendtag",  "recvtag",
    "newcomm", "oldcomm",   "color",    "key",       "group",    "group1",     "group2",     "newgroup", "ranks",
    "ranges",  "flag",      "index",    "indices",   "size",     "sendtypes",  "recvtypes"};

using RoleTable = std::array<std::int8_t, kRoles>;

const RoleTable& roles_of(std::uint16_t label) {
  static const std::vector<RoleTable> tables = [] {
    std::vector<RoleTable> all(dumpi::kEndOfStream);
    for (std::uint16_t l = 0; l < dumpi::kEndOfStream; ++l) {
      all[l].fill(-1);
      const auto& args = dumpi::function(l).args;
      for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view name = args[i].name == "status" ? "statuses" : args[i].name;
        for (std::size_t role = 0; role < kRoles; ++role)
          if (kRoleNames[role] == name) all[l][role] = static_cast<std::int8_t>(i);
      }
    }
    return all;
  }();
  return tables[label];
}

class DumpiTrace;

class DumpiCursor : public RankCursor {
 public:
  DumpiCursor(const DumpiTrace& trace, std::int32_t rank);
  bool next(Call& call) override;

 private:
  bool has(Role role) const {
    return roles_->at(role) >= 0 && record_.args[static_cast<std::size_t>(roles_->at(role))].present;
  }
  const Record::Arg& arg(Role role) const { return record_.args[static_cast<std::size_t>(roles_->at(role))]; }
  std::int64_t value(Role role, std::int64_t otherwise = kNone) const {
    return has(role) ? arg(role).value : otherwise;
  }
  [[noreturn]] void fail(const std::string& message) const;

  void convert(Call& call);
  Time time_of(const dumpi::Clock& clock) const;
  std::int32_t comm(Role role);
  std::int32_t group(Role role) const;
  std::int32_t peer(Role role, bool source) const;
  std::int32_t tag(Role role) const;
  Bytes size_of(std::int64_t datatype) const;
  Bytes bytes_of(std::int64_t count, std::int64_t datatype) const;
  void point_to_point(Call& call);
  void completion(Call& call);
  void collective(Call& call);
  void communicators(Call& call);
  std::span<const std::int64_t> copy_ints(Role role, std::vector<std::int64_t>& into) const;
  Bytes total(std::span<const std::int64_t> counts, Role types_role, std::int64_t datatype) const;
  void matched_status(Call& call) const;

  const DumpiTrace& trace_;
  dumpi::File file_;
  dumpi::File::Stream stream_;
  Record record_;
  const RoleTable* roles_ = nullptr;
  std::vector<bool> comms_;  // user communicator handles created so far
  std::vector<std::int64_t> counts_, recv_counts_, requests_;
  std::vector<std::int32_t> completed_, ranks_;
};

class DumpiTrace : public Trace {
 public:
  DumpiTrace(const std::string& path, const Where& where);
  std::unique_ptr<RankCursor> cursor(std::int32_t r) const override { return std::make_unique<DumpiCursor>(*this, r); }
  dumpi::Clock origin() const { return origin_; }

 private:
  void read_meta(const std::string& meta, std::string& prefix, std::int32_t& ranks) const;
  void open_rank(std::int32_t r, const std::string& file, bool first);
  dumpi::Clock origin_{INT64_MAX, 0};
};

// ---- opening

std::string rank_file(const std::string& dir, const std::string& prefix, std::int32_t r) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%04d", r);
  return (std::filesystem::path(dir) / (prefix + "-" + digits + ".bin")).string();
}

DumpiTrace::DumpiTrace(const std::string& path, const Where& where) : Trace(Format::dumpi, path) {
  namespace fs = std::filesystem;
  std::error_code ec;  // queries that cannot throw: a trace names any path
  std::string meta = path;
  if (path.ends_with(".bin")) {
    // A rank's file: its run's .meta is PREFIX.meta beside PREFIX-NNNN.bin.
    const std::string stem = fs::path(path).stem().string();
    const std::size_t dash = stem.rfind('-');
    meta = (fs::path(path).parent_path() / (stem.substr(0, dash) + ".meta")).string();
    if (dash == std::string::npos || !fs::exists(meta, ec)) {
      open_rank(0, path, true);
      define_world(1);
      return;
    }
    path_ = meta;
  }
  std::string prefix;
  std::int32_t ranks = 0;
  read_meta(meta, prefix, ranks);
  const std::string dir = fs::path(meta).parent_path().string();
  for (std::int32_t r = 0; r < ranks; ++r) {
    const std::string file = rank_file(dir, prefix, r);
    if (!fs::exists(file, ec))
      throw InputError(meta, "numprocs",
                       "the trace file of rank " + std::to_string(r) + ", " + file + ", does not exist (the run had " +
                           std::to_string(ranks) + " ranks)");
    open_rank(r, file, r == 0);
  }
  define_world(ranks);
  (void)where;
}

void DumpiTrace::read_meta(const std::string& meta, std::string& prefix, std::int32_t& ranks) const {
  const MappedFile text(meta);
  std::string_view rest = text.text();
  std::uint64_t line = 0;
  while (!rest.empty()) {
    const std::size_t eol = std::min(rest.find('\n'), rest.size());
    const std::string_view entry = rest.substr(0, eol);
    rest.remove_prefix(std::min(eol + 1, rest.size()));
    ++line;
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = entry.substr(0, eq), value = entry.substr(eq + 1);
    if (key == "fileprefix") prefix = value;
    if (key == "numprocs") {
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), ranks);
      if (error != std::errc() || end != value.data() + value.size() || ranks < 1 || ranks > kMaxRanks)
        throw InputError(meta, "line " + std::to_string(line),
                         "numprocs must be a number of ranks (1 to " + std::to_string(kMaxRanks) + "), got '" +
                             std::string(value) + "'");
    }
  }
  if (prefix.empty() || ranks < 1)
    throw InputError(meta, "", "not a DUMPI .meta file: it lacks numprocs= or fileprefix=");
}

// A rank's host, mesh coordinates and the wall time of its first record (the earliest of all
// ranks is the trace's time 0).
void DumpiTrace::open_rank(std::int32_t r, const std::string& file, bool first) {
  const dumpi::File bin(file);
  rank_info_.push_back({file, bin.hostname(), bin.mesh_coords(), bin.mesh_size()});
  if (first) {
    for (std::size_t id = 0; id < bin.datatype_sizes().size(); ++id) {
      const auto i = static_cast<std::int32_t>(id);
      datatypes_.push_back(
          {i < dumpi::kFirstUserDatatype ? std::string(dumpi::datatype_name(i)) : "user type " + std::to_string(i),
           bin.datatype_sizes()[id]});
    }
  }
  dumpi::File::Stream stream(bin);
  Record record;
  while (stream.next(record))
    if (record.has_wall) {
      const auto& t = record.wall_start;
      if (t.sec < origin_.sec || (t.sec == origin_.sec && t.nsec < origin_.nsec)) origin_ = t;
      break;
    }
  (void)r;
}

// ---- the cursor

DumpiCursor::DumpiCursor(const DumpiTrace& trace, std::int32_t rank)
    : trace_(trace), file_(trace.rank(rank).file), stream_(file_) {}

void DumpiCursor::fail(const std::string& message) const {
  file_.fail(record_.offset, static_cast<std::int64_t>(record_.index),
             std::string(record_.function().name) + ": " + message);
}

Time DumpiCursor::time_of(const dumpi::Clock& c) const {
  const dumpi::Clock origin = trace_.origin();
  return (c.sec - origin.sec) * kSecond + (c.nsec - origin.nsec) * kNanosecond;
}

bool DumpiCursor::next(Call& call) {
  if (!stream_.next(record_)) return false;
  roles_ = &roles_of(record_.label);
  call = Call{};
  const dumpi::FunctionSpec& f = record_.function();
  call.type = f.type;
  call.function = f.name;
  call.record = record_.index;
  call.offset = record_.offset;
  if (record_.has_wall) {
    call.start = time_of(record_.wall_start);
    call.end = time_of(record_.wall_stop);
  }
  convert(call);
  return true;
}

void DumpiCursor::convert(Call& call) {
  switch (call.type) {
    case CallType::send:
    case CallType::bsend:
    case CallType::ssend:
    case CallType::rsend:
    case CallType::isend:
    case CallType::ibsend:
    case CallType::issend:
    case CallType::irsend:
    case CallType::recv:
    case CallType::irecv:
    case CallType::sendrecv:
    case CallType::sendrecv_replace:
    case CallType::probe:
    case CallType::iprobe:
    case CallType::send_init:
    case CallType::recv_init:
      return point_to_point(call);
    case CallType::start:
    case CallType::startall:
    case CallType::request_free:
    case CallType::cancel:
    case CallType::wait:
    case CallType::waitall:
    case CallType::waitany:
    case CallType::waitsome:
    case CallType::test:
    case CallType::testall:
    case CallType::testany:
    case CallType::testsome:
      return completion(call);
    case CallType::barrier:
    case CallType::bcast:
    case CallType::reduce:
    case CallType::allreduce:
    case CallType::gather:
    case CallType::gatherv:
    case CallType::scatter:
    case CallType::scatterv:
    case CallType::allgather:
    case CallType::allgatherv:
    case CallType::alltoall:
    case CallType::alltoallv:
    case CallType::alltoallw:
    case CallType::reduce_scatter:
    case CallType::reduce_scatter_block:
    case CallType::scan:
    case CallType::exscan:
      return collective(call);
    case CallType::comm_dup:
    case CallType::comm_split:
    case CallType::comm_create:
    case CallType::comm_free:
    case CallType::comm_group:
    case CallType::group_incl:
    case CallType::group_excl:
    case CallType::group_range_incl:
    case CallType::group_range_excl:
    case CallType::group_union:
    case CallType::group_intersection:
    case CallType::group_difference:
    case CallType::group_free:
    case CallType::cart_create:
    case CallType::cart_sub:
      return communicators(call);
    case CallType::comm_rank:
    case CallType::comm_size:
      call.comm = comm(kCommArg);
      call.count = call.type == CallType::comm_size ? value(kSize) : kNone;
      return;
    default:
      return;
  }
}

// DUMPI's communicator handles to the trace's ids: world and self are fixed, user handles are
// the rank's own (Trace::local_handles()) and must have been created before they are used.
std::int32_t DumpiCursor::comm(Role role) {
  const auto handle = static_cast<std::int32_t>(value(role, dumpi::kCommWorld));
  switch (handle) {
    case dumpi::kCommWorld:
      return kCommWorld;
    case dumpi::kCommSelf:
      return kCommSelf;
    case dumpi::kCommNull:
      return kCommNull;
    case dumpi::kCommError:
      fail("communicator 0 is DUMPI's value for an invalid communicator");
    default:
      if (static_cast<std::size_t>(handle) >= comms_.size() || !comms_[static_cast<std::size_t>(handle)])
        fail("communicator " + std::to_string(handle) + " is out of range: no earlier call of this rank created it");
      return handle;
  }
}

std::int32_t DumpiCursor::group(Role role) const {
  const auto handle = static_cast<std::int32_t>(value(role));
  if (handle == dumpi::kGroupEmpty) return kGroupEmpty;
  if (handle == dumpi::kGroupNull || handle == kNone) return kGroupNull;
  return handle;
}

// Ranks: MPI_ANY_SOURCE as DUMPI writes it; other negative ranks are the MPI library's own
// MPI_PROC_NULL. On the world, a rank beyond the run's is an error.
std::int32_t DumpiCursor::peer(Role role, bool source) const {
  const auto rank = static_cast<std::int32_t>(value(role));
  if (source && rank == dumpi::kAnySource) return kAnySource;
  if (rank < 0) return kProcNull;
  return rank;
}

std::int32_t DumpiCursor::tag(Role role) const {
  const auto t = static_cast<std::int32_t>(value(role));
  return t == dumpi::kAnyTag ? kAnyTag : t;
}

Bytes DumpiCursor::size_of(std::int64_t datatype) const {
  const auto& sizes = file_.datatype_sizes();
  if (datatype < 0 || datatype >= static_cast<std::int64_t>(sizes.size()))
    fail("unknown datatype " + std::to_string(datatype) + ": the trace's datatype table has " +
         std::to_string(sizes.size()) + " entries");
  return sizes[static_cast<std::size_t>(datatype)];
}

// A count's bytes. A negative count, or a datatype whose recorded size is negative (MPI_UNDEFINED),
// cannot be replayed: the trace is damaged or was recorded from an erroneous call.
Bytes DumpiCursor::bytes_of(std::int64_t count, std::int64_t datatype) const {
  if (count < 0) fail("a negative count (" + std::to_string(count) + ")");
  if (count == 0) return 0;
  const Bytes size = size_of(datatype);
  if (size < 0) fail("datatype " + std::to_string(datatype) + " has a negative size (" + std::to_string(size) + ")");
  Bytes bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes))
    fail("a count of " + std::to_string(count) + " overflows 2^63 bytes");
  return bytes;
}

void DumpiCursor::matched_status(Call& call) const {
  if (!has(kStatus) || arg(kStatus).n == 0) return;
  const dumpi::Status& s = record_.statuses[arg(kStatus).first];
  call.matched_source = s.source;
  call.matched_tag = s.tag;
}

void DumpiCursor::point_to_point(Call& call) {
  call.comm = comm(kCommArg);
  const bool receive = call.type == CallType::recv || call.type == CallType::irecv ||
                       call.type == CallType::recv_init || call.type == CallType::probe ||
                       call.type == CallType::iprobe;
  if (call.type == CallType::sendrecv || call.type == CallType::sendrecv_replace) {
    call.peer = peer(kDest, false);
    call.source2 = peer(kSource, true);
    call.tag = tag(kSendTag);
    call.tag2 = tag(kRecvTag);
    const bool replace = call.type == CallType::sendrecv_replace;
    call.count = value(replace ? kCount : kSendCount);
    call.datatype = static_cast<std::int32_t>(value(replace ? kDatatype : kSendType));
    call.recv_count = value(replace ? kCount : kRecvCount);
    call.recv_datatype = static_cast<std::int32_t>(value(replace ? kDatatype : kRecvType));
    call.bytes = bytes_of(call.count, call.datatype);
    call.recv_bytes = bytes_of(call.recv_count, call.recv_datatype);
  } else {
    call.peer = peer(receive ? kSource : kDest, receive);
    call.tag = tag(kTag);
    if (has(kCount)) {
      call.count = value(kCount);
      call.datatype = static_cast<std::int32_t>(value(kDatatype));
      call.bytes = bytes_of(call.count, call.datatype);
    }
  }
  if (call.comm == kCommWorld && (call.peer >= trace_.ranks() || call.source2 >= trace_.ranks()))
    fail("rank " + std::to_string(std::max(call.peer, call.source2)) + " is out of range: the run had " +
         std::to_string(trace_.ranks()) + " ranks");
  call.request = value(kRequest);
  call.flag = value(kFlag, 0) != 0;
  matched_status(call);
}

void DumpiCursor::completion(Call& call) {
  call.request = value(kRequest);
  call.requests = copy_ints(kRequests, requests_);
  completed_.clear();
  if (has(kIndex) && value(kIndex) >= 0) completed_.push_back(static_cast<std::int32_t>(value(kIndex)));
  if (has(kIndices))
    for (std::int64_t i : record_.values(arg(kIndices))) completed_.push_back(static_cast<std::int32_t>(i));
  call.completed = completed_;
  call.flag = value(kFlag, 0) != 0;
  matched_status(call);
}

std::span<const std::int64_t> DumpiCursor::copy_ints(Role role, std::vector<std::int64_t>& into) const {
  into.clear();
  if (has(role)) {
    const auto values = record_.values(arg(role));
    into.assign(values.begin(), values.end());
  }
  return into;
}

// The bytes of v-variant counts: one datatype for all, or one per rank (alltoallw).
Bytes DumpiCursor::total(std::span<const std::int64_t> counts, Role types_role, std::int64_t datatype) const {
  const bool per_rank = types_role != kRoles && has(types_role);
  const auto types = per_rank ? record_.values(arg(types_role)) : std::span<const std::int64_t>{};
  if (per_rank && types.size() != counts.size())
    fail("it has " + std::to_string(counts.size()) + " counts but " + std::to_string(types.size()) + " datatypes");
  Bytes sum = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (__builtin_add_overflow(sum, bytes_of(counts[i], per_rank ? types[i] : datatype), &sum))
      fail("its counts add up to more than 2^63 bytes");
  return sum;
}

void DumpiCursor::collective(Call& call) {
  call.comm = comm(kCommArg);
  call.root = static_cast<std::int32_t>(value(kRoot));
  if (call.comm == kCommWorld && call.root >= trace_.ranks())
    fail("root " + std::to_string(call.root) + " is out of range: the run had " + std::to_string(trace_.ranks()) +
         " ranks");
  if (has(kCount)) {  // bcast, reduce, allreduce, scan, exscan
    call.count = value(kCount);
    call.datatype = static_cast<std::int32_t>(value(kDatatype));
    call.bytes = bytes_of(call.count, call.datatype);
  }
  if (has(kSendCount)) {
    call.count = value(kSendCount);
    call.datatype = static_cast<std::int32_t>(value(kSendType));
    call.bytes = bytes_of(call.count, call.datatype);
  }
  if (has(kRecvCount)) {
    call.recv_count = value(kRecvCount);
    call.recv_datatype = static_cast<std::int32_t>(value(kRecvType));
    call.recv_bytes = bytes_of(call.recv_count, call.recv_datatype);
  }
  if (has(kSendCounts)) {
    call.counts = copy_ints(kSendCounts, counts_);
    call.datatype = has(kSendType) ? static_cast<std::int32_t>(value(kSendType)) : kNone;
    call.bytes = total(call.counts, kSendTypes, call.datatype);
  } else if (call.type == CallType::scatterv && has(kSendType)) {
    call.datatype = static_cast<std::int32_t>(value(kSendType));  // not the root: its counts are the root's
  }
  if (has(kRecvCounts)) {
    call.recv_counts = copy_ints(kRecvCounts, recv_counts_);
    const Role type = has(kRecvType) ? kRecvType : kDatatype;  // reduce_scatter has one datatype
    call.recv_datatype = has(type) ? static_cast<std::int32_t>(value(type)) : kNone;
    call.recv_bytes = total(call.recv_counts, kRecvTypes, call.recv_datatype);
    if (call.type == CallType::reduce_scatter) {
      call.datatype = call.recv_datatype;
      call.bytes = call.recv_bytes;
    }
  } else if (call.type == CallType::gatherv && has(kRecvType)) {
    call.recv_datatype = static_cast<std::int32_t>(value(kRecvType));
  }
}

void DumpiCursor::communicators(Call& call) {
  if (has(kOldComm))
    call.comm = comm(kOldComm);
  else if (has(kCommArg))
    call.comm = comm(kCommArg);
  if (has(kNewComm)) {
    const auto handle = static_cast<std::int32_t>(value(kNewComm));
    if (handle > dumpi::kCommSelf) {
      if (static_cast<std::size_t>(handle) >= comms_.size()) comms_.resize(static_cast<std::size_t>(handle) + 1);
      comms_[static_cast<std::size_t>(handle)] = true;
      call.new_comm = handle;
    } else {
      call.new_comm = handle == dumpi::kCommWorld ? kCommWorld : handle == dumpi::kCommSelf ? kCommSelf : kCommNull;
    }
  }
  call.color = static_cast<std::int32_t>(value(kColor));
  call.key = static_cast<std::int32_t>(value(kKey));
  if (has(kGroupArg)) call.group = group(kGroupArg);
  if (has(kGroup1)) call.group = group(kGroup1);
  if (has(kGroup2)) call.group2 = group(kGroup2);
  if (has(kNewGroup)) call.new_group = group(kNewGroup);
  if (call.type == CallType::comm_group) {
    call.new_group = call.group;
    call.group = kNone;
  }
  ranks_.clear();
  for (Role list : {kRanks, kRanges})
    if (has(list))
      for (std::int64_t v : record_.values(arg(list))) ranks_.push_back(static_cast<std::int32_t>(v));
  call.ranks = ranks_;
}

}  // namespace

std::unique_ptr<Trace> open_dumpi_trace(const std::string& path, const Where& where) {
  return std::make_unique<DumpiTrace>(path, where);
}

}  // namespace torsim::replay
