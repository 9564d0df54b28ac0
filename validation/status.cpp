#include "validation/status.hpp"

#include <filesystem>
#include <iostream>

#include "validation/robustness.hpp"

namespace torsim::validation {

namespace {

Json load_status(const std::string& path) {
  if (!std::filesystem::exists(path)) return Json::object();
  return read_json_file(path);
}

}  // namespace

namespace {

std::string status_part(const std::string& label) { return label.substr(0, label.find(" (")); }
bool robust(const std::string& label) { return label.find("(robust") != std::string::npos; }

}  // namespace

int check_against(const std::string& path, const std::vector<ClaimResult>& results, bool quick) {
  const Json recorded = load_status(path).value(quick ? "quick" : "full", Json::object());
  int regressions = 0;
  for (const auto& r : results) {
    const std::string was = recorded.value(r.claim->id, std::string());
    const std::string now = robust_label(r);
    if (status_part(was) == "reproduced" && r.status != Status::reproduced) {
      std::cerr << "REGRESSION: " << r.claim->id << " was " << was << " and is now " << now << "\n";
      ++regressions;
    } else if (robust(was) && r.robustness.computed && !robust(now) && status_part(was) == status_part(now)) {
      std::cerr << "REGRESSION: " << r.claim->id << " was " << was << " and is now " << now << "\n";
      ++regressions;
    }
  }
  return regressions ? 3 : 0;
}

std::string recorded_status(const std::string& path, const std::vector<ClaimResult>& results, bool quick) {
  Json doc = load_status(path);
  Json& scale = doc[quick ? "quick" : "full"];
  for (const auto& r : results) scale[r.claim->id] = robust_label(r);
  return doc.dump(2) + "\n";
}

}  // namespace torsim::validation
