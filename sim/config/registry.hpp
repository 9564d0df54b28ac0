// Registries of named models (topologies, network models, NICs, messaging layers, workloads): a list of
// entries, each with a `name`, looked up by the name a user wrote; an unknown name fails with
// the closest valid one and the list of valid ones.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/config/params.hpp"

namespace torsim {

/// "unknown WHAT 'name' (did you mean 'x'?); valid values are: a, b".
std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string_view>& valid);

/// The entry whose name (`name_of(entry)`) is `name` (the first, if several share it); fails at
/// `where` otherwise.
template <class Entry, class NameOf>
const Entry& find_entry(const std::vector<Entry>& entries, std::string_view name, std::string_view what,
                        const Where& where, NameOf name_of) {
  std::vector<std::string_view> valid;
  for (const auto& e : entries) {
    const std::string_view n = name_of(e);
    if (n == name) return e;
    if (valid.empty() || valid.back() != n) valid.push_back(n);
  }
  where.fail(unknown_name_message(what, name, valid));
}

/// The entry called `name` (its member `name`).
template <class Entry>
const Entry& find_entry(const std::vector<Entry>& entries, std::string_view name, std::string_view what,
                        const Where& where) {
  return find_entry(entries, name, what, where, [](const Entry& e) -> std::string_view { return e.name; });
}

}  // namespace torsim
