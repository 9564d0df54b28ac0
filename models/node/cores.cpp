#include "models/node/cores.hpp"

#include <algorithm>

#include "models/node/job.hpp"

namespace torsim::node {

std::string_view cpu_use_name(CpuUse use) {
  static constexpr std::array<std::string_view, kCpuUses> names = {
      "compute", "send", "receive", "match", "copy", "poll", "registration", "scheduler", "connection"};
  return names[static_cast<std::size_t>(use)];
}

Time CpuCharge::total() const {
  Time sum = 0;
  for (const Time t : parts) sum += t;
  return sum;
}

Cores::Cores(Kernel& kernel, const NodeParams& node, const Placement& placement)
    : kernel_(kernel),
      node_(node),
      placement_(placement),
      free_at_(static_cast<std::size_t>(placement.size()), 0),
      shares_cores_(placement.ranks_per_node > node.cores * node.full_speed_threads) {}

CpuCharge Cores::stretched(Rank r, const CpuCharge& charge) const {
  const std::int64_t stretch = node_.cost_stretch(placement_.ranks_on_core(r, node_.cores));
  CpuCharge out = charge;
  for (Time& part : out.parts) part = part * stretch / node_.full_speed_threads;
  return out;
}

Time Cores::occupy(Rank r, const CpuCharge& charge) {
  return shares_cores_ ? book(r, stretched(r, charge)) : book(r, charge);
}

Time Cores::book(Rank r, const CpuCharge& charge) {
  Time& free_at = free_at_[static_cast<std::size_t>(r)];
  const Time start = std::max(free_at, kernel_.now());
  const Time duration = charge.total();
  free_at = start + duration;
  for (std::size_t i = 0; i < kCpuUses; ++i) by_use_.parts[i] += charge.parts[i];
  if (observer_ && duration > 0) observer_(r, start, free_at, charge);
  return free_at;
}

}  // namespace torsim::node
