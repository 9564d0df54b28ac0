// Reading JSON from outside: scenario and preset files, results to merge, values given on the
// command line. Every document is bounded before anything walks it: a file is read up to
// kMaxJsonFileBytes, nesting stops at kMaxJsonDepth levels (so no recursion over input is
// unbounded), and a NUL byte, a duplicate key or malformed text is an InputError with the line
// and column or the JSON pointer, and the reason.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "sim/config/params.hpp"

namespace torsim {

/// Levels of nesting a document may have; a scenario needs about six.
inline constexpr std::size_t kMaxJsonDepth = 64;
/// Bytes a scenario, preset or registry file may have; the largest shipped one
/// (validation/claims.json) has 84 KB.
inline constexpr std::size_t kMaxJsonFileBytes = std::size_t{16} << 20;

/// Reads and parses a JSON file (at most kMaxJsonFileBytes).
Json read_json_file(const std::string& path);
/// Parses JSON text read from `file`.
Json parse_json_text(const std::string& text, const std::string& file);
/// Parses `text` if it is JSON (nullopt if it is not); a document that is JSON but breaks a
/// bound (too deep, a duplicate key, a NUL byte) is an InputError at `where`.
std::optional<Json> parse_json_value(const std::string& text, const Where& where);

}  // namespace torsim
