// sst-dumpi's binary traces: a .meta file (key=value lines: numprocs, fileprefix) and one .bin
// per rank, PREFIX-NNNN.bin. A .bin starts with an 8-byte magic and ends with an index of its
// sections (header, body, footer, keyvals, perfcounter labels, function addresses, datatype
// sizes); the body is the stream of records: a 16-bit function label, an option mask, the
// thread, CPU and wall times as 16-bit seconds from a bias and 32-bit nanoseconds, performance
// counters, then the function's arguments (dumpi_functions.hpp). Everything is big-endian.
// Written from sst-dumpi's own description of the format; versions from 0.6.9 on.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/apps/replay/dumpi_functions.hpp"
#include "models/apps/replay/mapped_file.hpp"
#include "models/apps/replay/trace.hpp"

namespace torsim::replay {

/// Whether 8 bytes are DUMPI's magic (ff aa dd 'D' 'U' 'M' 'P' 'I').
bool is_dumpi_magic(const unsigned char* bytes);

std::unique_ptr<Trace> open_dumpi_trace(const std::string& path, const Where& where);

namespace dumpi {

struct Clock {
  std::int64_t sec = 0;  // bias included: seconds of the clock itself
  std::int64_t nsec = 0;
};

struct Status {
  std::int32_t bytes, source, tag;
  std::int8_t cancelled, error;
};

/// One record as stored: what sst-dumpi's own decoder gives.
struct Record {
  std::uint16_t label = 0;
  std::uint8_t mask = 0;
  std::uint16_t thread = 0;
  bool has_cpu = false, has_wall = false;
  Clock cpu_start, cpu_stop, wall_start, wall_stop;
  std::vector<std::int64_t> perf_in, perf_out;
  /// Per argument of the function's layout: whether it was recorded (arguments at the root only
  /// are absent elsewhere), its scalar value or where its values are.
  struct Arg {
    bool present = false;
    std::int64_t value = 0;        // scalars; for arrays, their length
    std::size_t first = 0, n = 0;  // arrays: ints[first, first + n), texts[...], statuses[...]
    std::size_t rows_first = 0;    // arrays of arrays: row lengths at ints[rows_first, rows_first + value)
  };
  std::vector<Arg> args;
  std::vector<std::int64_t> ints;
  std::vector<std::string_view> texts;
  std::vector<Status> statuses;
  std::uint64_t offset = 0;  // byte offset of the record's label
  std::uint64_t index = 0;   // records before it in the stream

  const FunctionSpec& function() const { return dumpi::function(label); }
  std::span<const std::int64_t> values(const Arg& a) const { return {ints.data() + a.first, a.n}; }
};

/// One rank's .bin: its sections, and a stream of its records.
class File {
 public:
  explicit File(std::string path);

  const std::string& path() const { return file_->path(); }
  std::array<std::uint8_t, 3> version() const { return version_; }
  std::int64_t start_time() const { return start_time_; }  // seconds since the epoch
  const std::string& hostname() const { return hostname_; }
  const std::string& username() const { return username_; }
  const std::vector<std::int32_t>& mesh_coords() const { return mesh_coords_; }
  const std::vector<std::int32_t>& mesh_size() const { return mesh_size_; }
  /// Per label 0..kAllFunctions: the footer's counts of calls made and of calls not recorded.
  const std::vector<std::int32_t>& call_counts() const { return call_counts_; }
  const std::vector<std::int32_t>& ignored_counts() const { return ignored_counts_; }
  const std::vector<std::pair<std::string, std::string>>& keyvals() const { return keyvals_; }
  const std::vector<std::string>& perf_labels() const { return perf_labels_; }
  const std::vector<std::pair<std::uint64_t, std::string>>& function_addresses() const { return addresses_; }
  /// Sizes of the datatypes by DUMPI id (predefined, then the rank's user types).
  const std::vector<std::int32_t>& datatype_sizes() const { return sizes_; }

  /// Reads the stream from its start: next() fills `record` until the end of the stream.
  class Stream {
   public:
    explicit Stream(const File& file);
    bool next(Record& record);

   private:
    const File& file_;
    std::size_t pos_;
    std::uint64_t index_ = 0;
    std::int64_t cpu_bias_ = 0, wall_bias_ = 0;
  };

  /// An InputError at byte `offset` (record `index`, if >= 0).
  [[noreturn]] void fail(std::uint64_t offset, std::int64_t index, const std::string& message) const;

 private:
  friend class Stream;
  void read_index();
  void read_header();
  void read_footer();
  void read_tables();
  void read_keyvals();

  std::shared_ptr<const MappedFile> file_;
  std::array<std::uint8_t, 3> version_{};
  std::int64_t start_time_ = 0;
  std::string hostname_, username_;
  std::vector<std::int32_t> mesh_coords_, mesh_size_;
  std::vector<std::int32_t> call_counts_, ignored_counts_;
  std::vector<std::pair<std::string, std::string>> keyvals_;
  std::vector<std::string> perf_labels_;
  std::vector<std::pair<std::uint64_t, std::string>> addresses_;
  std::vector<std::int32_t> sizes_;
  std::uint64_t header_ = 0, body_ = 0, footer_ = 0, keyval_ = 0, perflbl_ = 0, addrlbl_ = 0, sizelbl_ = 0;
  std::uint64_t body_end_ = 0;
};

}  // namespace dumpi
}  // namespace torsim::replay
