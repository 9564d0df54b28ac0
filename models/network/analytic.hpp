// The analytic model: contention-free. A message takes nic_latency + sum of link latencies +
// wire bytes / bottleneck bandwidth; an intra-node one memcpy latency + bytes / memcpy
// bandwidth. For very large runs where contention does not matter, or as a lower bound.
#pragma once

#include "models/network/network_model.hpp"

namespace torsim::net {

extern const ParamTable kAnalyticModelParams;

class AnalyticModel final : public NetworkModel {
 public:
  AnalyticModel(Kernel& kernel, const Machine& machine) : NetworkModel(kernel, machine) {}
  std::string_view name() const override { return "analytic"; }
  void start(const TransferRequest& request) override;

 private:
  std::vector<LinkId> route_;
};

}  // namespace torsim::net
