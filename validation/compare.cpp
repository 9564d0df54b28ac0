#include "validation/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace torsim::validation {

std::string_view status_name(Status s) {
  switch (s) {
    case Status::reproduced: return "reproduced";
    case Status::not_reproduced: return "not reproduced";
    case Status::not_yet_modelled: return "not yet modelled";
  }
  return "?";
}

double symmetric_relative_error(double a, double b, double floor) {
  const double scale = std::max({std::fabs(a), std::fabs(b), floor});
  return scale > 0 ? std::fabs(a - b) / scale : 0.0;
}

std::optional<double> gain_percent(double baseline, double improved, GainKind kind) {
  switch (kind) {
    case GainKind::reduction:
      if (baseline == 0) return std::nullopt;
      return (baseline - improved) / baseline * 100.0;
    case GainKind::speedup:
      if (improved == 0) return std::nullopt;
      return (baseline / improved - 1.0) * 100.0;
    case GainKind::increase:
      if (baseline == 0) return std::nullopt;
      return (improved / baseline - 1.0) * 100.0;
  }
  return std::nullopt;
}

std::optional<double> Curve::at(double x_value) const {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i] == x_value) return y[i];
  return std::nullopt;
}

Curve gains(const Curve& baseline, const Curve& improved, GainKind kind) {
  std::map<double, double> by_x;
  for (std::size_t i = 0; i < baseline.x.size(); ++i) {
    const auto other = improved.at(baseline.x[i]);
    if (!other) continue;
    if (const auto g = gain_percent(baseline.y[i], *other, kind)) by_x[baseline.x[i]] = *g;
  }
  Curve out;
  for (const auto& [x, g] : by_x) {
    out.x.push_back(x);
    out.y.push_back(g);
  }
  return out;
}

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

Verdict judge_gain(double simulated, double at_x, double paper, double tolerance) {
  Verdict v;
  v.simulated = simulated;
  v.at_x = at_x;
  const double off = simulated - paper;
  v.status = std::fabs(off) <= tolerance ? Status::reproduced : Status::not_reproduced;
  v.detail = "simulated gain " + number(simulated) + " % vs the paper's " + number(paper) + " % (" +
             (off >= 0 ? "+" : "") + number(off) + " points; tolerance " + number(tolerance) + ")";
  return v;
}

Verdict no_data(const std::string& why) {
  Verdict v;
  v.status = Status::not_reproduced;
  v.detail = why;
  return v;
}

}  // namespace

Verdict check_gain_up_to(const Curve& baseline, const Curve& improved, GainKind kind, double paper_percent,
                         double tolerance_points) {
  const Curve g = gains(baseline, improved, kind);
  if (g.x.empty()) return no_data("the two curves share no point with a non-zero reference");
  const auto best = std::max_element(g.y.begin(), g.y.end()) - g.y.begin();
  return judge_gain(g.y[static_cast<std::size_t>(best)], g.x[static_cast<std::size_t>(best)], paper_percent,
                    tolerance_points);
}

Verdict check_gain_at(const Curve& baseline, const Curve& improved, GainKind kind, double x, double paper_percent,
                      double tolerance_points) {
  const auto b = baseline.at(x), i = improved.at(x);
  if (!b || !i) return no_data("no simulated point at x = " + number(x));
  const auto g = gain_percent(*b, *i, kind);
  if (!g) return no_data("the reference is zero at x = " + number(x));
  return judge_gain(*g, x, paper_percent, tolerance_points);
}

Verdict check_absolute(const Curve& curve, double x, double paper_value, double floor, double tolerance) {
  const auto simulated = curve.at(x);
  if (!simulated) return no_data("no simulated point at x = " + number(x));
  Verdict v;
  v.simulated = *simulated;
  v.at_x = x;
  const double error = symmetric_relative_error(*simulated, paper_value, floor);
  v.status = error <= tolerance ? Status::reproduced : Status::not_reproduced;
  v.detail = "simulated " + number(*simulated) + " vs the paper's " + number(paper_value) + " (" +
             number(error * 100) + " % apart; tolerance " + number(tolerance * 100) + " %)";
  return v;
}

Verdict check_trend(const Curve& better, const Curve& worse, std::optional<double> crossover, bool below,
                    bool lower_is_better, double exclusion) {
  Verdict v;
  std::size_t checked = 0, held = 0;
  std::string first_failure;
  for (std::size_t i = 0; i < better.x.size(); ++i) {
    const double x = better.x[i];
    const auto other = worse.at(x);
    if (!other) continue;
    if (crossover) {
      if (below ? x >= *crossover : x <= *crossover) continue;
      if (std::fabs(x - *crossover) <= exclusion * std::fabs(*crossover)) continue;
    }
    ++checked;
    const bool beats = lower_is_better ? better.y[i] < *other : better.y[i] > *other;
    if (beats) ++held;
    else if (first_failure.empty()) first_failure = number(x);
  }
  if (checked == 0) return no_data("no sweep point falls in the claimed range");
  v.simulated = 100.0 * static_cast<double>(held) / static_cast<double>(checked);
  v.status = held == checked ? Status::reproduced : Status::not_reproduced;
  v.detail = "the trend holds at " + std::to_string(held) + " of " + std::to_string(checked) + " points" +
             (first_failure.empty() ? "" : "; first failure at x = " + first_failure);
  return v;
}

}  // namespace torsim::validation
