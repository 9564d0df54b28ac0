#include "cli/schema.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>

#include "cli/reference.hpp"
#include "models/runtime/registry.hpp"
#include "run/output_files.hpp"
#include "run/scenario.hpp"

namespace torsim {

namespace {

constexpr const char* kDraft = "http://json-schema.org/draft-07/schema#";

// "full": required keys are required (a preset, an inline machine, a workload); "partial": an
// override of values given elsewhere (a machine's preset, its calibration), where nothing is
// required and a list may be patched by index ({"1": {...}}).
enum class Mode { full, partial };

struct Node {
  std::vector<const ParamTable*> plain;                             // tables of this object
  std::string key;                                                  // discriminator of the variants
  std::vector<std::pair<std::string, const ParamTable*>> variants;  // key value -> table
  std::vector<std::string> children;                                // nested places (runtimes.*)
};

// "machine.topology.dims[i] (torus and mesh)" -> place "machine/topology/dims/[]", no variant;
// "workload (name: pingpong)" -> place "workload", variant name = pingpong. The top level's
// section is "scenario (top level)".
struct Place {
  std::string path;
  std::string key, value;
};

Place parse_section(std::string_view section) {
  Place place;
  std::string_view dotted = section.substr(0, section.find(" ("));
  if (const auto open = section.find(" ("); open != std::string_view::npos) {
    const std::string_view note = section.substr(open + 2, section.rfind(')') - open - 2);
    if (const auto colon = note.find(": "); colon != std::string_view::npos) {
      place.key = note.substr(0, colon);
      place.value = note.substr(colon + 2);
    }
  }
  if (dotted == "scenario") return place;
  for (std::size_t start = 0; start <= dotted.size();) {
    const std::size_t dot = std::min(dotted.find('.', start), dotted.size());
    std::string part(dotted.substr(start, dot - start));
    const bool element = part.ends_with("[i]");
    if (element) part.resize(part.size() - 3);
    place.path += (place.path.empty() ? "" : "/") + part + (element ? "/[]" : "");
    start = dot + 1;
  }
  return place;
}

std::string parent_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

class SchemaBuilder {
 public:
  SchemaBuilder() {
    for (const ParamTable* table : all_param_tables()) place(*table, parse_section(table->section));
    // A messaging layer's calibration sits in its machine under runtimes.<layer>, with the same keys.
    for (const auto& layer : rt::messaging_layers())
      place(*layer.params, {"machine/runtimes/" + std::string(layer.name), "", ""});
    std::vector<std::string> paths;
    for (const auto& [path, _] : nodes_) paths.push_back(path);
    for (const auto& path : paths)
      if (!path.empty() && !path.ends_with("/[]")) nodes_[parent_of(path)].children.push_back(path);
  }

  Json object(const std::string& path, Mode mode) const {
    const auto it = nodes_.find(path);
    if (it == nodes_.end()) return Json{{"type", "object"}};
    const Node& node = it->second;
    if (!node.variants.empty()) return variants(path, node, mode);
    if (node.plain.empty()) return children_only(node);
    return table(path, node.plain, mode);
  }

  /// Every place named by a section must hang from an object parameter of its parent's tables
  /// (or be a list's elements): a misnamed section fails here.
  void check_places() const {
    for (const auto& [path, node] : nodes_) {
      if (path.empty() || path.starts_with("machine/runtimes/")) continue;
      const std::string parent = parent_of(path.ends_with("/[]") ? parent_of(path) : path);
      const std::string key =
          (path.ends_with("/[]") ? parent_of(path) : path).substr(parent.empty() ? 0 : parent.size() + 1);
      if (!declares(parent, key))
        throw std::logic_error("schema: no object parameter '" + key + "' at '" + parent + "' for a table placed at '" +
                               path + "'");
    }
  }

 private:
  void place(const ParamTable& table, const Place& at) {
    Node& node = nodes_[at.path];
    if (at.key.empty()) {
      node.plain.push_back(&table);
      return;
    }
    if (!node.key.empty() && node.key != at.key)
      throw std::logic_error("schema: '" + at.path + "' has variants by '" + node.key + "' and by '" + at.key + "'");
    node.key = at.key;
    node.variants.emplace_back(at.value, &table);
  }

  bool declares(const std::string& path, const std::string& key) const {
    const auto it = nodes_.find(path);
    if (it == nodes_.end()) return false;
    auto has = [&](const ParamTable* t) { return t->find(key) != nullptr; };
    for (const auto* t : it->second.plain)
      if (has(t)) return true;
    for (const auto& [_, t] : it->second.variants)
      if (has(t)) return true;
    return false;
  }

  Json table(const std::string& path, const std::vector<const ParamTable*>& tables, Mode mode) const {
    Json properties = Json::object();
    Json required = Json::array();
    for (const auto* t : tables) {
      for (const auto& p : t->params) {
        properties[std::string(p.name)] = param(path, p, mode);
        if (mode == Mode::full && p.default_value == kRequired) required.push_back(p.name);
      }
    }
    Json schema{{"type", "object"}, {"properties", properties}, {"additionalProperties", false}};
    if (!required.empty()) schema["required"] = required;
    if (tables.size() == 1) schema["description"] = tables.front()->summary;
    return schema;
  }

  // One "if key is value then that table" per variant. A value that every variant names as the
  // key's default is taken when the key is absent (the network model: packet).
  Json variants(const std::string& path, const Node& node, Mode mode) const {
    Json values = Json::array();
    std::vector<std::string> defaults;
    for (const auto& [value, t] : node.variants) {
      values.push_back(value);
      const ParamSpec* key = t->find(node.key);
      defaults.push_back(key && key->default_value != kRequired ? std::string(key->default_value) : "");
    }
    const bool agreed = std::all_of(defaults.begin(), defaults.end(), [&](const auto& d) { return d == defaults[0]; });
    const std::string common_default = agreed ? defaults[0] : "";
    Json all_of = Json::array();
    for (const auto& [value, t] : node.variants) {
      Json when{{"properties", {{node.key, {{"const", value}}}}}};
      if (value != common_default) when["required"] = {node.key};
      std::vector<const ParamTable*> tables = node.plain;
      tables.push_back(t);
      all_of.push_back({{"if", when}, {"then", table(path, tables, mode)}});
    }
    Json schema{{"type", "object"}, {"properties", {{node.key, {{"enum", values}}}}}, {"allOf", all_of}};
    if (mode == Mode::full && common_default.empty()) schema["required"] = {node.key};
    return schema;
  }

  // An object whose keys are places of their own (a machine's runtimes: one per layer).
  Json children_only(const Node& node) const {
    Json properties = Json::object();
    for (const auto& child : node.children)
      properties[child.substr(child.rfind('/') + 1)] = object(child, Mode::partial);
    return {{"type", "object"}, {"properties", properties}, {"additionalProperties", {{"type", "object"}}}};
  }

  Json param(const std::string& path, const ParamSpec& p, Mode mode) const;
  Json nested(const std::string& path, const ParamSpec& p, Mode mode) const;

  std::map<std::string, Node> nodes_;
};

// --- scalars and quantities ---------------------------------------------------------------------

std::string regex_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// "<decimal>[e<exponent>] <unit>" as units.cpp parses it; the unit may be left out when the
// parameter has a unit for bare numbers.
Json quantity(Quantity q, std::string_view bare_unit) {
  std::string units;
  const std::string accepted = accepted_units(q);
  for (std::size_t start = 0; start < accepted.size();) {
    const std::size_t comma = std::min(accepted.find(", ", start), accepted.size());
    units += (units.empty() ? "" : "|") + regex_escape(accepted.substr(start, comma - start));
    start = comma + 2;
  }
  const std::string pattern =
      "^ *([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)? *(" + units + ")" + (bare_unit.empty() ? "" : "?") + " *$";
  return {{"anyOf", Json::array({{{"type", "string"}, {"pattern", pattern}}, {{"type", "number"}, {"minimum", 0}}})}};
}

Json range_of(const Json& scalar) {
  Json range{{"type", "object"},
             {"properties",
              {{"from", scalar}, {"to", scalar}, {"factor", {{"type", "integer"}, {"minimum", 2}}}, {"step", scalar}}},
             {"required", {"from", "to"}},
             {"additionalProperties", false}};
  return range;
}

Json list_of(const Json& scalar, bool ranges) {
  Json forms = Json::array({scalar, {{"type", "array"}, {"items", scalar}}});
  if (ranges) forms.push_back(range_of(scalar));
  return {{"anyOf", forms}};
}

Json bounded(const char* type, const ParamSpec& p) {
  Json schema{{"type", type}};
  if (!p.min.empty()) schema["minimum"] = std::stod(std::string(p.min));
  if (!p.max.empty()) schema["maximum"] = std::stod(std::string(p.max));
  return schema;
}

Json choice(const ParamSpec& p) {
  Json values = Json::array();
  for (std::string_view rest = p.choices; !rest.empty();) {
    const auto bar = rest.find('|');
    values.push_back(std::string(rest.substr(0, bar)));
    rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
  }
  return {{"enum", values}};
}

std::string description(const ParamSpec& p) {
  std::string text(p.meaning);
  if (!p.unit.empty()) text += " [" + std::string(p.unit) + "]";
  if (p.default_value != kRequired && p.default_value != kUnset)
    text += " (default " + std::string(p.default_value) + ")";
  return text;
}

Json SchemaBuilder::param(const std::string& path, const ParamSpec& p, Mode mode) const {
  Json schema;
  switch (p.kind) {
    case ParamKind::integer:
      schema = bounded("integer", p);
      break;
    case ParamKind::number:
      schema = bounded("number", p);
      break;
    case ParamKind::boolean:
      schema = {{"type", "boolean"}};
      break;
    case ParamKind::text:
      schema = {{"type", "string"}};
      break;
    case ParamKind::choice:
      schema = choice(p);
      break;
    case ParamKind::size:
    case ParamKind::rate:
    case ParamKind::time:
      schema = quantity(quantity_of(p.kind), p.unit);
      break;
    case ParamKind::size_list:
      schema = list_of(quantity(Quantity::size, p.unit), true);
      break;
    case ParamKind::integer_list:
      schema = list_of(bounded("integer", p), true);
      break;
    case ParamKind::text_list:
      schema = list_of({{"type", "string"}}, false);
      break;
    case ParamKind::object:
    case ParamKind::object_list:
      schema = nested(path, p, mode);
      break;
  }
  schema["description"] = description(p);
  return schema;
}

// A nested object or list of objects: its own place when a table is placed there, else the
// free-form objects a machine and a scenario hold (sources, the sweep).
Json SchemaBuilder::nested(const std::string& path, const ParamSpec& p, Mode mode) const {
  const std::string child = (path.empty() ? "" : path + "/") + std::string(p.name);
  if (p.kind == ParamKind::object_list) {
    const Json item = object(child + "/[]", mode);
    Json list{{"type", "array"}, {"items", item}};
    if (mode == Mode::full) return list;
    const Json patch{{"type", "object"},
                     {"patternProperties", {{"^[0-9]+$", object(child + "/[]", Mode::partial)}}},
                     {"additionalProperties", false}};
    return {{"anyOf", Json::array({list, patch})}};
  }
  if (child == "sweep") return {{"type", "object"}, {"additionalProperties", {{"type", "array"}, {"minItems", 1}}}};
  if (child == "machine") return {{"$ref", "#/definitions/scenario_machine"}};
  if (child == "machine/sources") return {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
  if (child == "runtime") return object(child, Mode::partial);  // overrides of the machine's calibration
  return object(child, mode);
}

const SchemaBuilder& builder() {
  static const SchemaBuilder b = [] {
    SchemaBuilder built;
    built.check_places();
    return built;
  }();
  return b;
}

Json preset_enum() {
  Json names = Json::array();
  for (const auto& name : preset_names()) names.push_back(name);
  return names;
}

// A preset with overrides ({"preset": name, ...}), in a scenario or as a preset derived from
// another: nothing but the preset is required.
Json preset_with_overrides() {
  Json overrides = builder().object("machine", Mode::partial);
  overrides["properties"]["preset"] = {{"enum", preset_enum()}, {"description", "the preset overridden"}};
  overrides["required"] = {"preset"};
  return overrides;
}

// A scenario's machine: a preset name, a preset with overrides, or a whole machine inline.
Json scenario_machine() {
  return {
      {"anyOf",
       Json::array({{{"type", "string"}, {"enum", preset_enum()}, {"description", "a preset of scenarios/machines/"}},
                    preset_with_overrides(),
                    {{"$ref", "#/definitions/machine"}}})}};
}

}  // namespace

Json scenario_schema() {
  Json schema = builder().object("", Mode::full);
  schema["$schema"] = kDraft;
  schema["title"] = "torsim scenario";
  schema["definitions"] = {{"machine", builder().object("machine", Mode::full)},
                           {"scenario_machine", scenario_machine()}};
  return schema;
}

// A preset: a whole machine, or another preset with overrides.
Json machine_schema() {
  Json schema = {{"anyOf", Json::array({builder().object("machine", Mode::full), preset_with_overrides()})}};
  schema["$schema"] = kDraft;
  schema["title"] = "torsim machine preset";
  return schema;
}

namespace {

int command_schema(const Args& args) {
  const std::string text = (args.given("--machine") ? machine_schema() : scenario_schema()).dump(2) + "\n";
  if (!args.given("--out")) {
    std::cout << text;
    return 0;
  }
  write_file_atomically(args.value("--out"), text, args.where("--out"));
  return 0;
}

}  // namespace

const CommandSpec& schema_command() {
  static const CommandSpec spec{
      "schema",
      "",
      0,
      0,
      "print the JSON Schema of scenario files",
      "Prints the JSON Schema (draft-07) of scenario files, or of machine presets, for editors and validators;\n"
      "generated from the tables that parse them (docs/schema/).",
      {{"--machine", "", "the schema of machine presets instead"},
       {"--out", "FILE", "write it to FILE instead of the standard output"}},
      command_schema};
  return spec;
}

}  // namespace torsim
