// The tolerance policy, written down once, and the status of a claim. Pure functions, tested
// in tests/unit/validation_test.cpp.
//
// - A percentage-gain claim is reproduced when the simulated gain lies within +/- 10
//   percentage points of the paper's; for "up to X %", the simulated gain is the largest over
//   the paper's sweep.
// - An absolute latency or bandwidth is reproduced within 15 % (symmetric relative error with
//   an absolute floor, so a reference near zero does not inflate the error).
// - A trend claim ("A beats B below 512 KB") is reproduced when A beats B by more than the tie
//   resolution (1 % of the larger of the two values) at every point of the sweep on the claimed
//   side, except points within 5 % of the crossover. A point inside the resolution is a tie,
//   and a tie is not a win. A claim that names a bound is checked on both sides of it: beyond
//   the bound A must not beat B by more than the resolution (a tie or B ahead), and the sweep
//   must have a point there; a claim without a bound must hold at every point.
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
/// Two values closer than this fraction of the larger are a tie: 1 %, below the run-to-run
/// spread the papers' benchmarks report and far below the 15 % the calibration is held to, so
/// a difference the model cannot resolve never decides a claim.
inline constexpr double kTieResolution = 0.01;

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
  std::size_t ties = 0;             // trend: points on the claimed side within the tie resolution
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
/// How `a` compares with `b` when lower (or higher) is better: ahead, behind, or a tie within
/// `resolution` of the larger magnitude.
enum class Standing { ahead, tie, behind };
Standing standing(double a, double b, bool lower_is_better, double resolution = kTieResolution);

/// "`better` beats `worse` for x below (or above) `crossover`": lower_is_better says what
/// beating means. With no crossover (nullopt), the trend must hold everywhere; with one, the
/// other side is checked too (`better` not ahead there).
Verdict check_trend(const Curve& better, const Curve& worse, std::optional<double> crossover, bool below,
                    bool lower_is_better, double exclusion = kTrendExclusion, double resolution = kTieResolution);

}  // namespace torsim::validation
