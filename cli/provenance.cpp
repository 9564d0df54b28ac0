#include "cli/provenance.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "cli/reference.hpp"
#include "models/machine.hpp"
#include "models/runtime/registry.hpp"

namespace torsim {

namespace {

std::string value_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

bool is_object_list(const Json& v) {
  return v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_object(); });
}

void add_given(const Json& machine, const Json& value, const std::string& path, std::vector<ProvenanceRow>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) add_given(machine, child, path + "." + key, out);
  } else if (is_object_list(value)) {
    for (std::size_t i = 0; i < value.size(); ++i) add_given(machine, value[i], path + "." + std::to_string(i), out);
  } else {
    const std::string citation = machine_citation(machine, path);
    out.push_back({path, value_text(value), citation, classify_source(citation), true});
  }
}

const Json* at_path(const Json& doc, const std::string& path) {
  const Json* at = &doc;
  std::stringstream parts(path);
  for (std::string key; std::getline(parts, key, '.');) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
  }
  return at;
}

// The machine paths whose parameters a table declares, for this machine ("" when none):
// "machine.node" -> "node", "machine.nic (model: bgq_mu)" -> "nic" on a BG/Q, a messaging
// layer's table -> "runtimes.<layer>" when the machine calibrates that layer.
std::string table_prefix(const ParamTable& table, const Json& machine) {
  const std::string section(table.section);
  const std::string nic_model = machine.value("nic", Json::object()).value("model", std::string());
  if (section == "machine.nic (model: " + nic_model + ")") return "nic";
  if (section.starts_with("machine.") && section.find(' ') == std::string::npos) {
    const std::string prefix = section.substr(8);
    return prefix != "topology" && at_path(machine, prefix) ? prefix : "";
  }
  return "";
}

void add_defaults(const ParamTable& table, const std::string& prefix, std::vector<ProvenanceRow>& out) {
  for (const auto& p : table.params) {
    if (p.kind == ParamKind::object || p.kind == ParamKind::object_list) continue;
    if (p.default_value == kRequired || p.default_value == kUnset || p.name == "layer") continue;
    const std::string path = prefix + "." + std::string(p.name);
    if (std::any_of(out.begin(), out.end(), [&](const ProvenanceRow& r) { return r.path == path; })) continue;
    const std::string citation = p.source == "preset" || p.source == "-" ? "" : std::string(p.source);
    out.push_back({path, std::string(p.default_value), citation, classify_source(citation), false});
  }
}

// The table of each messaging layer the machine calibrates (its implementation for this NIC).
void add_layer_defaults(const Json& machine, std::vector<ProvenanceRow>& out) {
  const std::string nic_model = machine.value("nic", Json::object()).value("model", std::string());
  // Held by name: a range-for over value(...).items() would iterate a destroyed temporary.
  const Json runtimes = machine.value("runtimes", Json::object());
  for (const auto& [layer, spec] : runtimes.items()) {
    const rt::MessagingLayerEntry* chosen = nullptr;
    for (const auto& e : rt::messaging_layers())
      if (e.name == layer && (e.nic.empty() || e.nic == nic_model) && (!chosen || !e.nic.empty())) chosen = &e;
    if (chosen) add_defaults(*chosen->params, "runtimes." + layer, out);
  }
}

}  // namespace

std::vector<ProvenanceRow> machine_provenance(const Json& machine) {
  std::vector<ProvenanceRow> out;
  for (const auto& [key, value] : machine.items())
    if (key != "name" && key != "description" && key != "sources" && key != "preset")
      add_given(machine, value, key, out);
  for (const ParamTable* table : all_param_tables())
    if (const std::string prefix = table_prefix(*table, machine); !prefix.empty()) add_defaults(*table, prefix, out);
  add_layer_defaults(machine, out);
  return out;
}

Json provenance_json(const std::vector<ProvenanceRow>& rows) {
  Json out = Json::array();
  for (const auto& r : rows)
    out.push_back({{"parameter", r.path},
                   {"value", r.value},
                   {"given", r.given},
                   {"class", r.provenance.label()},
                   {"citation", r.citation}});
  return out;
}

std::string provenance_text(const std::vector<ProvenanceRow>& rows) {
  std::ostringstream s;
  std::map<std::string, std::size_t> counts;
  for (const auto& r : rows) {
    std::string citation = r.citation.size() > 90 ? r.citation.substr(0, 87) + "..." : r.citation;
    char line[256];
    std::snprintf(line, sizeof line, "  %-40s %-14s %-26s ", r.path.c_str(), r.value.c_str(),
                  (r.provenance.label() + (r.given ? "" : " (default)")).c_str());
    s << line << citation << "\n";
    ++counts[r.provenance.label()];
  }
  s << "\n";
  for (const auto& [label, n] : counts) s << "  " << n << " " << label << "\n";
  return s.str();
}

}  // namespace torsim
