#include "sim/config/provenance.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace torsim {

namespace {

thread_local ReadLog* g_log = nullptr;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool says_assumed(std::string_view citation) {
  const std::string text = lower(citation);
  return text.find("[e]") != std::string::npos || text.find("[assumption]") != std::string::npos ||
         text.find("/[e]") != std::string::npos || text.find("assum") != std::string::npos;
}

}  // namespace

std::string Provenance::label() const {
  switch (source_class) {
    case SourceClass::cited:
      return "cited";
    case SourceClass::read_in_code:
      return "read in code";
    case SourceClass::assumption:
      return "assumption";
    case SourceClass::calibrated:
      return "calibrated on " + calibration_point;
    case SourceClass::structural:
      return "structural";
    case SourceClass::unsourced:
      return "unsourced";
  }
  return "?";
}

Provenance classify_source(std::string_view citation) {
  const auto start = citation.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {SourceClass::unsourced, ""};
  citation.remove_prefix(start);
  static const std::regex calibration(R"(calibration point (K[A-Z]*[0-9]+))");
  const std::string text(citation);
  std::smatch m;
  if (std::regex_search(text, m, calibration)) return {SourceClass::calibrated, m[1].str()};
  if (citation == "-" || citation.starts_with("- ")) return {SourceClass::structural, ""};
  if (says_assumed(citation)) return {SourceClass::assumption, ""};
  if (citation.starts_with("[C-code]")) return {SourceClass::read_in_code, ""};
  if (citation.starts_with("[C") || citation.starts_with("[D")) return {SourceClass::cited, ""};
  return {SourceClass::unsourced, ""};
}

ReadLog::ReadLog() : outer_(g_log) { g_log = this; }

ReadLog::~ReadLog() { g_log = outer_; }

bool ReadLog::active() { return g_log != nullptr; }

void ReadLog::note(const std::string& pointer, const ParamRead& read) {
  if (g_log) g_log->reads_.emplace(pointer, read);
}

ReadLog::Pause::Pause() : paused_(g_log) { g_log = nullptr; }

ReadLog::Pause::~Pause() { g_log = paused_; }

}  // namespace torsim
