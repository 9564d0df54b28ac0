#include "validation/sensitivity.hpp"

#include <algorithm>
#include <cmath>

#include "sim/config/units.hpp"

namespace torsim::validation {

namespace {

Json scaled_number(const Json& value, double factor) {
  if (!value.is_number_integer()) return value.get<double>() * factor;
  const auto v = value.get<std::int64_t>();
  const auto scaled = static_cast<std::int64_t>(std::llround(static_cast<double>(v) * factor));
  return v >= 1 ? std::max<std::int64_t>(1, scaled) : scaled;
}

}  // namespace

Json scaled_parameter(const Json& value, double factor, const Where& where) {
  if (value.is_number()) return scaled_number(value, factor);
  if (value.is_string()) {
    const auto text = value.get<std::string>();
    constexpr std::pair<Quantity, const char*> kinds[] = {
        {Quantity::size, "B"}, {Quantity::rate, "B/s"}, {Quantity::time, "ps"}};
    for (const auto& [quantity, base_unit] : kinds)
      if (const auto base = parse_quantity(text, quantity, ""))
        return std::to_string(std::llround(static_cast<double>(*base) * factor)) + base_unit;
  }
  where.fail("a sensitivity parameter must be a number or a quantity with a unit (\"100ns\"), got " + value.dump());
}

void sort_by_effect(std::vector<SensitivityRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.effect > b.effect; });
}

}  // namespace torsim::validation
