// Scenario files: loading, machine preset expansion, --set overrides and sweep points.
#pragma once

#include <string>
#include <vector>

#include "sim/config/json_text.hpp"
#include "sim/config/params.hpp"

namespace torsim {

extern const ParamTable kScenarioParams;
extern const ParamTable kOutputParams;

/// What a run writes (defaults and meanings: kOutputParams); the trace options are
/// trace_settings()'s (run/trace.hpp).
struct OutputOptions {
  std::string dir;  // empty: results/<scenario name>
  bool csv = false;
  bool link_stats = false;
};
/// The "output" object of a scenario (`spec`, at `where`).
OutputOptions parse_output(const Json& spec, const Where& where);

/// Directory holding the machine presets (<data>/scenarios/machines): $TORSIM_DATA, else the
/// source tree the binary was built from.
std::string presets_directory();
/// Names of the available presets, sorted.
std::vector<std::string> preset_names();
/// Path of the preset file for `name`; throws an InputError at `where` listing the valid names.
std::string preset_path(const std::string& name, const Where& where);

/// More sweep points than this is an input error (each point is built before any runs).
inline constexpr std::size_t kMaxSweepPoints = 100000;

/// A machine preset with what it derives from: a preset may name a base preset
/// ("preset": "bgq-midplane") and override parts of it, as a scenario does.
struct ExpandedPreset {
  Json machine;                                      // the merged machine object
  std::vector<std::pair<std::string, Json>> layers;  // file and what it gives, the named preset first
  /// The file that gave the value at `pointer` (relative to the machine object).
  const std::string& file_of(const std::string& pointer) const;
};
ExpandedPreset load_preset(const std::string& name, const Where& where);

struct SweepPoint {
  Json values = Json::object();  // dotted path -> value, for the results and CSV columns
  Json doc;                      // the scenario with those values applied
  std::uint64_t seed = 1;        // the point's own seed (a sweep may vary it)
};

/// The top-level keys a sweep may vary: what one simulation is built from. The others (name,
/// description, output, sweep) belong to the whole run.
inline constexpr std::string_view kSweepableKeys[] = {"machine", "network", "runtime", "placement", "workload", "seed"};

class Scenario {
 public:
  /// Loads `path`, expands the machine preset, applies `--set path=value` assignments.
  Scenario(const std::string& path, const std::vector<std::string>& assignments);
  /// Builds a scenario from an in-memory document (tests, validation).
  Scenario(Json doc, std::string label);

  const std::string& file() const { return file_; }
  const std::string& name() const { return name_; }
  const Json& doc() const { return doc_; }
  std::uint64_t seed() const;
  /// How many points the "sweep" object's cartesian product has (one when there is none); checks
  /// the sweep's keys and lists.
  std::size_t point_count() const;
  /// Point `index` (below point_count()), built on demand: a sweep's points are never all held at
  /// once. A sweep over "machine" takes preset names; each point's machine is that preset with
  /// the scenario's own machine overrides and the command line's.
  SweepPoint point(std::size_t index) const;
  /// Every point (for the few callers that need them together).
  std::vector<SweepPoint> points() const;
  /// Re-raises an error found while building a point against what gave the value: the
  /// scenario, the machine preset, the command line, or the sweep (at its key).
  [[noreturn]] void reraise(const InputError& error) const;
  /// Whether only the machine description gives the value at `pointer`: its preset, or the
  /// scenario's inline machine object (not the overrides of a preset, the command line or the sweep).
  bool only_machine_description_gives(const std::string& pointer) const;

 private:
  /// Expands a preset name or {"preset": name, ...} into the machine object; `where` gave it.
  void expand_machine(const Where& where);
  /// The preset `name` with the scenario's machine overrides applied.
  Json preset_machine(const std::string& name, const Where& where) const;
  void apply_assignments(const std::vector<std::string>& assignments);
  const Json& sweep() const;  // the "sweep" object, or an empty one
  /// The sweep key that gives the value at `pointer` (it or an object holding it), or "".
  std::string swept_key(const std::string& pointer) const;
  std::uint64_t read_seed(const Json& doc) const;
  /// Fails unless `path` names something one sweep point can vary.
  void check_sweep_path(const std::string& path, const Where& where) const;

  std::string file_;
  std::string name_;
  Json doc_;
  Json machine_overrides_;  // what the scenario overrode in its preset
  ExpandedPreset preset_;   // no layers when the machine is inline
  Json command_line_ = Json::object();
  std::vector<std::string> machine_assignments_;  // --set machine.x=...: applied to swept machines too
};

}  // namespace torsim
