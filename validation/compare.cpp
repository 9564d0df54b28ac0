#include "validation/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace torsim::validation {

std::string_view status_name(Status s) {
  switch (s) {
    case Status::reproduced:
      return "reproduced";
    case Status::not_reproduced:
      return "not reproduced";
    case Status::not_yet_modelled:
      return "not yet modelled";
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
  v.detail = "simulated " + number(*simulated) + " vs the paper's " + number(paper_value) + " (" + number(error * 100) +
             " % apart; tolerance " + number(tolerance * 100) + " %)";
  return v;
}

Standing standing(double a, double b, bool lower_is_better, double resolution) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  if (std::fabs(a - b) <= resolution * scale) return Standing::tie;
  return (lower_is_better ? a < b : a > b) ? Standing::ahead : Standing::behind;
}

namespace {

// How `better` stands against `worse` at the points of one side of a trend.
struct Side {
  std::size_t points = 0;
  std::vector<double> ahead, ties, behind;
  void add(double x, Standing s) {
    ++points;
    (s == Standing::ahead ? ahead : s == Standing::tie ? ties : behind).push_back(x);
  }
};

std::string xs_text(const std::vector<double>& xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size() && i < 6; ++i) out += (i ? ", " : "") + number(xs[i]);
  return xs.size() > 6 ? out + ", ..." : out;
}

std::string claimed_side_text(const Side& side, double resolution) {
  std::string out = "ahead by more than the " + number(resolution * 100) + " % tie resolution at " +
                    std::to_string(side.ahead.size()) + " of " + std::to_string(side.points) + " points";
  if (!side.ties.empty()) out += "; ties at x = " + xs_text(side.ties);
  if (!side.behind.empty()) out += "; behind at x = " + xs_text(side.behind);
  return out;
}

std::string beyond_text(const Side& side, double crossover, bool below) {
  const std::string where =
      std::string("beyond the bound (x ") + (below ? "above " : "below ") + number(crossover) + ")";
  if (side.points == 0) return "; " + where + ": no sweep point, so the claim's other side is unchecked";
  if (side.ahead.empty())
    return "; " + where + ": not ahead at any of its " + std::to_string(side.points) + " points (" +
           std::to_string(side.ties.size()) + (side.ties.size() == 1 ? " tie" : " ties") + "), as the bound implies";
  return "; " + where + ": still ahead at x = " + xs_text(side.ahead) + ", which the bound denies";
}

}  // namespace

Verdict check_trend(const Curve& better, const Curve& worse, std::optional<double> crossover, bool below,
                    bool lower_is_better, double exclusion, double resolution) {
  Side claimed, beyond;
  for (std::size_t i = 0; i < better.x.size(); ++i) {
    const double x = better.x[i];
    const auto other = worse.at(x);
    if (!other) continue;
    Side* side = &claimed;
    if (crossover) {
      if (std::fabs(x - *crossover) <= exclusion * std::fabs(*crossover)) continue;
      if (below ? x > *crossover : x < *crossover) side = &beyond;
    }
    side->add(x, standing(better.y[i], *other, lower_is_better, resolution));
  }
  if (claimed.points == 0) return no_data("no sweep point falls in the claimed range");
  Verdict v;
  v.ties = claimed.ties.size();
  const std::size_t consistent = claimed.ahead.size() + beyond.points - beyond.ahead.size();
  v.simulated = 100.0 * static_cast<double>(consistent) / static_cast<double>(claimed.points + beyond.points);
  const bool holds = claimed.ahead.size() == claimed.points;
  const bool bound_holds = !crossover || (beyond.points > 0 && beyond.ahead.empty());
  v.status = holds && bound_holds ? Status::reproduced : Status::not_reproduced;
  v.detail = claimed_side_text(claimed, resolution) + (crossover ? beyond_text(beyond, *crossover, below) : "");
  return v;
}

}  // namespace torsim::validation
