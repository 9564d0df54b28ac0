// Writes calls as SimGrid time-independent actions (the format ti_reader.hpp reads): one file
// per rank listed in an index, or every rank in one file. Sizes are written in bytes (MPI_BYTE,
// the format's default), computation in flops. The files go through a sink, which decides where
// and how they are stored (run/trace_recording.hpp writes them atomically); per-rank text is
// buffered and handed over in large pieces, so a recording of many ranks keeps no file open.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/apps/replay/trace.hpp"

namespace torsim::replay {

/// Where a writer's files go: `append` adds text to the file `name` (a path relative to the
/// index's folder), creating it on first use.
class TiSink {
 public:
  virtual ~TiSink() = default;
  virtual void append(const std::string& name, std::string_view text) = 0;
};

class TiWriter {
 public:
  enum class Layout : std::uint8_t { per_rank, one_file };

  /// A trace of `ranks` ranks whose index (per_rank) or only file (one_file) is `index_name`;
  /// rank files are INDEX_files/rank-N.txt, as SimGrid names its own. Calls the format cannot
  /// hold are InputErrors at `where` (what asked for the recording). A v-variant's counts are
  /// counts of its datatype, sized by `datatypes` (the calls' trace's); without a datatype they
  /// are bytes.
  TiWriter(TiSink& sink, std::string index_name, std::int32_t ranks, Layout layout, Where where,
           std::vector<Datatype> datatypes = {}, std::size_t buffer_bytes = std::size_t{32} << 20);

  /// The action of one call of rank `r` (calls of a rank in order). A wait or test names its
  /// request's source, destination and tag, as SimGrid matches them: the writer remembers the
  /// requests each rank's isend and irecv made. The replay takes the oldest pending request of
  /// those three, so a wait or test on a later one while an earlier one is pending cannot be
  /// written (an InputError, rather than a trace that waits on another request).
  void write(std::int32_t r, const Call& call);
  /// Writes what is buffered and the index. Nothing may be written after.
  void finish();

  /// The name of rank `r`'s file (per_rank layout).
  std::string rank_file(std::int32_t r) const;

 private:
  struct Request {
    std::int32_t src, dst, tag;
    std::uint64_t order;  // when the rank made it: the format's waits go to the oldest
    auto key() const { return std::array<std::int32_t, 3>{src, dst, tag}; }
  };
  struct Pending {
    std::unordered_map<std::int64_t, Request> requests;
    std::map<std::array<std::int32_t, 3>, std::set<std::uint64_t>> by_key;  // orders, oldest first
    std::uint64_t next_order = 0;
    void forget_order(const Request& req);  // by_key without req (requests is left to the caller)
  };
  void line(std::int32_t r, std::string_view text);
  void flush();
  std::string action(std::int32_t r, const Call& call);
  void add_request(std::int32_t r, std::int64_t request, Request req);
  std::string wait_action(std::int32_t r, const Call& call, const char* name, std::int64_t request);
  std::string waitall_action(std::int32_t r, const Call& call);
  std::string counts(std::span<const std::int64_t> counts, std::int32_t datatype, const Call& call) const;
  [[noreturn]] void cannot(std::int32_t r, const Call& call, const std::string& why) const;

  TiSink& sink_;
  std::string index_;
  std::int32_t ranks_;
  Layout layout_;
  Where where_;
  std::vector<Datatype> datatypes_;
  std::size_t buffer_bytes_;
  std::size_t buffered_ = 0;
  std::vector<std::string> buffers_;  // per rank (one_file: all in buffers_[0])
  std::vector<Pending> pending_;      // per rank
  bool finished_ = false;
};

}  // namespace torsim::replay
