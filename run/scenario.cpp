#include "run/scenario.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/config/fields.hpp"
#include "sim/config/json_merge.hpp"
#include "sim/config/registry.hpp"

namespace torsim {

namespace fs = std::filesystem;

namespace {
constexpr ParamSpec kSpecs[] = {
    {"name", ParamKind::text, "", "", "", "", "scenario name (default: the file name without .json)", "-"},
    {"description", ParamKind::text, "", "", "", "", "what the scenario measures and why", "-"},
    {"machine", ParamKind::object, kRequired, "", "", "",
     "a preset name (\"hopper\"), {\"preset\": name, ...overrides}, or an inline machine object", "-"},
    {"network", ParamKind::object, "{}", "", "", "", "network model and its options; default the packet model", "-"},
    {"runtime", ParamKind::object, "{}", "", "", "",
     "messaging layer ({\"layer\": name, ...overrides of the machine's calibration}); default raw", "-"},
    {"placement", ParamKind::object, "{}", "", "", "", "nodes allocated and ranks per node", "-"},
    {"workload", ParamKind::object, kRequired, "", "", "", "what the ranks run: {\"name\": ..., parameters}", "-"},
    {"sweep", ParamKind::object, "{}", "", "", "",
     "dotted path (under machine, network, runtime, placement or workload, or seed) -> list of values; every "
     "combination runs as its own simulation",
     "-"},
    {"seed", ParamKind::integer, "1", "", "0", "", "seed of every random stream in the run", "-"},
    {"output", ParamKind::object, "{}", "", "", "", "where and what to write", "-"},
};
using O = OutputOptions;
constexpr Field<O> kOutputFields[] = {
    bind<&O::dir>({"dir", ParamKind::text, "", "", "", "",
                   "output directory (default results/<scenario name>; --out wins)", "-"}),
    bind<&O::csv>({"csv", ParamKind::boolean, "true", "", "", "", "write one CSV per series", "-"}),
    bind<&O::link_stats>(
        {"link_stats", ParamKind::boolean, "false", "", "", "", "write links.csv with every link's busy time", "-"}),
    unbound<O>(
        {"trace", ParamKind::object, "{}", "", "", "",
         "write a trace for ui.perfetto.dev: {} for the defaults, or options (see output.trace); absent: no trace",
         "-"}),
};
constexpr auto kOutputSpecs = specs_of(kOutputFields);
}  // namespace

const ParamTable kScenarioParams{"scenario (top level)", "A scenario file.", kSpecs};
const ParamTable kOutputParams{"output", "What a run writes.", kOutputSpecs};

OutputOptions parse_output(const Json& spec, const Where& where) {
  return parse_fields(ParamReader(spec, where, kOutputParams), kOutputFields);
}

std::string presets_directory() {
  if (const char* data = std::getenv("TORSIM_DATA"); data && *data) return std::string(data) + "/scenarios/machines";
  return std::string(TORSIM_SOURCE_DIR) + "/scenarios/machines";
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(presets_directory(), ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string preset_path(const std::string& name, const Where& where) {
  const auto names = preset_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return presets_directory() + "/" + name + ".json";
  const std::vector<std::string_view> valid(names.begin(), names.end());
  where.fail(unknown_name_message("machine preset", name, valid) + " (the presets in " + presets_directory() + ")");
}

namespace {
// A chain of presets may be as long as the presets directory allows; one that comes back to a
// preset it has passed is a loop, named member by member.
void check_no_loop(const ExpandedPreset& chain, const std::string& name, const std::string& base, const Where& where) {
  std::vector<std::string> names;
  for (const auto& [file, _] : chain.layers) names.push_back(fs::path(file).stem().string());
  names.push_back(name);
  const auto again = std::find(names.begin(), names.end(), base);
  if (again == names.end()) return;
  std::string loop;
  for (auto it = again; it != names.end(); ++it) loop += *it + " -> ";
  where.fail("presets derive from each other in a loop: " + loop + base +
             "; expected a chain that ends in a preset "
             "without 'preset'");
}

void add_preset_layers(const std::string& name, const Where& where, ExpandedPreset& out) {
  const std::string file = preset_path(name, where);
  Json doc = read_json_file(file);
  if (!doc.is_object() || !doc.contains("preset")) {
    out.layers.emplace_back(file, doc);
    out.machine = doc;
    return;
  }
  const Where base_where = Where(file) / "preset";
  if (!doc["preset"].is_string()) base_where.fail("expected the name of the preset this one derives from");
  const std::string base = doc["preset"].get<std::string>();
  check_no_loop(out, name, base, base_where);
  doc.erase("preset");
  out.layers.emplace_back(file, doc);
  add_preset_layers(base, base_where, out);
  out.machine = merge_overrides(out.machine, doc, Where(file));
}
}  // namespace

ExpandedPreset load_preset(const std::string& name, const Where& where) {
  ExpandedPreset preset;
  add_preset_layers(name, where, preset);
  return preset;
}

const std::string& ExpandedPreset::file_of(const std::string& pointer) const {
  for (const auto& [file, given] : layers)
    if (given_by(given, pointer)) return file;
  return layers.front().first;
}

namespace {

// The name names the default output directory (results/NAME): one path component.
std::string checked_name(const std::string& name, const Where& where) {
  if (name.find_first_of("/\\") != std::string::npos || name == "." || name == "..")
    where.fail("expected a name without path separators (it names the output directory results/NAME), got \"" + name +
               "\"");
  return name;
}

}  // namespace

Scenario::Scenario(const std::string& path, const std::vector<std::string>& assignments)
    : file_(path), name_(fs::path(path).stem().string()), doc_(read_json_file(path)) {
  if (!doc_.is_object()) Where(file_).fail("a scenario is a JSON object, got " + preview(doc_));
  ParamReader top(doc_, Where(file_), kScenarioParams);  // rejects unknown keys early
  if (const std::string name = checked_name(top.text("name"), Where(file_) / "name"); !name.empty()) name_ = name;
  top.text("description");  // a string, or an error
  expand_machine(Where(file_) / "machine");
  apply_assignments(assignments);
}

Scenario::Scenario(Json doc, std::string label) : file_(label), name_(label), doc_(std::move(doc)) {
  if (!doc_.is_object()) Where(file_).fail("a scenario is a JSON object");
  ParamReader top(doc_, Where(file_), kScenarioParams);
  if (const std::string name = checked_name(top.text("name"), Where(file_) / "name"); !name.empty()) name_ = name;
  top.text("description");
  expand_machine(Where(file_) / "machine");
}

void Scenario::expand_machine(const Where& where) {
  if (!doc_.contains("machine")) Where(file_).fail("missing required key 'machine' (a preset name or an object)");
  Json& machine = doc_["machine"];
  std::string preset;
  if (machine.is_string()) {
    preset = machine.get<std::string>();
    machine_overrides_ = Json::object();
  } else if (machine.is_object() && machine.contains("preset")) {
    if (!machine["preset"].is_string()) (where / "preset").fail("expected a preset name string");
    preset = machine["preset"].get<std::string>();
    machine_overrides_ = machine;
    machine_overrides_.erase("preset");
  } else if (!machine.is_object()) {
    where.fail("expected a preset name or a machine object, got " + preview(machine));
  }
  if (preset.empty()) return;
  preset_ = load_preset(preset, machine.is_string() ? where : where / "preset");
  machine = merge_overrides(preset_.machine, machine_overrides_, where);
}

Json Scenario::preset_machine(const std::string& name, const Where& where) const {
  return merge_overrides(load_preset(name, where).machine, machine_overrides_, Where(file_) / "machine");
}

namespace {
// --set sweep.placement.nodes=[16,64] sets the sweep's key "placement.nodes".
void set_sweep_key(Json& doc, const std::string& assignment, const Where& where) {
  const auto equals = assignment.find('=');
  if (equals == std::string::npos)
    where.fail("expected --set path=value (e.g. workload.sizes=[8,64]), got '" + assignment + "'");
  const std::string text = assignment.substr(equals + 1);
  Json& sweep = doc["sweep"];
  if (!sweep.is_object()) sweep = Json::object();
  sweep[assignment.substr(6, equals - 6)] = parse_json_value(text, where).value_or(Json(text));
}
}  // namespace

// A whole machine given on the command line (a preset name, or {"preset": name, ...}) is
// expanded as a file's is; assignments inside the machine are kept to apply again to each
// machine a sweep substitutes, which would otherwise drop them.
void Scenario::apply_assignments(const std::vector<std::string>& assignments) {
  for (const auto& a : assignments) {
    const Where where("command line", "--set " + a);
    const std::string path = a.substr(0, a.find('='));
    if (path.rfind("sweep.", 0) == 0) {  // a sweep's keys are dotted paths themselves
      set_sweep_key(doc_, a, where);
      set_sweep_key(command_line_, a, where);
      continue;
    }
    set_dotted(doc_, a, where);
    set_dotted(command_line_, a, where);
    if (path == "machine") {
      expand_machine(where);
      machine_assignments_.clear();
    } else if (path.rfind("machine.", 0) == 0) {
      machine_assignments_.push_back(a);
    } else if (path == "name") {
      const std::string name = ParamReader(doc_, where, kScenarioParams).text("name");
      if (!checked_name(name, where).empty()) name_ = name;
    }
  }
}

std::uint64_t Scenario::seed() const { return read_seed(doc_); }

// Blamed where the value came from: a seed given by --set is the command line's.
std::uint64_t Scenario::read_seed(const Json& doc) const {
  try {
    return static_cast<std::uint64_t>(ParamReader(doc, Where(file_), kScenarioParams).integer("seed"));
  } catch (const InputError& e) {
    reraise(e);
  }
}

void Scenario::check_sweep_path(const std::string& path, const Where& where) const {
  if (path.empty() || path.front() == '.' || path.back() == '.' || path.find("..") != std::string::npos)
    where.fail("expected a dotted path such as \"workload.sizes\" as a sweep key, got \"" + path + "\"");
  const std::string top = path.substr(0, path.find('.'));
  std::vector<std::string_view> valid(std::begin(kSweepableKeys), std::end(kSweepableKeys));
  std::string list;
  for (const auto key : valid) list += (list.empty() ? "" : ", ") + std::string(key);
  if (kScenarioParams.find(top) == nullptr) {
    const std::string hint = closest_name(top, valid);
    where.fail("unknown key '" + top + "' in a sweep path" + (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
               " A sweep varies keys under " + list);
  }
  if (std::find(valid.begin(), valid.end(), top) == valid.end())
    where.fail("'" + path + "' cannot vary per sweep point: '" + top +
               "' belongs to the whole run; a sweep varies keys under " + list);
  if (top == "seed" && path != "seed") where.fail("expected 'seed' itself (an integer), not a key inside it");
}

const Json& Scenario::sweep() const {
  static const Json kNoSweep = Json::object();
  return doc_.contains("sweep") ? doc_.at("sweep") : kNoSweep;
}

std::size_t Scenario::point_count() const {
  const Json& sweep = this->sweep();
  const Where where = Where(file_) / "sweep";
  if (!sweep.is_object()) where.fail("expected an object of dotted path -> list of values");
  std::size_t count = 1;
  for (const auto& [path, values] : sweep.items()) {
    check_sweep_path(path, where / path);
    if (values.is_object() && !values.empty())
      (where / path)
          .fail(
              "expected a list of values, got an object: a sweep lists its values (it has no ranges), and its keys "
              "are dotted paths (\"" +
              path + "." + values.begin().key() + "\": [...] for a nested key)");
    if (!values.is_array() || values.empty())
      (where / path)
          .fail(
              "expected a non-empty list of values (JSON: strings in double quotes, [\"packet\", \"analytic\"]), "
              "got " +
              preview(values));
    count *= values.size();
    if (count > kMaxSweepPoints)
      where.fail("the sweep expands to more than " + std::to_string(kMaxSweepPoints) +
                 " points; expected fewer (split it into several scenarios)");
  }
  return count;
}

// Point `index` of the cartesian product: the sweep's first key varies slowest, its last fastest.
SweepPoint Scenario::point(std::size_t index) const {
  const Json& sweep = this->sweep();
  const Where where = Where(file_) / "sweep";
  std::vector<std::pair<std::string, std::size_t>> chosen;  // sweep key -> value index
  for (auto it = sweep.items().begin(); it != sweep.items().end(); ++it) chosen.emplace_back(it.key(), 0);
  for (auto c = chosen.rbegin(); c != chosen.rend(); ++c) {
    const std::size_t n = sweep[c->first].size();
    c->second = index % n;
    index /= n;
  }
  SweepPoint p{Json::object(), doc_};
  p.doc.erase("sweep");
  for (const auto& [path, i] : chosen) {
    const Json& value = sweep[path][i];
    p.values[path] = value;
    if (path == "machine") {
      if (!value.is_string()) (where / path / i).fail("expected a machine preset name");
      p.doc["machine"] = preset_machine(value.get<std::string>(), where / path / i);
      for (const auto& a : machine_assignments_) set_dotted(p.doc, a, Where("command line", "--set " + a));
    } else {
      set_dotted(p.doc, path + "=" + value.dump(), where / path / i);
    }
  }
  p.seed = read_seed(p.doc);
  return p;
}

std::vector<SweepPoint> Scenario::points() const {
  std::vector<SweepPoint> points;
  const std::size_t count = point_count();
  for (std::size_t i = 0; i < count; ++i) points.push_back(point(i));
  return points;
}

void Scenario::reraise(const InputError& error) const {
  if (error.file() != file_) throw error;
  const std::string& path = error.path();
  // A value given by --set: say so.
  if (!command_line_.empty() && !path.empty() && given_by(command_line_, path))
    throw InputError("command line (--set)", path, error.message());
  if (const std::string key = swept_key(path); !key.empty())
    throw InputError(file_, (Where(file_) / "sweep" / key).pointer(), error.message());
  const std::string machine_prefix = "/machine";
  if (!preset_.layers.empty() && path.rfind(machine_prefix, 0) == 0) {
    const std::string relative = path.substr(machine_prefix.size());
    if (!given_by(machine_overrides_, relative)) throw InputError(preset_.file_of(relative), relative, error.message());
  }
  throw error;
}

// An inline machine object is a whole machine description, as a preset is: it too calibrates
// more than one run takes.
bool Scenario::only_machine_description_gives(const std::string& pointer) const {
  const std::string machine_prefix = "/machine";
  if (pointer.rfind(machine_prefix, 0) != 0) return false;
  if (!command_line_.empty() && given_by(command_line_, pointer)) return false;
  if (!swept_key(pointer).empty()) return false;
  return preset_.layers.empty() || !given_by(machine_overrides_, pointer.substr(machine_prefix.size()));
}

// A sweep over "machine" chooses presets: what they give is theirs, not the sweep's.
std::string Scenario::swept_key(const std::string& pointer) const {
  for (const auto& [key, values] : sweep().items()) {
    if (key == "machine") continue;
    std::string swept = "/" + key;
    std::replace(swept.begin(), swept.end(), '.', '/');
    if (pointer == swept || pointer.rfind(swept + "/", 0) == 0) return key;
  }
  return "";
}

}  // namespace torsim
