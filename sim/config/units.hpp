// Quantities with units in scenario files: sizes ("4KiB"), rates ("425MB/s"), times ("105ns").
// Parsing is exact decimal arithmetic, so "9.375GB/s" is 9,375,000,000 B/s on every machine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/core/time.hpp"

namespace torsim {

enum class Quantity { size, rate, time };

/// Parses "<decimal><unit>" (spaces allowed between) for the quantity. A bare number is taken
/// in `bare_unit` (e.g. "ns"). Returns the value in base units (bytes, bytes/s, picoseconds),
/// or nullopt when the text is not such a quantity.
std::optional<std::int64_t> parse_quantity(std::string_view text, Quantity q, std::string_view bare_unit);
/// Converts a number given in `unit` to base units, rounded to the nearest integer.
std::optional<std::int64_t> scale_to_base(double value, Quantity q, std::string_view unit);

/// Whether a quantity is a whole number of base units: sizes are counted in bytes and times in
/// picoseconds, so "1.5B" and "0.4ps" are not (rates may have fractions of a byte per second).
/// The text form is checked exactly, a number given in `unit` up to its double precision.
bool whole_in_base_units(std::string_view text, Quantity q, std::string_view bare_unit);
bool whole_in_base_units(double value, Quantity q, std::string_view unit);

/// The units accepted for a quantity, for error messages and docs.
std::string accepted_units(Quantity q);

/// Readable forms: "4KiB"/"1.5MB", "9.375GB/s", "1.27us".
std::string format_size(Bytes b);
std::string format_rate(Rate r);
std::string format_time(Time t);

}  // namespace torsim
