// Running the scenarios a claim's curves come from, and reading curves and breakdowns out of
// the results. Points are run on demand and kept, so curves that share a scenario (or a
// sensitivity variant that needs only some points) run each point once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "run/output.hpp"
#include "sim/config/provenance.hpp"
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

/// A run point and the parameters it read (sim/config/provenance.hpp), by JSON pointer.
struct RunPoint {
  CompletedPoint completed;
  std::map<std::string, ParamRead> reads;
  std::string error;  // a run the input made impossible, when the request tolerates that
};

/// Reading a curve from a run the input made impossible (a sensitivity variant whose value a
/// model rejects, say): what was wrong.
struct ImpossibleRun : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Which points of a scenario a curve reads: those of `path` run with `sets` as --set overrides
/// that `keep` selects.
struct PointRequest {
  std::string path;
  std::vector<std::string> sets;
  std::function<bool(const SweepPoint&)> keep;
  /// An input error of a point (a variant's value out of a model's range) is kept as the run's
  /// error instead of stopping validate.
  bool tolerate_input_errors = false;
};

class PointCache {
 public:
  /// `jobs` > 1 runs the points of a prefetch in that many child processes at once;
  /// `reuse_unaffected` false runs every variant again (to test that reusing them is exact).
  explicit PointCache(std::size_t jobs = 1, bool reuse_unaffected = true)
      : jobs_(jobs), reuse_unaffected_(reuse_unaffected) {}

  /// The results of the points a request selects, in sweep order; runs the ones not run yet.
  std::vector<const RunPoint*> points(const PointRequest& request);
  /// Runs every point the requests select that has not run yet, `jobs` at a time.
  void prefetch(const std::vector<PointRequest>& requests);

  /// A variant's overrides end with one machine parameter (machine.P=V): a point whose run
  /// without that last override did not read P is the same run, and is not run again.
  static std::string varied_pointer(const std::vector<std::string>& sets);

 private:
  struct Missing {
    std::string key;
    std::size_t index;
    const Scenario* scenario;
    SweepPoint point;
    const PointRequest* request;
    bool tolerate;
  };
  const Scenario& scenario(const std::string& key, const std::string& path, const std::vector<std::string>& sets);
  /// The points of the request not run yet (after reusing unaffected runs of a variant).
  std::vector<Missing> missing(const PointRequest& request);
  const RunPoint* reused(const std::string& path, const std::vector<std::string>& sets, std::size_t index) const;
  void run_here(const Missing& m);

  std::size_t jobs_;
  bool reuse_unaffected_;
  std::map<std::string, std::unique_ptr<Scenario>> scenarios_;
  std::map<std::pair<std::string, std::size_t>, RunPoint> runs_;
  std::map<std::pair<std::string, std::size_t>, const RunPoint*> aliases_;
};

/// The directory scenarios and presets are read from: $TORSIM_DATA, else the source tree.
std::string data_root();
/// A curve's scenario file: relative to data_root(), or absolute.
std::string scenario_path(const std::string& path);

/// The points a curve reads (see extract), to prefetch them.
PointRequest curve_request(const CurveSpec& spec, const std::vector<std::string>& sets,
                           const std::vector<double>& only_x, const Where& where, bool tolerate_input_errors = false,
                           const std::set<std::string>* only_points = nullptr);

/// Reads one curve (ImpossibleRun when one of its points could not run). `only_x`, when not empty, restricts a metric
/// curve to those x, and `only_points`, when given, any curve to those sweep points (their values, as dumped JSON): a
/// sensitivity run needs only the points the checks read. `breakdown_series` names the series that breaks a series
/// curve's y down.
ExtractedCurve extract(const CurveSpec& spec, PointCache& cache, const std::vector<std::string>& sets,
                       const std::vector<double>& only_x, const std::string& breakdown_series, const Where& where,
                       const std::set<std::string>* only_points = nullptr);

/// Whether a point's run gave a series curve a row at one of the x values `xs`.
bool series_gives_x(const CurveSpec& spec, const RunPoint& point, const std::vector<double>& xs, const Where& where);

}  // namespace torsim::validation
