// Parameters declared with the struct field they fill. One declaration gives a parameter's
// name, kind, default, unit, range, meaning and source (its ParamSpec) and the member it sets,
// so a model's table and its parse function are one list: neither can miss a parameter or
// depend on the order of the other, and the struct holds no second copy of the defaults.
//
//   constexpr Field<LinkParams> kFields[] = {
//       bind<&LinkParams::latency>({"latency", ParamKind::time, "100ns", "ns", ...}),
//   };
//   constexpr auto kSpecs = specs_of(kFields);          // the ParamTable's rows
//   LinkParams parse_link(const ParamReader& r) { return parse_fields(r, kFields); }
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/config/params.hpp"

namespace torsim {

template <class S>
struct Field {
  ParamSpec spec;
  /// Reads the parameter into its member; null for a parameter read elsewhere (a "model" key).
  void (*fill)(const ParamReader&, const ParamSpec&, S&) = nullptr;
};

namespace detail {

template <class M>
struct MemberOf;
template <class S, class T>
struct MemberOf<T S::*> {
  using owner = S;
  using type = T;
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

/// Whether a member of type T can hold a parameter of `kind` (checked when the table compiles);
/// an optional holds what its value type holds.
template <class T>
constexpr bool holds(ParamKind kind) {
  if constexpr (IsOptional<T>::value)
    return holds<typename T::value_type>(kind);
  else if constexpr (std::is_same_v<T, bool>)
    return kind == ParamKind::boolean;
  else if constexpr (std::is_same_v<T, std::string>)
    return kind == ParamKind::text || kind == ParamKind::choice;
  else if constexpr (std::is_integral_v<T>)
    return kind == ParamKind::integer || kind == ParamKind::size || kind == ParamKind::rate || kind == ParamKind::time;
  else if constexpr (std::is_floating_point_v<T>)
    return kind == ParamKind::number;
  else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>)
    return kind == ParamKind::size_list || kind == ParamKind::integer_list;
  else if constexpr (std::is_same_v<T, std::vector<std::string>>)
    return kind == ParamKind::text_list;
  else
    return false;
}

template <class T>
T read_as(const ParamReader& r, const ParamSpec& s) {
  if constexpr (IsOptional<T>::value)
    return read_as<typename T::value_type>(r, s);
  else if constexpr (std::is_same_v<T, bool>)
    return r.boolean(s.name);
  else if constexpr (std::is_same_v<T, std::string>)
    return r.text(s.name);
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(r.number(s.name));
  else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>)
    return s.kind == ParamKind::size_list ? r.sizes(s.name) : r.integers(s.name);
  else if constexpr (std::is_same_v<T, std::vector<std::string>>)
    return r.texts(s.name);
  else {
    switch (s.kind) {
      case ParamKind::size:
        return static_cast<T>(r.size(s.name));
      case ParamKind::rate:
        return static_cast<T>(r.rate(s.name));
      case ParamKind::time:
        return static_cast<T>(r.time(s.name));
      default:
        return static_cast<T>(r.integer(s.name));
    }
  }
}

}  // namespace detail

/// A parameter that fills `Member`; a kind the member's type cannot hold does not compile.
/// S is the struct the table fills: the member's own, or one derived from it (shared rows).
/// A parameter without a default (kUnset) that is not given leaves its member as the struct
/// initialises it: its "not given" state (an empty optional, a zero that the range excludes).
template <auto Member, class S = typename detail::MemberOf<decltype(Member)>::owner>
constexpr Field<S> bind(ParamSpec spec) {
  using T = typename detail::MemberOf<decltype(Member)>::type;
  static_assert(std::is_base_of_v<typename detail::MemberOf<decltype(Member)>::owner, S>);
  if (!detail::holds<T>(spec.kind)) throw std::logic_error("the member's type cannot hold this parameter's kind");
  return {spec, [](const ParamReader& r, const ParamSpec& s, S& out) {
            if (s.default_value == kUnset && !r.has(s.name)) return;
            out.*Member = detail::read_as<T>(r, s);
          }};
}

/// One value of an enumeration and the name a scenario gives it.
template <class E>
struct ChoiceName {
  std::string_view name;
  E value;
};

namespace detail {

/// Whether `names`, in order and joined by '|', are exactly the declared `choices`.
template <class E, std::size_t N>
constexpr bool names_are(std::string_view choices, const ChoiceName<E> (&names)[N]) {
  std::size_t at = 0;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0 && (at >= choices.size() || choices[at++] != '|')) return false;
    if (choices.substr(at).substr(0, names[i].name.size()) != names[i].name) return false;
    at += names[i].name.size();
  }
  return at == choices.size();
}

}  // namespace detail

/// A ParamKind::choice parameter that fills the enum `Member` through `Names`, which must name
/// exactly the declared choices (checked when the table compiles): no value maps to a default.
/// S as for bind.
template <auto Member, const auto& Names, class S = typename detail::MemberOf<decltype(Member)>::owner>
constexpr Field<S> bind_choice(ParamSpec spec) {
  static_assert(std::is_base_of_v<typename detail::MemberOf<decltype(Member)>::owner, S>);
  if (spec.kind != ParamKind::choice) throw std::logic_error("bind_choice needs ParamKind::choice");
  if (!detail::names_are(spec.choices, Names)) throw std::logic_error("the names must be the declared choices");
  return {spec, [](const ParamReader& r, const ParamSpec& s, S& out) {
            const std::string value = r.text(s.name);  // one of the declared choices
            for (const auto& n : Names)
              if (n.name == value) out.*Member = n.value;
          }};
}

/// The name of `value` in `names` (every value of an enum mapped by bind_choice has one).
template <class E, std::size_t N>
constexpr std::string_view name_of(const ChoiceName<E> (&names)[N], E value) {
  for (const auto& n : names)
    if (n.value == value) return n.name;
  throw std::logic_error("a value without a name");
}

/// A nested object that fills `Member` through its own table and parse function.
template <auto Member, const ParamTable* Table, auto Parse>
constexpr Field<typename detail::MemberOf<decltype(Member)>::owner> bind_object(ParamSpec spec) {
  using S = typename detail::MemberOf<decltype(Member)>::owner;
  if (spec.kind != ParamKind::object) throw std::logic_error("bind_object needs ParamKind::object");
  return {spec, [](const ParamReader& r, const ParamSpec& s, S& out) {
            out.*Member = Parse(ParamReader(r.nested(s.name), r.where(s.name), *Table));
          }};
}

/// A parameter in the table that no member of S holds (a "model" selector read by a registry).
template <class S>
constexpr Field<S> unbound(ParamSpec spec) {
  return {spec, nullptr};
}

/// The fields of `shared` followed by `own`: a table that begins with rows other tables share.
template <class S, std::size_t N, std::size_t M>
constexpr std::array<Field<S>, N + M> join(const std::array<Field<S>, N>& shared, const Field<S> (&own)[M]) {
  std::array<Field<S>, N + M> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = shared[i];
  for (std::size_t i = 0; i < M; ++i) out[N + i] = own[i];
  return out;
}

/// The table rows of a field list, in its order.
template <class S, std::size_t N>
constexpr std::array<ParamSpec, N> specs_of(const std::array<Field<S>, N>& fields) {
  std::array<ParamSpec, N> specs{};
  for (std::size_t i = 0; i < N; ++i) specs[i] = fields[i].spec;
  return specs;
}

template <class S, std::size_t N>
constexpr std::array<ParamSpec, N> specs_of(const Field<S> (&fields)[N]) {
  return specs_of(std::to_array(fields));
}

/// A value-initialised S with every bound parameter read (given, or its declared default).
template <class S, std::size_t N>
S parse_fields(const ParamReader& r, const std::array<Field<S>, N>& fields) {
  S out{};
  for (const Field<S>& f : fields)
    if (f.fill) f.fill(r, f.spec, out);
  return out;
}

template <class S, std::size_t N>
S parse_fields(const ParamReader& r, const Field<S> (&fields)[N]) {
  return parse_fields(r, std::to_array(fields));
}

}  // namespace torsim
