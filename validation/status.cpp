#include "validation/status.hpp"

#include <filesystem>
#include <iostream>

namespace torsim::validation {

namespace {

Json load_status(const std::string& path) {
  if (!std::filesystem::exists(path)) return Json::object();
  return read_json_file(path);
}

}  // namespace

int check_against(const std::string& path, const std::vector<ClaimResult>& results, bool quick) {
  const Json recorded = load_status(path).value(quick ? "quick" : "full", Json::object());
  int regressions = 0;
  for (const auto& r : results) {
    const std::string was = recorded.value(r.claim->id, std::string());
    if (was == "reproduced" && r.status != Status::reproduced) {
      std::cerr << "REGRESSION: " << r.claim->id << " was reproduced and is now " << status_name(r.status) << "\n";
      ++regressions;
    }
  }
  return regressions ? 3 : 0;
}

std::string recorded_status(const std::string& path, const std::vector<ClaimResult>& results, bool quick) {
  Json doc = load_status(path);
  Json& scale = doc[quick ? "quick" : "full"];
  for (const auto& r : results) scale[r.claim->id] = status_name(r.status);
  return doc.dump(2) + "\n";
}

}  // namespace torsim::validation
