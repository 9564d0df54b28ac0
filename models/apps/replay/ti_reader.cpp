#include "models/apps/replay/ti_reader.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>

#include "models/apps/replay/mapped_file.hpp"
#include "sim/config/error.hpp"

namespace torsim::replay {

namespace {

// SimGrid's datatype ids, as its TI traces write them (Datatype::encode), with their sizes on
// x86-64 Linux (LP64): src/smpi/mpi/smpi_datatype.cpp and the pair structs of
// src/smpi/include/smpi_datatype.hpp, simgrid/simgrid@12a63c78.
struct TiDatatype {
  std::string_view name;
  Bytes size;
};
constexpr std::array<TiDatatype, 60> kTiDatatypes = {{
    {"MPI_DOUBLE", 8},
    {"MPI_INT", 4},
    {"MPI_CHAR", 1},
    {"MPI_SHORT", 2},
    {"MPI_LONG", 8},
    {"MPI_FLOAT", 4},
    {"MPI_BYTE", 1},
    {"MPI_LONG_LONG", 8},
    {"MPI_SIGNED_CHAR", 1},
    {"MPI_UNSIGNED_CHAR", 1},
    {"MPI_UNSIGNED_SHORT", 2},
    {"MPI_UNSIGNED", 4},
    {"MPI_UNSIGNED_LONG", 8},
    {"MPI_UNSIGNED_LONG_LONG", 8},
    {"MPI_LONG_DOUBLE", 16},
    {"MPI_WCHAR", 4},
    {"MPI_C_BOOL", 1},
    {"MPI_INT8_T", 1},
    {"MPI_INT16_T", 2},
    {"MPI_INT32_T", 4},
    {"MPI_INT64_T", 8},
    {"MPI_UINT8_T", 1},
    {"MPI_UINT16_T", 2},
    {"MPI_UINT32_T", 4},
    {"MPI_UINT64_T", 8},
    {"MPI_C_FLOAT_COMPLEX", 8},
    {"MPI_C_DOUBLE_COMPLEX", 16},
    {"MPI_C_LONG_DOUBLE_COMPLEX", 32},
    {"MPI_AINT", 8},
    {"MPI_OFFSET", 8},
    {"MPI_FLOAT_INT", 8},
    {"MPI_LONG_INT", 16},
    {"MPI_DOUBLE_INT", 16},
    {"MPI_SHORT_INT", 8},
    {"MPI_2INT", 8},
    {"MPI_2FLOAT", 8},
    {"MPI_2DOUBLE", 16},
    {"MPI_2LONG", 16},
    {"MPI_REAL", 4},
    {"MPI_REAL4", 4},
    {"MPI_REAL8", 8},
    {"MPI_REAL16", 16},
    {"MPI_COMPLEX8", 8},
    {"MPI_COMPLEX16", 16},
    {"MPI_COMPLEX32", 16},
    {"MPI_INTEGER1", 4},
    {"MPI_INTEGER2", 2},
    {"MPI_INTEGER4", 4},
    {"MPI_INTEGER8", 8},
    {"MPI_INTEGER16", 16},
    {"MPI_LONG_DOUBLE_INT", 32},
    {"MPI_CXX_BOOL", 1},
    {"MPI_CXX_FLOAT_COMPLEX", 8},
    {"MPI_CXX_DOUBLE_COMPLEX", 16},
    {"MPI_CXX_LONG_DOUBLE_COMPLEX", 32},
    {"MPI_UB", 0},
    {"MPI_LB", 0},
    {"MPI_PACKED", 1},
    {"MPI_PTR", 8},
    {"MPI_COUNT", 8},
}};
constexpr std::int32_t kTiDouble = 0;
constexpr std::int32_t kTiByte = 6;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim(std::string_view line) {
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  return line;
}

bool parse_int(std::string_view token, std::int64_t& value) {
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc() && end == token.data() + token.size();
}

bool parse_number(std::string_view token, double& value) {
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc() && end == token.data() + token.size() && std::isfinite(value);
}

// The action of a line as its rank number and its first token; "" if the line holds none.
std::string_view first_token(std::string_view line) {
  std::size_t end = 0;
  while (end < line.size() && !is_space(line[end])) ++end;
  return line.substr(0, end);
}

class TiTrace;

// One rank's actions, read from its own file or picked from the shared one.
class TiCursor : public RankCursor {
 public:
  TiCursor(const TiTrace& trace, std::shared_ptr<const MappedFile> file, std::int32_t rank, bool shared);
  bool next(Call& call) override;

 private:
  struct Pending {
    std::int32_t src, dst, tag;
    std::int64_t id;
  };
  using Parser = void (TiCursor::*)(Call&);
  struct Action {
    std::string_view name;
    CallType type;
    Parser parse;
  };
  static const std::array<Action, 29> kActions;

  bool next_line(std::string_view& line);
  void tokenize(std::string_view line);
  void decode(Call& call);
  [[noreturn]] void fail(const std::string& message) const;

  // Arguments: tokens_[0] is the rank, [1] the action, [2...] its arguments.
  std::size_t args() const { return tokens_.size() - 2; }
  std::string_view arg(std::size_t i) const { return tokens_[i + 2]; }
  void expect_args(std::size_t least, std::size_t most) const;
  std::int64_t count_arg(std::size_t i, bool unknown_allowed = false) const;
  double number_arg(std::size_t i) const;
  std::int32_t int_arg(std::size_t i, const char* what) const;
  std::int32_t rank_arg(std::size_t i, const char* what) const;
  std::int32_t tag_arg(std::size_t i, bool receive) const;
  std::int32_t datatype_arg(std::size_t i) const;
  std::int32_t optional_datatype(std::size_t i) const { return i < args() ? datatype_arg(i) : default_type_; }
  Bytes bytes_of(std::int64_t count, std::int32_t datatype) const;
  std::span<const std::int64_t> counts_arg(std::size_t first, std::vector<std::int64_t>& into) const;
  Bytes total_bytes(std::span<const std::int64_t> counts, std::int32_t datatype) const;

  void parse_none(Call&) { expect_args(0, 0); }
  void parse_init(Call&);
  void parse_waitall(Call& call);
  void parse_point_to_point(Call& call);
  void parse_wait_test(Call& call);
  void typed_send_and_receive(Call& call, std::size_t first);
  void parse_sendrecv(Call& call);
  void parse_compute(Call& call);
  void parse_sleep(Call& call);
  void parse_bcast(Call& call);
  void parse_reduce(Call& call);
  void parse_allreduce(Call& call);
  void parse_scan(Call& call);
  void parse_alltoall(Call& call);
  void parse_alltoallv(Call& call);
  void parse_gather(Call& call);
  void parse_allgather(Call& call);
  void parse_gatherv(Call& call);
  void parse_allgatherv(Call& call);
  void parse_scatter(Call& call);
  void parse_scatterv(Call& call);
  void parse_reduce_scatter(Call& call);
  void parse_comm_size(Call& call);

  const TiTrace& trace_;
  std::shared_ptr<const MappedFile> file_;
  std::int32_t rank_;
  bool shared_;
  std::size_t pos_ = 0;
  std::uint64_t line_ = 0;
  std::uint64_t record_ = 0;
  std::int32_t default_type_ = kTiByte;
  std::int64_t next_request_ = 0;
  std::vector<std::string_view> tokens_;
  std::vector<Pending> pending_;
  std::vector<std::int64_t> counts_, recv_counts_, requests_;
};

class TiTrace : public Trace {
 public:
  explicit TiTrace(const std::string& path);
  std::unique_ptr<RankCursor> cursor(std::int32_t r) const override;
  Where line_where(std::int32_t rank, std::uint64_t line) const {
    return Where(rank_info_[static_cast<std::size_t>(rank)].file, "line " + std::to_string(line));
  }

 private:
  void read_index(const std::string& index, const MappedFile& text);
  void open_shared(const std::string& file);
  std::shared_ptr<const MappedFile> shared_;
};

// ---- the trace

// A line of an action file starts with a rank number and an action name; an index's lines are
// paths.
bool is_action_file(const MappedFile& file) {
  std::string_view text = file.text();
  while (!text.empty()) {
    const std::size_t eol = std::min(text.find('\n'), text.size());
    const std::string_view line = trim(text.substr(0, eol));
    text.remove_prefix(std::min(eol + 1, text.size()));
    if (line.empty() || line.front() == '#') continue;
    std::int64_t rank = 0;
    const std::string_view first = first_token(line);
    return parse_int(first, rank) && first.size() < line.size();
  }
  return false;
}

// An index's relative paths are relative to the index's folder (else to the current one, as
// SimGrid's own examples list them).
std::string resolve(const std::string& index, std::string_view listed) {
  namespace fs = std::filesystem;
  const fs::path path(listed);
  if (path.is_absolute()) return path.string();
  const fs::path beside = fs::path(index).parent_path() / path;
  std::error_code ec;  // a listed path may be anything: too long, unreadable
  if (fs::exists(beside, ec) || !fs::exists(path, ec)) return beside.lexically_normal().string();
  return path.string();
}

TiTrace::TiTrace(const std::string& path) : Trace(Format::time_independent, path) {
  offset_unit_ = OffsetUnit::line;
  for (std::size_t id = 0; id < kTiDatatypes.size(); ++id)
    datatypes_.push_back({std::string(kTiDatatypes[id].name), kTiDatatypes[id].size});
  const MappedFile text(path);
  if (is_action_file(text))
    open_shared(path);
  else
    read_index(path, text);
}

void TiTrace::read_index(const std::string& index, const MappedFile& text) {
  std::vector<std::string> files;
  std::string_view rest = text.text();
  std::uint64_t line_number = 0;
  while (!rest.empty()) {
    const std::size_t eol = std::min(rest.find('\n'), rest.size());
    const std::string_view line = trim(rest.substr(0, eol));
    rest.remove_prefix(std::min(eol + 1, rest.size()));
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    const std::string file = resolve(index, line);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
      throw InputError(
          index, "line " + std::to_string(line_number),
          "the rank file " + file + " listed for rank " + std::to_string(files.size()) + " does not exist");
    files.push_back(file);
    if (files.size() > static_cast<std::size_t>(kMaxRanks))
      throw InputError(index, "line " + std::to_string(line_number),
                       "the index lists more than " + std::to_string(kMaxRanks) + " rank files");
  }
  if (files.empty()) throw InputError(index, "", "the index lists no trace file");
  if (files.size() == 1) return open_shared(files.front());
  for (const auto& file : files) rank_info_.push_back({file, "", {}, {}});
  define_world(ranks());
}

// Every rank in one file: one pass finds the ranks (0..max) and checks each has actions.
void TiTrace::open_shared(const std::string& file) {
  shared_ = std::make_shared<const MappedFile>(file);
  std::string_view rest = shared_->text();
  std::int64_t highest = -1;
  std::vector<bool> seen;
  std::uint64_t line_number = 0;
  while (!rest.empty()) {
    const std::size_t eol = std::min(rest.find('\n'), rest.size());
    const std::string_view line = trim(rest.substr(0, eol));
    rest.remove_prefix(std::min(eol + 1, rest.size()));
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    std::int64_t rank = -1;
    if (!parse_int(first_token(line), rank) || rank < 0 || rank >= kMaxRanks)
      throw InputError(file, "line " + std::to_string(line_number),
                       "expected a rank number (0 to " + std::to_string(kMaxRanks - 1) +
                           ") at the start of the line, got '" + std::string(first_token(line)) + "'");
    if (rank >= static_cast<std::int64_t>(seen.size())) seen.resize(static_cast<std::size_t>(rank) + 1);
    seen[static_cast<std::size_t>(rank)] = true;
    highest = std::max(highest, rank);
  }
  if (highest < 0) throw InputError(file, "", "the trace holds no action");
  for (std::size_t r = 0; r < seen.size(); ++r)
    if (!seen[r])
      throw InputError(file, "",
                       "rank " + std::to_string(r) + " has no action, but rank " + std::to_string(highest) +
                           " has: the ranks of a trace are 0 to its highest");
  rank_info_.assign(static_cast<std::size_t>(highest) + 1, RankInfo{file, "", {}, {}});
  define_world(ranks());
}

std::unique_ptr<RankCursor> TiTrace::cursor(std::int32_t r) const {
  if (shared_) return std::make_unique<TiCursor>(*this, shared_, r, true);
  return std::make_unique<TiCursor>(*this, std::make_shared<const MappedFile>(rank(r).file), r, false);
}

// ---- the cursor

const std::array<TiCursor::Action, 29> TiCursor::kActions = {{
    {"init", CallType::init, &TiCursor::parse_init},
    {"finalize", CallType::finalize, &TiCursor::parse_none},
    {"send", CallType::send, &TiCursor::parse_point_to_point},
    {"isend", CallType::isend, &TiCursor::parse_point_to_point},
    {"ssend", CallType::ssend, &TiCursor::parse_point_to_point},
    {"issend", CallType::issend, &TiCursor::parse_point_to_point},
    {"recv", CallType::recv, &TiCursor::parse_point_to_point},
    {"irecv", CallType::irecv, &TiCursor::parse_point_to_point},
    {"wait", CallType::wait, &TiCursor::parse_wait_test},
    {"test", CallType::test, &TiCursor::parse_wait_test},
    {"waitall", CallType::waitall, &TiCursor::parse_waitall},
    {"sendRecv", CallType::sendrecv, &TiCursor::parse_sendrecv},
    {"compute", CallType::compute, &TiCursor::parse_compute},
    {"sleep", CallType::sleep, &TiCursor::parse_sleep},
    {"barrier", CallType::barrier, &TiCursor::parse_none},
    {"bcast", CallType::bcast, &TiCursor::parse_bcast},
    {"reduce", CallType::reduce, &TiCursor::parse_reduce},
    {"allreduce", CallType::allreduce, &TiCursor::parse_allreduce},
    {"scan", CallType::scan, &TiCursor::parse_scan},
    {"exscan", CallType::exscan, &TiCursor::parse_scan},
    {"alltoall", CallType::alltoall, &TiCursor::parse_alltoall},
    {"alltoallv", CallType::alltoallv, &TiCursor::parse_alltoallv},
    {"gather", CallType::gather, &TiCursor::parse_gather},
    {"allgather", CallType::allgather, &TiCursor::parse_allgather},
    {"gatherv", CallType::gatherv, &TiCursor::parse_gatherv},
    {"allgatherv", CallType::allgatherv, &TiCursor::parse_allgatherv},
    {"scatter", CallType::scatter, &TiCursor::parse_scatter},
    {"scatterv", CallType::scatterv, &TiCursor::parse_scatterv},
    {"reducescatter", CallType::reduce_scatter, &TiCursor::parse_reduce_scatter},
}};

// Actions SimGrid's replay accepts and ignores: communicator bookkeeping without arguments
// (every time-independent collective runs on the world). Kept as calls of type `other`.
constexpr std::array<std::string_view, 3> kIgnoredActions = {"comm_split", "comm_dup", "location"};

TiCursor::TiCursor(const TiTrace& trace, std::shared_ptr<const MappedFile> file, std::int32_t rank, bool shared)
    : trace_(trace), file_(std::move(file)), rank_(rank), shared_(shared) {}

bool TiCursor::next_line(std::string_view& line) {
  const std::string_view text = file_->text();
  while (pos_ < text.size()) {
    std::size_t eol = text.find('\n', pos_);
    if (eol == std::string_view::npos) eol = text.size();
    line = trim(text.substr(pos_, eol - pos_));
    pos_ = eol + 1;
    ++line_;
    if (!line.empty() && line.front() != '#') return true;
  }
  return false;
}

void TiCursor::tokenize(std::string_view line) {
  tokens_.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) tokens_.push_back(line.substr(start, i - start));
  }
}

bool TiCursor::next(Call& call) {
  std::string_view line;
  while (next_line(line)) {
    tokenize(line);
    std::int64_t rank = -1;
    if (!parse_int(tokens_[0], rank))
      fail("expected a rank number at the start of the line, got '" + std::string(tokens_[0]) + "'");
    if (rank != rank_) {
      if (shared_) continue;
      fail("the line is for rank " + std::to_string(rank) + ", but this file holds the actions of rank " +
           std::to_string(rank_) + " (line " + std::to_string(rank_ + 1) + " of the index)");
    }
    if (tokens_.size() < 2) fail("expected an action after the rank number");
    call = Call{};
    call.record = record_++;
    call.offset = line_;
    decode(call);
    return true;
  }
  return false;
}

void TiCursor::decode(Call& call) {
  const std::string_view name = tokens_[1];
  call.function = name;
  for (const Action& action : kActions)
    if (action.name == name) {
      call.type = action.type;
      (this->*action.parse)(call);
      return;
    }
  for (std::string_view ignored : kIgnoredActions)
    if (ignored == name) return;
  if (name == "comm_size") return parse_comm_size(call);
  std::string valid;
  for (const Action& action : kActions) valid += std::string(valid.empty() ? "" : ", ") + std::string(action.name);
  fail("unknown action '" + std::string(name) + "'; valid actions are: " + valid +
       ", comm_size, comm_split, comm_dup, location");
}

void TiCursor::fail(const std::string& message) const { trace_.line_where(rank_, line_).fail(message); }

void TiCursor::expect_args(std::size_t least, std::size_t most) const {
  if (args() >= least && args() <= most) return;
  const std::string expected =
      least == most ? std::to_string(least) : std::to_string(least) + " to " + std::to_string(most);
  fail("action '" + std::string(tokens_[1]) + "' takes " + expected + " arguments, got " + std::to_string(args()));
}

// Counts may be written as decimals ("1e6"); SimGrid truncates them.
std::int64_t TiCursor::count_arg(std::size_t i, bool unknown_allowed) const {
  double value = 0;
  if (!parse_number(arg(i), value) || std::trunc(value) > 9.0e15 || (value < 0 && !unknown_allowed))
    fail("argument " + std::to_string(i + 1) + " of '" + std::string(tokens_[1]) +
         "' must be a count (0 or more), got '" + std::string(arg(i)) + "'");
  return value < 0 ? kNone : static_cast<std::int64_t>(std::trunc(value));
}

double TiCursor::number_arg(std::size_t i) const {
  double value = 0;
  if (!parse_number(arg(i), value) || value < 0)
    fail("argument " + std::to_string(i + 1) + " of '" + std::string(tokens_[1]) +
         "' must be a number (0 or more), got '" + std::string(arg(i)) + "'");
  return value;
}

std::int32_t TiCursor::int_arg(std::size_t i, const char* what) const {
  std::int64_t value = 0;
  if (!parse_int(arg(i), value) || value < INT32_MIN || value > INT32_MAX)
    fail(std::string("expected ") + what + " as argument " + std::to_string(i + 1) + " of '" + std::string(tokens_[1]) +
         "', got '" + std::string(arg(i)) + "'");
  return static_cast<std::int32_t>(value);
}

// SMPI's MPI_ANY_TAG (SimGrid's include/smpi/smpi.h), as SimGrid records a receive for any tag.
constexpr std::int32_t kSmpiAnyTag = -444;

// A tag: 0 or more (MPI's tags), or SMPI's MPI_ANY_TAG on a receive and on the wait or test that
// names it. Any other negative tag is an error: the replay's own wildcards are negative too.
std::int32_t TiCursor::tag_arg(std::size_t i, bool receive) const {
  const std::int32_t tag = int_arg(i, "a tag");
  if (tag >= 0) return tag;
  if (receive && tag == kSmpiAnyTag) return kAnyTag;
  fail("a negative tag (" + std::to_string(tag) + ") as argument " + std::to_string(i + 1) + " of '" +
       std::string(tokens_[1]) + "': MPI tags are 0 or more" +
       (receive ? "; a receive for any tag is written with SMPI's MPI_ANY_TAG, -444" : ""));
}

std::int32_t TiCursor::rank_arg(std::size_t i, const char* what) const {
  const std::int32_t rank = int_arg(i, what);
  if (rank < 0 || rank >= trace_.ranks())
    fail(std::string(what) + " " + std::to_string(rank) + " is out of range: the trace's ranks are 0 to " +
         std::to_string(trace_.ranks() - 1));
  return rank;
}

std::int32_t TiCursor::datatype_arg(std::size_t i) const {
  std::int64_t id = -1;
  if (!parse_int(arg(i), id) || id < 0 || id >= static_cast<std::int64_t>(kTiDatatypes.size()))
    fail("unknown datatype '" + std::string(arg(i)) + "' (argument " + std::to_string(i + 1) + " of '" +
         std::string(tokens_[1]) + "'): SimGrid's datatype ids are 0 to " + std::to_string(kTiDatatypes.size() - 1));
  return static_cast<std::int32_t>(id);
}

Bytes TiCursor::bytes_of(std::int64_t count, std::int32_t datatype) const {
  return count == kNone ? 0 : count * kTiDatatypes[static_cast<std::size_t>(datatype)].size;
}

std::span<const std::int64_t> TiCursor::counts_arg(std::size_t first, std::vector<std::int64_t>& into) const {
  into.clear();
  for (std::int32_t r = 0; r < trace_.ranks(); ++r) into.push_back(count_arg(first + static_cast<std::size_t>(r)));
  return into;
}

// Each count is below 2^53 and a datatype at most 32 bytes, but their sum over many ranks
// can pass 2^63.
Bytes TiCursor::total_bytes(std::span<const std::int64_t> counts, std::int32_t datatype) const {
  Bytes total = 0;
  for (std::int64_t c : counts)
    if (__builtin_add_overflow(total, bytes_of(c, datatype), &total))
      fail("the counts of '" + std::string(tokens_[1]) + "' add up to more than 2^63 bytes");
  return total;
}

// ---- the actions

// "init [x]": an argument makes MPI_DOUBLE the rank's default datatype (MPE traces), else MPI_BYTE.
void TiCursor::parse_init(Call&) {
  expect_args(0, 1);
  default_type_ = args() == 1 ? kTiDouble : kTiByte;
}

void TiCursor::parse_comm_size(Call& call) {
  expect_args(1, 1);
  call.type = CallType::comm_size;
  call.count = count_arg(0);
}

// "send|isend|ssend|issend|recv|irecv PEER TAG COUNT [DATATYPE]"; a receive's count may be
// negative (unknown: the message's own size).
void TiCursor::parse_point_to_point(Call& call) {
  expect_args(3, 4);
  const bool receive = call.type == CallType::recv || call.type == CallType::irecv;
  call.peer = rank_arg(0, receive ? "source" : "destination");
  call.tag = tag_arg(1, receive);
  call.count = count_arg(2, receive);
  call.datatype = optional_datatype(3);
  call.bytes = bytes_of(call.count, call.datatype);
  if (call.type == CallType::isend || call.type == CallType::issend || call.type == CallType::irecv) {
    call.request = next_request_++;
    pending_.push_back({receive ? call.peer : rank_, receive ? rank_ : call.peer, call.tag, call.request});
  }
}

// "wait|test SRC DST TAG": the oldest pending request between them with that tag (a wait
// retires it; a test leaves it for a later wait, which then finds it complete).
void TiCursor::parse_wait_test(Call& call) {
  expect_args(3, 3);
  const std::int32_t src = rank_arg(0, "source"), dst = rank_arg(1, "destination"), tag = tag_arg(2, true);
  call.peer = src == rank_ ? dst : src;
  call.tag = tag;
  for (auto it = pending_.begin(); it != pending_.end(); ++it)
    if (it->src == src && it->dst == dst && it->tag == tag) {
      call.request = it->id;
      if (call.type == CallType::wait) pending_.erase(it);
      return;
    }
}

// "waitall [N]": every pending request (SimGrid's own recordings add their count).
void TiCursor::parse_waitall(Call& call) {
  expect_args(0, 1);
  requests_.clear();
  for (const Pending& p : pending_) requests_.push_back(p.id);
  pending_.clear();
  call.requests = requests_;
}

// The optional send and receive datatypes at arguments `first` and `first` + 1, and the bytes
// of the counts already read.
void TiCursor::typed_send_and_receive(Call& call, std::size_t first) {
  call.datatype = optional_datatype(first);
  call.recv_datatype = optional_datatype(first + 1);
  call.bytes = bytes_of(call.count, call.datatype);
  call.recv_bytes = bytes_of(call.recv_count, call.recv_datatype);
}

// "sendRecv SENDCOUNT DST RECVCOUNT SRC [DATATYPE [RECVTYPE]]", tags 0.
void TiCursor::parse_sendrecv(Call& call) {
  expect_args(4, 6);
  call.count = count_arg(0);
  call.peer = rank_arg(1, "destination");
  call.recv_count = count_arg(2);
  call.source2 = rank_arg(3, "source");
  call.tag = call.tag2 = 0;
  typed_send_and_receive(call, 4);
}

void TiCursor::parse_compute(Call& call) {
  expect_args(1, 1);
  call.flops = number_arg(0);
}

void TiCursor::parse_sleep(Call& call) {
  expect_args(1, 1);
  call.seconds = number_arg(0);
}

// "bcast COUNT [ROOT [DATATYPE]]"
void TiCursor::parse_bcast(Call& call) {
  expect_args(1, 3);
  call.count = count_arg(0);
  call.root = args() > 1 ? rank_arg(1, "root") : 0;
  call.datatype = optional_datatype(2);
  call.bytes = bytes_of(call.count, call.datatype);
}

// "reduce COUNT FLOPS [ROOT [DATATYPE]]"
void TiCursor::parse_reduce(Call& call) {
  expect_args(2, 4);
  call.count = count_arg(0);
  call.flops = number_arg(1);
  call.root = args() > 2 ? rank_arg(2, "root") : 0;
  call.datatype = optional_datatype(3);
  call.bytes = bytes_of(call.count, call.datatype);
}

// "allreduce COUNT FLOPS [DATATYPE]"
void TiCursor::parse_allreduce(Call& call) {
  expect_args(2, 3);
  call.count = count_arg(0);
  call.flops = number_arg(1);
  call.datatype = optional_datatype(2);
  call.bytes = bytes_of(call.count, call.datatype);
}

// "scan|exscan COUNT FLOPS [DATATYPE]"
void TiCursor::parse_scan(Call& call) { parse_allreduce(call); }

// "alltoall SENDCOUNT RECVCOUNT [SENDTYPE [RECVTYPE]]", counts per peer.
void TiCursor::parse_alltoall(Call& call) {
  expect_args(2, 4);
  call.count = count_arg(0);
  call.recv_count = count_arg(1);
  typed_send_and_receive(call, 2);
}

// "alltoallv SENDBUF SENDCOUNTS[n] RECVBUF RECVCOUNTS[n] [SENDTYPE [RECVTYPE]]"
void TiCursor::parse_alltoallv(Call& call) {
  const auto n = static_cast<std::size_t>(trace_.ranks());
  expect_args(2 * n + 2, 2 * n + 4);
  count_arg(0);
  count_arg(n + 1);
  call.datatype = optional_datatype(2 * n + 2);
  call.recv_datatype = optional_datatype(2 * n + 3);
  call.counts = counts_arg(1, counts_);
  call.recv_counts = counts_arg(n + 2, recv_counts_);
  call.bytes = total_bytes(call.counts, call.datatype);
  call.recv_bytes = total_bytes(call.recv_counts, call.recv_datatype);
}

// "gather SENDCOUNT RECVCOUNT [ROOT [SENDTYPE [RECVTYPE]]]"
void TiCursor::parse_gather(Call& call) {
  expect_args(2, 5);
  call.root = args() > 2 ? rank_arg(2, "root") : 0;
  call.count = count_arg(0);
  call.recv_count = count_arg(1);
  typed_send_and_receive(call, 3);
}

// "allgather SENDCOUNT RECVCOUNT [SENDTYPE [RECVTYPE]]"
void TiCursor::parse_allgather(Call& call) { parse_alltoall(call); }

// "gatherv SENDCOUNT RECVCOUNTS[n] [ROOT [SENDTYPE [RECVTYPE]]]"
void TiCursor::parse_gatherv(Call& call) {
  const auto n = static_cast<std::size_t>(trace_.ranks());
  expect_args(n + 1, n + 4);
  call.count = count_arg(0);
  call.recv_counts = counts_arg(1, recv_counts_);
  call.root = args() > n + 1 ? rank_arg(n + 1, "root") : 0;
  call.datatype = optional_datatype(n + 2);
  call.recv_datatype = optional_datatype(n + 3);
  call.bytes = bytes_of(call.count, call.datatype);
  call.recv_bytes = total_bytes(call.recv_counts, call.recv_datatype);
}

// "allgatherv SENDCOUNT RECVCOUNTS[n] [SENDTYPE RECVTYPE] [DISPLS[n]]": SimGrid tells the
// forms apart by their length (with two ranks, two more numbers are the datatypes).
void TiCursor::parse_allgatherv(Call& call) {
  const auto n = static_cast<std::size_t>(trace_.ranks());
  const bool with_types = args() == n + 3 || args() == 2 * n + 3;
  const bool with_displacements = args() == 2 * n + 3 || (args() == 2 * n + 1 && n != 2);
  if (!(args() == n + 1 || with_types || with_displacements))
    fail("action 'allgatherv' takes " + std::to_string(n + 1) + ", " + std::to_string(n + 3) + ", " +
         std::to_string(2 * n + 1) + " or " + std::to_string(2 * n + 3) + " arguments with " + std::to_string(n) +
         " ranks, got " + std::to_string(args()));
  call.count = count_arg(0);
  call.recv_counts = counts_arg(1, recv_counts_);
  call.datatype = with_types ? datatype_arg(n + 1) : default_type_;
  call.recv_datatype = with_types ? datatype_arg(n + 2) : default_type_;
  if (with_displacements)
    for (std::size_t i = 0; i < n; ++i) count_arg((with_types ? n + 3 : n + 1) + i);
  call.bytes = bytes_of(call.count, call.datatype);
  call.recv_bytes = total_bytes(call.recv_counts, call.recv_datatype);
}

// "scatter SENDCOUNT RECVCOUNT [ROOT [SENDTYPE [RECVTYPE]]]"
void TiCursor::parse_scatter(Call& call) { parse_gather(call); }

// "scatterv SENDCOUNTS[n] RECVCOUNT [ROOT [SENDTYPE [RECVTYPE]]]"
void TiCursor::parse_scatterv(Call& call) {
  const auto n = static_cast<std::size_t>(trace_.ranks());
  expect_args(n + 1, n + 4);
  call.counts = counts_arg(0, counts_);
  call.recv_count = count_arg(n);
  call.root = args() > n + 1 ? rank_arg(n + 1, "root") : 0;
  call.datatype = optional_datatype(n + 2);
  call.recv_datatype = optional_datatype(n + 3);
  call.bytes = total_bytes(call.counts, call.datatype);
  call.recv_bytes = bytes_of(call.recv_count, call.recv_datatype);
}

// "reducescatter RECVCOUNTS[n] FLOPS [DATATYPE]"
void TiCursor::parse_reduce_scatter(Call& call) {
  const auto n = static_cast<std::size_t>(trace_.ranks());
  expect_args(n + 1, n + 2);
  call.recv_counts = counts_arg(0, recv_counts_);
  call.flops = number_arg(n);
  call.datatype = call.recv_datatype = optional_datatype(n + 1);
  call.recv_bytes = total_bytes(call.recv_counts, call.recv_datatype);
  call.bytes = call.recv_bytes;
}

}  // namespace

std::unique_ptr<Trace> open_ti_trace(const std::string& path, const Where&) { return std::make_unique<TiTrace>(path); }

}  // namespace torsim::replay
