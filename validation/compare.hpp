// The tolerance policy, written down once, and the status of a claim. Pure functions, tested
// in tests/unit/validation_test.cpp.
//
// - A percentage-gain claim is reproduced when the simulated gain lies within +/- 10
//   percentage points of the paper's; for "up to X %", the simulated gain is the largest over
//   the paper's sweep.
// - An absolute latency or bandwidth is reproduced within 15 % (symmetric relative error with
//   an absolute floor, so a reference near zero does not inflate the error).
// - A trend claim ("A beats B below 512 KB") is reproduced when it holds at every point of the
//   sweep, except points within 5 % of the crossover.
// - A tolerance is set once, with its reason, and never widened to make a claim pass.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torsim::validation {

enum class Status { reproduced, not_reproduced, not_yet_modelled };
std::string_view status_name(Status s);

inline constexpr double kGainTolerancePoints = 10.0;
inline constexpr double kAbsoluteTolerance = 0.15;
inline constexpr double kTrendExclusion = 0.05;

/// |a - b| / max(|a|, |b|, floor): symmetric, and never a division by (near) zero.
double symmetric_relative_error(double a, double b, double floor);

/// How a gain is expressed. reduction: (base - new) / base (lower is better, e.g. latency);
/// speedup: base / new - 1 (lower is better, "X % faster"); increase: new / base - 1 (higher is
/// better, e.g. bandwidth). In percent; nullopt when the reference is zero.
enum class GainKind { reduction, speedup, increase };
std::optional<double> gain_percent(double baseline, double improved, GainKind kind);

struct Curve {
  std::vector<double> x, y;
  /// y at exactly `x`, if the curve has that point.
  std::optional<double> at(double x_value) const;
};

struct Verdict {
  Status status = Status::not_reproduced;
  std::optional<double> simulated;  // the simulated quantity compared with the paper's
  double at_x = 0;                  // where it was taken (for "up to": the best point)
  std::string detail;               // why, in one sentence
};

/// Gains at every x both curves have (sorted by x).
Curve gains(const Curve& baseline, const Curve& improved, GainKind kind);

/// "Up to X %": the largest simulated gain over the sweep against the paper's.
Verdict check_gain_up_to(const Curve& baseline, const Curve& improved, GainKind kind, double paper_percent,
                         double tolerance_points = kGainTolerancePoints);
/// "X % at x": the gain at one point against the paper's.
Verdict check_gain_at(const Curve& baseline, const Curve& improved, GainKind kind, double x, double paper_percent,
                      double tolerance_points = kGainTolerancePoints);
/// An absolute value at one point, within a relative tolerance.
Verdict check_absolute(const Curve& curve, double x, double paper_value, double floor,
                       double tolerance = kAbsoluteTolerance);
/// "`better` beats `worse` for x below (or above) `crossover`": lower_is_better says what
/// beating means. With no crossover (nullopt), the trend must hold everywhere.
Verdict check_trend(const Curve& better, const Curve& worse, std::optional<double> crossover, bool below,
                    bool lower_is_better, double exclusion = kTrendExclusion);

}  // namespace torsim::validation
