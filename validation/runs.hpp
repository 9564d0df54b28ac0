// Running the scenarios a claim's curves come from, and reading curves and breakdowns out of
// the results. Points are run on demand and kept, so curves that share a scenario (or a
// sensitivity variant that needs only some points) run each point once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "run/output.hpp"
#include "validation/claims.hpp"

namespace torsim::validation {

/// Where the time behind one point of a curve goes: named parts in one unit.
struct Breakdown {
  std::string unit;
  std::vector<std::pair<std::string, double>> parts;
};

/// A curve and, per x, the breakdown of its y where the results have one.
struct ExtractedCurve {
  Curve curve;
  std::map<double, Breakdown> breakdowns;
};

class PointCache {
 public:
  /// The results of the points of `path` (run with `sets` as --set overrides) that `keep`
  /// selects, in sweep order; runs the ones not run yet.
  std::vector<const CompletedPoint*> points(const std::string& path, const std::vector<std::string>& sets,
                                            const std::function<bool(const SweepPoint&)>& keep);

 private:
  const Scenario& scenario(const std::string& key, const std::string& path, const std::vector<std::string>& sets);
  std::map<std::string, std::unique_ptr<Scenario>> scenarios_;
  std::map<std::pair<std::string, std::size_t>, CompletedPoint> runs_;
};

/// The directory scenarios and presets are read from: $TORSIM_DATA, else the source tree.
std::string data_root();
/// A curve's scenario file: relative to data_root(), or absolute.
std::string scenario_path(const std::string& path);

/// Reads one curve. `only_x`, when not empty, restricts a metric curve to those x (a
/// sensitivity run needs only the points the checks read); `breakdown_series` names the series
/// that breaks a series curve's y down.
ExtractedCurve extract(const CurveSpec& spec, PointCache& cache, const std::vector<std::string>& sets,
                       const std::vector<double>& only_x, const std::string& breakdown_series, const Where& where);

}  // namespace torsim::validation
