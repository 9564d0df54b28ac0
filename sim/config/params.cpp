#include "sim/config/params.hpp"

#include "sim/config/provenance.hpp"
#include "sim/config/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>

namespace torsim {

Where Where::operator/(std::string_view key) const {
  std::string escaped;
  for (char c : key) {
    if (c == '~')
      escaped += "~0";
    else if (c == '/')
      escaped += "~1";
    else
      escaped += c;
  }
  return {file_, pointer_ + "/" + escaped};
}

Where Where::operator/(std::size_t index) const { return {file_, pointer_ + "/" + std::to_string(index)}; }

void Where::fail(const std::string& message) const { throw InputError(file_, pointer_, message); }

const ParamSpec* ParamTable::find(std::string_view name) const {
  for (const auto& p : params)
    if (p.name == name) return &p;
  return nullptr;
}

std::string_view kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::integer:
      return "integer";
    case ParamKind::number:
      return "number";
    case ParamKind::boolean:
      return "boolean";
    case ParamKind::text:
      return "string";
    case ParamKind::choice:
      return "choice";
    case ParamKind::size:
      return "size";
    case ParamKind::rate:
      return "rate";
    case ParamKind::time:
      return "time";
    case ParamKind::size_list:
      return "list of sizes";
    case ParamKind::integer_list:
      return "list of integers";
    case ParamKind::text_list:
      return "list of strings";
    case ParamKind::object:
      return "object";
    case ParamKind::object_list:
      return "list of objects";
  }
  return "?";
}

Quantity quantity_of(ParamKind kind) {
  switch (kind) {
    case ParamKind::rate:
      return Quantity::rate;
    case ParamKind::time:
      return Quantity::time;
    default:
      return Quantity::size;
  }
}

std::string preview(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string joined_names(const ParamTable& table) {
  std::string out;
  for (const auto& p : table.params) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

bool is_quantity_kind(ParamKind k) {
  return k == ParamKind::size || k == ParamKind::rate || k == ParamKind::time || k == ParamKind::size_list;
}

std::string expectation(const ParamSpec& s) {
  switch (s.kind) {
    case ParamKind::size:
    case ParamKind::size_list:
      return "a size such as \"4KiB\" (units: " + accepted_units(Quantity::size) + ") or a number of " +
             std::string(s.unit.empty() ? "B" : s.unit);
    case ParamKind::rate:
      return "a rate such as \"425MB/s\" (units: " + accepted_units(Quantity::rate) + ") or a number in " +
             std::string(s.unit);
    case ParamKind::time:
      return "a time such as \"105ns\" (units: " + accepted_units(Quantity::time) + ") or a number in " +
             std::string(s.unit);
    default:
      return std::string(kind_name(s.kind));
  }
}

// Whether `part` is one or more whole '_'-separated words of `name` ("uniform" of "uniform_random").
bool names_words_of(std::string_view name, std::string_view part) {
  for (std::size_t at = name.find(part); at != std::string_view::npos; at = name.find(part, at + 1)) {
    const std::size_t end = at + part.size();
    if ((at == 0 || name[at - 1] == '_') && (end == name.size() || name[end] == '_')) return true;
  }
  return false;
}

}  // namespace

std::string closest_name(std::string_view wrong, const std::vector<std::string_view>& valid) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, wrong.size() / 3) + 1;
  for (auto name : valid) {
    const std::size_t d = edit_distance(wrong, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  if (!best.empty() || wrong.size() < 3) return best;
  // A shortened name: the one valid name it is words of, if only one.
  std::vector<std::string_view> holding;
  for (auto name : valid)
    if (names_words_of(name, wrong)) holding.push_back(name);
  return holding.size() == 1 ? std::string(holding.front()) : std::string();
}

std::vector<std::string_view> choices_of(const ParamSpec& spec) {
  std::vector<std::string_view> options;
  for (std::string_view rest = spec.choices; !rest.empty();) {
    const auto bar = rest.find('|');
    options.push_back(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
  }
  return options;
}

void check_choice_mapping(const ParamSpec& spec, const std::vector<std::string_view>& mapped) {
  auto declared = choices_of(spec);
  auto given = mapped;
  std::sort(declared.begin(), declared.end());
  std::sort(given.begin(), given.end());
  if (declared != given)
    throw std::logic_error("the mapping of choice parameter '" + std::string(spec.name) +
                           "' does not cover exactly its declared values " + std::string(spec.choices));
}

std::int64_t spec_quantity(const ParamSpec& s, std::string_view text) {
  auto v = parse_quantity(text, quantity_of(s.kind), s.unit);
  if (!v) throw std::logic_error("bad quantity '" + std::string(text) + "' in spec " + std::string(s.name));
  return *v;
}

ParamReader::ParamReader(const Json& object, Where where, const ParamTable& table)
    : object_(object), where_(std::move(where)), table_(table) {
  if (!object_.is_object())
    where_.fail("expected an object (" + std::string(table.section) + "), got " + preview(object_));
  std::vector<std::string_view> names;
  for (const auto& p : table.params) names.push_back(p.name);
  for (const auto& [key, value] : object_.items()) {
    if (table.find(key)) continue;
    std::string hint = closest_name(key, names);
    (where_ / key)
        .fail("unknown key '" + key + "' in " + std::string(table.section) +
              (hint.empty() ? "" : "; did you mean '" + hint + "'?") + " Valid keys are: " + joined_names(table));
  }
}

bool ParamReader::has(std::string_view name) const {
  spec(name, {});
  return object_.contains(name);
}

const ParamSpec& ParamReader::spec(std::string_view name, std::initializer_list<ParamKind> kinds) const {
  const ParamSpec* s = table_.find(name);
  if (!s)
    throw std::logic_error("parameter '" + std::string(name) + "' not declared in " + std::string(table_.section));
  if (kinds.size() && std::find(kinds.begin(), kinds.end(), s->kind) == kinds.end())
    throw std::logic_error("parameter '" + std::string(name) + "' read with the wrong kind");
  return *s;
}

const Json& ParamReader::value_or_default(const ParamSpec& s, Json& storage) const {
  const auto it = object_.find(s.name);
  if (ReadLog::active())
    ReadLog::note((where_ / s.name).pointer(),
                  {it != object_.end(), std::string(s.source), std::string(s.default_value)});
  if (it != object_.end()) return *it;
  if (s.default_value == kRequired)
    where_.fail("missing required key '" + std::string(s.name) + "' (" + std::string(s.meaning) + ")");
  if (s.default_value == kUnset)
    throw std::logic_error("parameter '" + std::string(s.name) + "' has no default; check has() first");
  const bool raw_string = s.kind == ParamKind::text || s.kind == ParamKind::choice || is_quantity_kind(s.kind);
  const bool json_text = s.default_value.starts_with("[") || s.default_value.starts_with("{");
  storage = raw_string && !json_text ? Json(std::string(s.default_value)) : Json::parse(s.default_value);
  return storage;
}

void ParamReader::check_range(const ParamSpec& s, double value, const Where& w) const {
  auto bound = [&](std::string_view text) {
    return is_quantity_kind(s.kind) ? static_cast<double>(spec_quantity(s, text)) : std::stod(std::string(text));
  };
  const bool below = !s.min.empty() && value < bound(s.min);
  const bool above = !s.max.empty() && value > bound(s.max);
  if (!below && !above) return;
  std::string range =
      "[" + std::string(s.min.empty() ? "-inf" : s.min) + ", " + std::string(s.max.empty() ? "inf" : s.max) + "]";
  std::string unit = s.unit.empty() || is_quantity_kind(s.kind) ? "" : " " + std::string(s.unit);
  w.fail("'" + std::string(s.name) + "' is out of range: expected a value in " + range + unit);
}

std::int64_t ParamReader::quantity(const ParamSpec& s, const Json& v, const Where& w) const {
  std::optional<std::int64_t> base;
  const Quantity q = quantity_of(s.kind);
  if (v.is_string())
    base = parse_quantity(v.get<std::string>(), q, s.unit);
  else if (v.is_number())
    base = scale_to_base(v.get<double>(), q, s.unit);
  if (!base) w.fail("expected " + expectation(s) + ", got " + preview(v));
  const bool whole = v.is_string() ? whole_in_base_units(v.get<std::string>(), q, s.unit)
                                   : whole_in_base_units(v.get<double>(), q, s.unit);
  if (!whole)
    w.fail(std::string("expected a whole number of ") + (q == Quantity::size ? "bytes" : "picoseconds") +
           " (torsim's smallest " + (q == Quantity::size ? "size" : "time") + "), got " + preview(v));
  check_range(s, static_cast<double>(*base), w);
  return *base;
}

std::int64_t ParamReader::integer(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::integer});
  Json storage;
  const Json& v = value_or_default(s, storage);
  // A float with no fraction is taken (4.0), if it fits in 64 bits.
  const bool whole_float =
      v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) < 9.2e18;
  const bool beyond_64_bits =
      (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t{INT64_MAX}) ||
      (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()) && std::fabs(v.get<double>()) >= 9.2e18);
  if (beyond_64_bits)
    where(name).fail("'" + std::string(name) + "' is out of range: expected an integer of 64 bits, below 2^63 (" +
                     std::to_string(std::uint64_t{INT64_MAX} + 1) + ") in magnitude, got " + preview(v));
  if (!v.is_number_integer() && !whole_float) where(name).fail("expected an integer, got " + preview(v));
  const auto value = v.get<std::int64_t>();
  check_range(s, static_cast<double>(value), where(name));
  return value;
}

double ParamReader::number(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::number});
  Json storage;
  const Json& v = value_or_default(s, storage);
  if (!v.is_number()) where(name).fail("expected a number, got " + preview(v));
  check_range(s, v.get<double>(), where(name));
  return v.get<double>();
}

bool ParamReader::boolean(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::boolean});
  Json storage;
  const Json& v = value_or_default(s, storage);
  if (!v.is_boolean()) where(name).fail("expected true or false, got " + preview(v));
  return v.get<bool>();
}

std::string ParamReader::text(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::text, ParamKind::choice});
  Json storage;
  const Json& v = value_or_default(s, storage);
  if (!v.is_string()) where(name).fail("expected a string, got " + preview(v));
  auto value = v.get<std::string>();
  if (s.kind == ParamKind::choice) {
    const std::vector<std::string_view> options = choices_of(s);
    if (std::find(options.begin(), options.end(), value) == options.end())
      where(name).fail(unknown_name_message(name, value, options));
  }
  return value;
}

Bytes ParamReader::size(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::size});
  Json storage;
  return quantity(s, value_or_default(s, storage), where(name));
}

Rate ParamReader::rate(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::rate});
  Json storage;
  const Rate r = quantity(s, value_or_default(s, storage), where(name));
  if (r <= 0) where(name).fail("a rate must be positive");
  return r;
}

Time ParamReader::time(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::time});
  Json storage;
  return quantity(s, value_or_default(s, storage), where(name));
}

std::optional<Time> ParamReader::optional_time(std::string_view name) const {
  if (!object_.contains(name)) return std::nullopt;
  return time(name);
}

namespace {

constexpr std::int64_t kMaxRangeValues = 100000;

using ScalarReader = std::function<std::int64_t(const Json&, const Where&)>;

void check_range_keys(const Json& v, const Where& w) {
  for (const auto& [key, _] : v.items())
    if (key != "from" && key != "to" && key != "factor" && key != "step")
      (w / key).fail("unknown key '" + key + "' in a range; valid keys are: from, to, factor, step");
  if (!v.contains("from") || !v.contains("to") || v.contains("factor") == v.contains("step"))
    w.fail("a range needs 'from', 'to' and exactly one of 'factor' or 'step'");
}

// Expands {"from": a, "to": b, "factor": f} or {"from", "to", "step"} into a list (x * factor and
// x + step are checked against `to` first: they may not fit in 64 bits).
std::vector<std::int64_t> expand_range(const Json& v, const Where& w, const ScalarReader& scalar) {
  check_range_keys(v, w);
  const std::int64_t from = scalar(v["from"], w / "from");
  const std::int64_t to = scalar(v["to"], w / "to");
  if (to < from) w.fail("a range needs 'from' <= 'to'");
  std::vector<std::int64_t> out;
  if (v.contains("factor")) {
    if (!v["factor"].is_number_integer() || v["factor"].get<std::int64_t>() < 2)
      (w / "factor").fail("expected an integer factor >= 2");
    if (from <= 0) (w / "from").fail("a geometric range needs 'from' > 0");
    const auto factor = v["factor"].get<std::int64_t>();
    for (std::int64_t x = from; x <= to; x = x > to / factor ? to + 1 : x * factor) out.push_back(x);
  } else {
    const std::int64_t step = scalar(v["step"], w / "step");
    if (step <= 0) (w / "step").fail("expected a step > 0");
    const auto span = static_cast<std::uint64_t>(to) - static_cast<std::uint64_t>(from);  // to >= from: exact
    if (span / static_cast<std::uint64_t>(step) >= static_cast<std::uint64_t>(kMaxRangeValues))
      w.fail("the range expands to more than " + std::to_string(kMaxRangeValues) + " values; expected fewer");
    for (std::int64_t x = from; x <= to; x = x > to - step ? to + 1 : x + step) out.push_back(x);
  }
  return out;
}

// A list value: a range object, a list, or one scalar standing for a list of one.
std::vector<std::int64_t> scalar_list(const Json& v, const Where& w, const ScalarReader& scalar) {
  if (v.is_object()) return expand_range(v, w, scalar);
  if (!v.is_array()) return {scalar(v, w)};
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(scalar(v[i], w / i));
  return out;
}

}  // namespace

std::vector<Bytes> ParamReader::sizes(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::size_list});
  Json storage;
  const Where w = where(name);
  auto size = [&](const Json& x, const Where& at) { return quantity(s, x, at); };
  auto out = scalar_list(value_or_default(s, storage), w, size);
  if (out.empty()) w.fail("expected at least one size");
  return out;
}

std::vector<std::int64_t> ParamReader::integers(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::integer_list});
  Json storage;
  return scalar_list(value_or_default(s, storage), where(name), [&](const Json& x, const Where& at) {
    if (!x.is_number_integer()) at.fail("expected an integer, got " + preview(x));
    check_range(s, x.get<double>(), at);
    return x.get<std::int64_t>();
  });
}

std::vector<std::string> ParamReader::texts(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::text_list});
  Json storage;
  const Json& v = value_or_default(s, storage);
  const Where w = where(name);
  if (v.is_string()) return {v.get<std::string>()};
  if (!v.is_array()) w.fail("expected a string or a list of strings, got " + preview(v));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) (w / i).fail("expected a string, got " + preview(v[i]));
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

const Json& ParamReader::nested(std::string_view name) const {
  const auto& s = spec(name, {ParamKind::object, ParamKind::object_list});
  static const Json empty_object = Json::object();
  static const Json empty_list = Json::array();
  auto it = object_.find(name);
  if (it == object_.end()) {
    if (s.default_value == kRequired)
      where_.fail("missing required key '" + std::string(name) + "' (" + std::string(s.meaning) + ")");
    return s.kind == ParamKind::object ? empty_object : empty_list;
  }
  if (s.kind == ParamKind::object && !it->is_object()) where(name).fail("expected an object, got " + preview(*it));
  if (s.kind == ParamKind::object_list && !it->is_array()) where(name).fail("expected a list, got " + preview(*it));
  return *it;
}

void ParamReader::check_given() const {
  for (const auto& [key, value] : object_.items()) {
    switch (table_.find(key)->kind) {
      case ParamKind::integer:
        integer(key);
        break;
      case ParamKind::number:
        number(key);
        break;
      case ParamKind::boolean:
        boolean(key);
        break;
      case ParamKind::text:
      case ParamKind::choice:
        text(key);
        break;
      case ParamKind::size:
        size(key);
        break;
      case ParamKind::rate:
        rate(key);
        break;
      case ParamKind::time:
        time(key);
        break;
      case ParamKind::size_list:
        sizes(key);
        break;
      case ParamKind::integer_list:
        integers(key);
        break;
      case ParamKind::text_list:
        texts(key);
        break;
      case ParamKind::object:
      case ParamKind::object_list:
        nested(key);
        break;
    }
  }
}

}  // namespace torsim
