// Self-documenting parameters. Every parameter is declared once in a ParamTable (name, kind,
// unit, default, range, meaning, source); the same table drives parsing, range checks, the
// unknown-key check and the generated scenario reference (docs/scenario-reference.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/error.hpp"
#include "sim/config/units.hpp"
#include "sim/core/time.hpp"

namespace torsim {

using Json = nlohmann::json;

/// Where a JSON value sits: file and JSON pointer. Errors raised through it name both.
class Where {
 public:
  Where() = default;
  Where(std::string file, std::string pointer = "") : file_(std::move(file)), pointer_(std::move(pointer)) {}
  Where operator/(std::string_view key) const;
  Where operator/(std::size_t index) const;
  [[noreturn]] void fail(const std::string& message) const;
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }

 private:
  std::string file_, pointer_;
};

enum class ParamKind {
  integer,
  number,
  boolean,
  text,
  choice,  // scalars
  size,
  rate,
  time,  // quantities with units
  size_list,
  integer_list,
  text_list,  // lists (a scalar is a list of one)
  object,
  object_list  // nested, parsed by another table
};

inline constexpr std::string_view kRequired = "(required)";
inline constexpr std::string_view kUnset = "(unset)";

struct ParamSpec {
  std::string_view name;
  ParamKind kind;
  std::string_view default_value;  // as a user writes it, or kRequired / kUnset
  std::string_view unit;           // unit of a bare number ("ns", "B", "GB/s"), "" if none
  std::string_view min;            // inclusive bounds as text in `unit`, "" = unbounded
  std::string_view max;
  std::string_view meaning;
  std::string_view source;        // citation, or "assumption: why"
  std::string_view choices = {};  // "a|b|c" for ParamKind::choice
};

struct ParamTable {
  std::string_view section;  // JSON location, e.g. "network (model: packet)"
  std::string_view summary;
  std::span<const ParamSpec> params;
  const ParamSpec* find(std::string_view name) const;
};

/// Reads one JSON object against a table: rejects non-objects and unknown keys up front, then
/// returns converted, range-checked values with defaults applied.
class ParamReader {
 public:
  ParamReader(const Json& object, Where where, const ParamTable& table);

  bool has(std::string_view name) const;
  std::int64_t integer(std::string_view name) const;
  double number(std::string_view name) const;
  bool boolean(std::string_view name) const;
  std::string text(std::string_view name) const;  // also for ParamKind::choice
  /// A ParamKind::choice value mapped through `values`, which must map every declared choice
  /// (checked on each call): an unmapped value is a programming error, never a silent default.
  template <class T>
  T choice(std::string_view name, std::initializer_list<std::pair<std::string_view, T>> values) const;
  Bytes size(std::string_view name) const;
  Rate rate(std::string_view name) const;
  Time time(std::string_view name) const;
  std::optional<Time> optional_time(std::string_view name) const;
  std::vector<Bytes> sizes(std::string_view name) const;
  std::vector<std::int64_t> integers(std::string_view name) const;
  std::vector<std::string> texts(std::string_view name) const;
  /// The raw nested value (object or list) and where it is; a default of "{}"/"[]" applies.
  const Json& nested(std::string_view name) const;
  /// Reads every key the object gives by its declared kind (type and range checked), for a
  /// section no model reads in this run; nested objects are only checked to be objects or lists.
  void check_given() const;
  Where where(std::string_view name) const { return where_ / name; }
  const Where& where() const { return where_; }

 private:
  const ParamSpec& spec(std::string_view name, std::initializer_list<ParamKind> kinds) const;
  /// The value given, or the parsed default; throws when a required value is missing.
  const Json& value_or_default(const ParamSpec& s, Json& storage) const;
  std::int64_t quantity(const ParamSpec& s, const Json& v, const Where& w) const;
  void check_range(const ParamSpec& s, double value, const Where& w) const;

  const Json& object_;
  Where where_;
  const ParamTable& table_;
};

/// The declared values of a ParamKind::choice spec ("a|b|c").
std::vector<std::string_view> choices_of(const ParamSpec& spec);
/// Throws std::logic_error unless `mapped` holds exactly the declared choices of `spec`.
void check_choice_mapping(const ParamSpec& spec, const std::vector<std::string_view>& mapped);

template <class T>
T ParamReader::choice(std::string_view name, std::initializer_list<std::pair<std::string_view, T>> values) const {
  std::vector<std::string_view> mapped;
  for (const auto& v : values) mapped.push_back(v.first);
  check_choice_mapping(spec(name, {ParamKind::choice}), mapped);
  const std::string value = text(name);
  for (const auto& [text_value, result] : values)
    if (text_value == value) return result;
  throw std::logic_error("unreachable: '" + value + "' is a declared choice of '" + std::string(name) + "'");
}

/// Parses a bound or default written in a spec (programming errors throw std::logic_error).
std::int64_t spec_quantity(const ParamSpec& s, std::string_view text);
std::string_view kind_name(ParamKind kind);
Quantity quantity_of(ParamKind kind);

/// The closest valid name to a misspelt one, for "did you mean" hints ("" if none is close).
std::string closest_name(std::string_view wrong, const std::vector<std::string_view>& valid);

/// Short JSON text of a value for error messages (truncated).
std::string preview(const Json& value);

}  // namespace torsim
