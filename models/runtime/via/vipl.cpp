#include "models/runtime/via/vipl.hpp"

namespace torsim::rt {

namespace {
constexpr ParamSpec kViplSpecs[] = {
    {"layer", ParamKind::text, "vipl", "", "", "", "messaging layer name", "-"},
};
}  // namespace

const ParamTable kViplLayerParams{"runtime (layer: vipl)", "VIA send/receive and RDMA write through VIPL calls.",
                                  kViplSpecs};

std::unique_ptr<MessagingLayer> make_vipl_layer(const ParamReader& r, Job& job) {
  return std::make_unique<ViplLayer>(job, nic::via_of(job.machine, r.where()));
}

}  // namespace torsim::rt
