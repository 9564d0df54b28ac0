#include "models/runtime/via/vipl.hpp"

#include "models/runtime/layer_params.hpp"

namespace torsim::rt {

namespace {
constexpr ParamSpec kViplSpecs[] = {
    layer_spec("vipl"),
};
}  // namespace

const ParamTable kViplLayerParams{"runtime (layer: vipl)", "VIA send/receive and RDMA write through VIPL calls.",
                                  kViplSpecs};

std::unique_ptr<MessagingLayer> make_vipl_layer(const ParamReader& r, Job& job) {
  return std::make_unique<ViplLayer>(job, nic::via_of(job.machine, r.where()));
}

}  // namespace torsim::rt
