// The files of an MPI recording as a time-independent trace (torsim run --record-mpi FILE): FILE
// (the index, or the only file of the one-file form) and FILE_files/ (one file per rank), both
// staged beside FILE and moved into place by publish(): an interrupted or failed run leaves no
// partial recording. The writer (models/apps/replay/ti_writer.hpp) fills it.
#pragma once

#include <string>

#include "models/apps/replay/ti_writer.hpp"
#include "run/output_files.hpp"

namespace torsim {

class TraceRecording : public replay::TiSink {
 public:
  /// `where` names what gave the path (the command line); errors are InputErrors there.
  TraceRecording(std::string path, Where where);
  void append(const std::string& name, std::string_view text) override;
  /// Moves the rank files, then the index, into place.
  void publish();
  /// The name a writer gives the index (FILE's name, without its folder).
  std::string index_name() const;

 private:
  std::string path_;
  Where where_;
  OutputDir rank_files_;
  AtomicFile index_;
  bool rank_files_written_ = false;  // the one-file form has no FILE_files/
};

}  // namespace torsim
