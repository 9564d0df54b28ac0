// The fuzzed entry points (libFuzzer targets in tests/fuzz/fuzz_*.cpp), shared with the unit test
// that replays every input the fuzzers once crashed on (tests/fuzz/regressions/).
//
// Bad input must end in an InputError (a message naming the file, the JSON path and what was
// expected: exit code 2); anything else escaping (another exception, a crash, a sanitizer
// report, a hang, memory out of bounds) is a bug the fuzzer reports.
#pragma once

#include <string_view>

namespace torsim::fuzz {

/// Loads `text` as a scenario file: parse, presets, every sweep point built (machine, network,
/// placement, messaging layer, workload), trace options checked. Nothing runs.
void load_scenario(std::string_view text);

/// Parses `text` as a size, a rate and a time, with and without a unit for bare numbers, and
/// checks what it gets: a value >= 0 that formats and parses back within the format's rounding.
void parse_units(std::string_view text);

/// Reads `bytes` as a DUMPI rank file (a one-rank trace), every record decoded into calls.
void read_dumpi(std::string_view bytes);

/// Reads `text` as a time-independent action file (every rank in one file), every call decoded.
void read_ti(std::string_view text);

}  // namespace torsim::fuzz
