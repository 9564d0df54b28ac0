// Paths in the temporary directory that are this process's own, so that two test runs at once
// on one machine do not write into, or remove, each other's files.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace torsim::test {

/// TMPDIR/NAME-PID, then `extension` (".json", say) if given.
inline std::filesystem::path scratch_path(const std::string& name, const std::string& extension = "") {
  return std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + extension);
}

}  // namespace torsim::test
