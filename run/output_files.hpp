// Writing a run's files so that nobody ever sees a partial result. Every file of a run is
// written into a staging directory beside the output directory and moved in only once all of
// them were written; a failure (disk full, no permission, a file where a directory should be)
// removes the staging directory and any parent it created, and is an InputError naming what gave
// the directory. A process ended by SIGINT, SIGTERM or SIGHUP removes what it had staged; one
// killed outright leaves at most a hidden ".NAME.partial-PID" directory, never a partial NAME (the
// next run into the same place removes it).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "run/interrupt.hpp"
#include "sim/config/params.hpp"

namespace torsim {

/// The whole content of a file; an InputError at `where` naming the file and the reason if it
/// cannot be read.
std::string read_text_file(const std::string& path, const Where& where);

/// A file written through a file descriptor, so that every failure has its errno (an ofstream's
/// has none). Errors are InputErrors at `where`, naming the file and the system's reason.
class FileWriter {
 public:
  /// Creates (or truncates) `path`; with `append`, adds to what it holds.
  FileWriter(std::string path, Where where, bool append = false);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void write(std::string_view text);
  /// Flushes and closes (once); a write error (ENOSPC, EFBIG) may only show here.
  void close();
  std::uint64_t bytes() const { return bytes_; }
  const std::string& path() const { return path_; }

 private:
  void flush();
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  Where where_;
  int fd_ = -1;
  std::string buffer_;
  std::uint64_t bytes_ = 0;
};

/// The list of the files a run wrote into its output directory (one name a line), so that the
/// next run into the same directory removes those it does not write again.
inline constexpr std::string_view kManifestName = ".torsim-files";

/// The output directory of a run, written all at once. It holds one run's files: publishing
/// into a directory an earlier run wrote removes the earlier files this run does not replace
/// (those its manifest lists; nothing else in the directory is touched).
class OutputDir {
 public:
  /// `where` names what gave the directory: the scenario's /output/dir, or --out.
  OutputDir(std::string dir, Where where);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  /// Creates and removes the staging directory: an unwritable location fails before the run.
  void check_writable();
  /// Writes `name` (a path relative to the directory) into the staging directory.
  void write(const std::string& name, std::string_view content);
  /// Opens `name` in the staging directory for a writer that streams it (the caller closes it).
  std::unique_ptr<FileWriter> open(const std::string& name);
  /// Adds `content` to `name` in the staging directory, creating it on first use; keeps no file
  /// open between calls (a writer of many files in turns, a trace recording's ranks).
  void append(const std::string& name, std::string_view content);
  /// Moves every staged file and the manifest into the directory (creating it, or replacing
  /// the earlier run's files in it).
  void publish();

  const std::string& dir() const { return dir_; }
  const Where& where() const { return where_; }

 private:
  void stage();
  void discard() noexcept;

  std::string dir_;
  Where where_;
  std::string staging_;
  std::vector<std::string> created_parents_;  // outermost first
  std::vector<std::string> staged_;           // relative names
  std::unordered_set<std::string> appended_;  // names append() has created
  std::vector<std::unique_ptr<RemoveOnSignal>> guards_;
};

/// A single file written under a temporary name beside it and renamed by publish() (for
/// --trace FILE, outside the output directory). Removed if never published.
class AtomicFile {
 public:
  AtomicFile(std::string path, Where where);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  FileWriter& writer() { return *writer_; }
  /// Closes the writer and renames the file into place.
  void publish();

 private:
  std::string path_, temporary_;
  Where where_;
  std::unique_ptr<FileWriter> writer_;
  std::unique_ptr<RemoveOnSignal> guard_;
  bool published_ = false;
};

/// Writes a whole file through an AtomicFile: the file is complete, or (on any error, an
/// InputError at `where`) unchanged.
void write_file_atomically(const std::string& path, std::string_view text, const Where& where);

}  // namespace torsim
