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

namespace {

bool possible(const SensitivityRow& row, std::size_t f) { return row.impossible[f].empty(); }

}  // namespace

std::size_t Robustness::moving_variants() const {
  std::size_t n = 0;
  for (const auto& row : rows)
    for (std::size_t f = 0; f < row.status.size(); ++f) n += possible(row, f) && row.moved[f];
  return n;
}

std::size_t Robustness::kept_variants(Status status) const {
  std::size_t n = 0;
  for (const auto& row : rows)
    for (std::size_t f = 0; f < row.status.size(); ++f)
      n += possible(row, f) && row.moved[f] && row.status[f] == status;
  return n;
}

std::size_t Robustness::idle_variants() const {
  std::size_t n = 0;
  for (const auto& row : rows)
    for (std::size_t f = 0; f < row.status.size(); ++f) n += possible(row, f) && !row.moved[f];
  return n;
}

std::size_t Robustness::impossible_variants() const {
  std::size_t n = 0;
  for (const auto& row : rows)
    for (std::size_t f = 0; f < row.status.size(); ++f) n += !possible(row, f);
  return n;
}

std::vector<std::string> Robustness::flipping(Status status) const {
  std::vector<std::string> out;
  for (const auto& row : rows)
    for (std::size_t f = 0; f < row.status.size(); ++f)
      if (possible(row, f) && row.status[f] != status) {
        out.push_back(row.parameter.path);
        break;
      }
  return out;
}

std::vector<const ModelStatus*> Robustness::differing_models(Status status) const {
  std::vector<const ModelStatus*> out;
  for (const auto& m : models)
    if (m.impossible.empty() && m.status != status) out.push_back(&m);
  return out;
}

void sort_by_effect(std::vector<SensitivityRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.effect > b.effect; });
}

}  // namespace torsim::validation
