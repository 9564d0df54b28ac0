#include "sim/config/json_merge.hpp"

#include <algorithm>

#include "sim/config/json_text.hpp"

namespace torsim {

namespace {

bool is_index(const std::string& key) {
  return !key.empty() && key.size() < 10 &&
         std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool all_index_keys(const Json& object) {
  if (!object.is_object() || object.empty()) return false;
  for (const auto& [key, _] : object.items())
    if (!is_index(key)) return false;
  return true;
}

// "-1", "+2", "12345678901": meant as an index, but not one of a list.
bool signed_digits(const std::string& key) {
  const std::size_t start = !key.empty() && (key[0] == '-' || key[0] == '+') ? 1 : 0;
  return key.size() > start && std::all_of(key.begin() + static_cast<std::ptrdiff_t>(start), key.end(),
                                           [](char c) { return c >= '0' && c <= '9'; });
}

// A list patched by an object of indices whose keys are not all indices: name the first that is not.
void check_index_keys(const Json& list, const Json& patch, const Where& where) {
  if (!patch.is_object()) return;
  bool meant_as_indices = false;
  for (const auto& [key, _] : patch.items()) meant_as_indices = meant_as_indices || signed_digits(key);
  if (!meant_as_indices) return;
  for (const auto& [key, _] : patch.items())
    if (!is_index(key))
      (where / key)
          .fail("'" + key + "' is not an index of the list, which has " + std::to_string(list.size()) +
                " elements: expected 0 to " + std::to_string(list.empty() ? 0 : list.size() - 1) +
                " (a list is patched by an object of indices, {\"0\": {...}})");
}

// Splits a JSON pointer into unescaped tokens ("~1" is '/', "~0" is '~').
std::vector<std::string> tokens(const std::string& pointer) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < pointer.size(); ++i) {
    if (pointer[i] == '/') {
      out.emplace_back();
    } else if (pointer[i] == '~' && i + 1 < pointer.size()) {
      out.back() += pointer[++i] == '1' ? '/' : '~';
    } else {
      out.back() += pointer[i];
    }
  }
  return out;
}

}  // namespace

Json merge_overrides(Json base, const Json& patch, const Where& patch_where) {
  if (base.is_array()) check_index_keys(base, patch, patch_where);
  if (base.is_array() && all_index_keys(patch)) {
    for (const auto& [key, value] : patch.items()) {
      const auto index = std::stoul(key);
      if (index >= base.size())
        (patch_where / key)
            .fail("index " + key + " is beyond the list, which has " + std::to_string(base.size()) + " elements");
      base[index] = merge_overrides(base[index], value, patch_where / key);
    }
    return base;
  }
  if (!base.is_object() || !patch.is_object()) return patch;
  for (const auto& [key, value] : patch.items())
    base[key] = base.contains(key) ? merge_overrides(base[key], value, patch_where / key) : value;
  return base;
}

bool given_by(const Json& patch, const std::string& pointer) {
  const Json* at = &patch;
  for (const auto& token : tokens(pointer)) {
    if (!at->is_object()) return true;  // a whole value replaced here
    auto it = at->find(token);
    if (it == at->end()) return false;
    at = &*it;
  }
  return true;
}

void reattribute(const InputError& error, const Where& merged_where, const Json& patch, const Where& patch_where,
                 const Where& base_where) {
  const std::string& prefix = merged_where.pointer();
  if (error.file() != merged_where.file() || error.path().compare(0, prefix.size(), prefix) != 0) throw error;
  const std::string relative = error.path().substr(prefix.size());
  const Where& origin = given_by(patch, relative) ? patch_where : base_where;
  throw InputError(origin.file(), origin.pointer() + relative, error.message());
}

void set_dotted(Json& doc, const std::string& assignment, const Where& where) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    where.fail("expected --set path=value (e.g. workload.sizes=[8,64]), got '" + assignment + "'");
  const std::string path = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  const Json value = parse_json_value(text, where).value_or(Json(text));
  Json* at = &doc;
  std::size_t pos = 0;
  while (true) {
    const std::size_t dot = path.find('.', pos);
    const std::string key = path.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    if (key.empty()) where.fail("empty component in --set path '" + path + "'");
    if (at->is_array()) {
      if (!is_index(key) || std::stoul(key) >= at->size())
        where.fail("--set " + path + ": '" + key + "' is not an index of a list of " + std::to_string(at->size()));
      at = &(*at)[std::stoul(key)];
    } else {
      if (!at->is_object()) *at = Json::object();
      at = &(*at)[key];
    }
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  *at = value;
}

}  // namespace torsim
