#include "sim/config/registry.hpp"

namespace torsim {

std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string_view>& valid) {
  const std::string hint = closest_name(name, valid);
  std::string list;
  for (const auto v : valid) list += (list.empty() ? "" : ", ") + std::string(v);
  return "unknown " + std::string(what) + " '" + std::string(name) + "'" +
         (hint.empty() ? "" : " (did you mean '" + hint + "'?)") + "; valid values are: " + list;
}

}  // namespace torsim
