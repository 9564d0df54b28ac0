// A simulated job on a machine over one messaging layer, for tests that drive ranks by hand.
#pragma once

#include <memory>

#include "models/runtime/registry.hpp"
#include "tests/support/fixtures.hpp"

namespace torsim::test {

struct LayerJob {
  Kernel kernel;
  Machine machine;
  std::unique_ptr<net::NetworkModel> network;
  std::unique_ptr<node::Job> job;
  std::unique_ptr<rt::MessagingLayer> layer;

  /// `runtime` as a scenario's "runtime" object; `placement` as its "placement" object.
  LayerJob(const Json& machine_spec, const Json& runtime, const Json& placement = Json::object(),
           const char* model = "packet")
      : machine(make_machine(machine_spec)) {
    network = net::make_network_model(Json{{"model", model}}, Where("test"), kernel, machine);
    job = std::make_unique<node::Job>(kernel, machine, *network,
                                      node::parse_placement(placement, Where("test"), machine), 1);
    layer = rt::make_messaging_layer(runtime, Where("test"), *job);
  }
  ~LayerJob() { kernel.shutdown(); }
  rt::Comm comm(rt::Rank r) { return rt::Comm(*layer, r); }
};

}  // namespace torsim::test
