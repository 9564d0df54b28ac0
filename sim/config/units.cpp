#include "sim/config/units.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace torsim {
namespace {

struct UnitFactor {
  std::string_view name;
  std::int64_t factor;  // base units per unit
};

constexpr std::array kSizeUnits{
    UnitFactor{"B", 1},         UnitFactor{"KB", 1000},       UnitFactor{"kB", 1000},
    UnitFactor{"MB", 1000000},  UnitFactor{"GB", 1000000000}, UnitFactor{"KiB", 1024},
    UnitFactor{"MiB", 1 << 20}, UnitFactor{"GiB", 1LL << 30}, UnitFactor{"TB", 1000000000000}};
constexpr std::array kRateUnits{UnitFactor{"B/s", 1},         UnitFactor{"KB/s", 1000},       UnitFactor{"kB/s", 1000},
                                UnitFactor{"MB/s", 1000000},  UnitFactor{"GB/s", 1000000000}, UnitFactor{"KiB/s", 1024},
                                UnitFactor{"MiB/s", 1 << 20}, UnitFactor{"GiB/s", 1LL << 30}, UnitFactor{"Kb/s", 125},
                                UnitFactor{"Mb/s", 125000},   UnitFactor{"Gb/s", 125000000}};
constexpr std::array kTimeUnits{UnitFactor{"ps", 1}, UnitFactor{"ns", 1000}, UnitFactor{"us", 1000000},
                                UnitFactor{"ms", 1000000000}, UnitFactor{"s", 1000000000000}};

template <std::size_t N>
std::optional<std::int64_t> find_factor(const std::array<UnitFactor, N>& units, std::string_view u) {
  for (const auto& unit : units)
    if (unit.name == u) return unit.factor;
  return std::nullopt;
}

std::optional<std::int64_t> factor_of(Quantity q, std::string_view unit) {
  switch (q) {
    case Quantity::size:
      return find_factor(kSizeUnits, unit);
    case Quantity::rate:
      return find_factor(kRateUnits, unit);
    case Quantity::time:
      return find_factor(kTimeUnits, unit);
  }
  return std::nullopt;
}

// A decimal "digits[.digits][e[+-]digits]" as mantissa * 10^exponent.
struct Decimal {
  Int128 mantissa = 0;
  int exponent = 0;
};

// An exponent "e[+-]digits" at `pos`: its value, with `pos` moved past it; 0, with `pos` left
// alone, when there is none (the "e" then belongs to a unit).
int take_exponent(std::string_view s, std::size_t& pos) {
  if (pos >= s.size() || (s[pos] != 'e' && s[pos] != 'E') || pos + 1 >= s.size()) return 0;
  std::size_t p = pos + 1;
  int sign = 1;
  if (s[p] == '+' || s[p] == '-') sign = s[p++] == '-' ? -1 : 1;
  int e = 0;
  bool digits = false;
  while (p < s.size() && s[p] >= '0' && s[p] <= '9' && e < 400) {
    e = e * 10 + (s[p++] - '0');
    digits = true;
  }
  if (!digits) return 0;
  pos = p;
  return sign * e;
}

std::optional<Decimal> parse_decimal(std::string_view s, std::size_t& pos) {
  Decimal d;
  bool any_digit = false;
  auto take_digits = [&](bool fraction) {
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (d.mantissa < (static_cast<Int128>(1) << 80)) {  // 24 significant digits
        d.mantissa = d.mantissa * 10 + (s[pos] - '0');
        if (fraction) --d.exponent;
      } else if (!fraction) {
        ++d.exponent;
      }
      any_digit = true;
      ++pos;
    }
  };
  take_digits(false);
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    take_digits(true);
  }
  if (!any_digit) return std::nullopt;
  d.exponent += take_exponent(s, pos);
  return d;
}

// mantissa * 10^exponent * factor, rounded half up; nullopt on overflow of int64.
std::optional<std::int64_t> to_base(const Decimal& d, std::int64_t factor) {
  Int128 value = d.mantissa * factor;  // < 2^80 * 2^40: no overflow
  const Int128 limit = static_cast<Int128>(INT64_MAX);
  if (d.exponent < -36) return 0;
  if (d.exponent < 0) {
    Int128 divisor = 1;
    for (int e = d.exponent; e < 0; ++e) divisor *= 10;
    value = (value + divisor / 2) / divisor;
  }
  for (int e = d.exponent; e > 0; --e) {
    value *= 10;
    if (value > limit) return std::nullopt;
  }
  if (value > limit) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::int64_t> parse_quantity(std::string_view text, Quantity q, std::string_view bare_unit) {
  text = trim(text);
  std::size_t pos = 0;
  auto number = parse_decimal(text, pos);
  if (!number) return std::nullopt;
  std::string_view unit = trim(text.substr(pos));
  if (unit.empty()) unit = bare_unit;
  auto factor = factor_of(q, unit);
  if (!factor) return std::nullopt;
  return to_base(*number, *factor);
}

std::optional<std::int64_t> scale_to_base(double value, Quantity q, std::string_view unit) {
  auto factor = factor_of(q, unit);
  if (!factor || !std::isfinite(value) || value < 0) return std::nullopt;
  const double scaled = value * static_cast<double>(*factor);
  if (scaled >= 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(scaled));
}

bool whole_in_base_units(std::string_view text, Quantity q, std::string_view bare_unit) {
  if (q == Quantity::rate) return true;
  text = trim(text);
  std::size_t pos = 0;
  const auto number = parse_decimal(text, pos);
  std::string_view unit = trim(text.substr(pos));
  const auto factor = factor_of(q, unit.empty() ? bare_unit : unit);
  if (!number || !factor || number->exponent >= 0 || number->mantissa == 0) return true;
  if (number->exponent < -36) return false;
  Int128 divisor = 1;
  for (int e = number->exponent; e < 0; ++e) divisor *= 10;
  return number->mantissa * *factor % divisor == 0;
}

bool whole_in_base_units(double value, Quantity q, std::string_view unit) {
  const auto factor = factor_of(q, unit);
  if (q == Quantity::rate || !factor || !std::isfinite(value)) return true;
  const double scaled = value * static_cast<double>(*factor);
  return std::fabs(scaled - std::round(scaled)) <= 1e-9 * std::max(1.0, std::fabs(scaled));
}

std::string accepted_units(Quantity q) {
  auto join = [](const auto& units) {
    std::string out;
    for (const auto& u : units) out += (out.empty() ? "" : ", ") + std::string(u.name);
    return out;
  };
  switch (q) {
    case Quantity::size:
      return join(kSizeUnits);
    case Quantity::rate:
      return join(kRateUnits);
    case Quantity::time:
      return join(kTimeUnits);
  }
  return {};
}

namespace {

// Shortest decimal of value/divisor with up to 3 decimals, trailing zeros removed.
std::string scaled(std::int64_t value, std::int64_t divisor, std::string_view unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(value) / static_cast<double>(divisor));
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s + std::string(unit);
}

}  // namespace

std::string format_size(Bytes b) {
  if (b >= (1LL << 30) && b % (1LL << 20) == 0) return scaled(b, 1LL << 30, "GiB");
  if (b >= (1 << 20) && b % (1 << 10) == 0) return scaled(b, 1 << 20, "MiB");
  if (b >= 1024 && b % 64 == 0) return scaled(b, 1024, "KiB");
  return std::to_string(b) + "B";
}

std::string format_rate(Rate r) {
  if (r >= 1000000000) return scaled(r, 1000000000, "GB/s");
  if (r >= 1000000) return scaled(r, 1000000, "MB/s");
  return scaled(r, 1, "B/s");
}

std::string format_time(Time t) {
  if (t >= kSecond) return scaled(t, kSecond, "s");
  if (t >= kMillisecond) return scaled(t, kMillisecond, "ms");
  if (t >= kMicrosecond) return scaled(t, kMicrosecond, "us");
  if (t >= kNanosecond) return scaled(t, kNanosecond, "ns");
  return std::to_string(t) + "ps";
}

}  // namespace torsim
