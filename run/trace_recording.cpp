#include "run/trace_recording.hpp"

#include <filesystem>

namespace torsim {

TraceRecording::TraceRecording(std::string path, Where where)
    : path_(std::move(path)), where_(where), rank_files_(path_ + "_files", where), index_(path_, where) {}

std::string TraceRecording::index_name() const { return std::filesystem::path(path_).filename().string(); }

void TraceRecording::append(const std::string& name, std::string_view text) {
  if (name == index_name()) return index_.writer().write(text);
  const std::string folder = index_name() + "_files/";
  if (!name.starts_with(folder)) where_.fail("a recording's files are its index and " + folder + "*, not " + name);
  rank_files_.append(name.substr(folder.size()), text);
  rank_files_written_ = true;
}

void TraceRecording::publish() {
  if (rank_files_written_) rank_files_.publish();
  index_.publish();
}

}  // namespace torsim
