#include "models/nic/registry.hpp"

#include "models/nic/bgp_dma.hpp"
#include "models/nic/bgq_mu.hpp"
#include "models/nic/gemini.hpp"
#include "models/nic/infiniband.hpp"
#include "models/nic/via.hpp"
#include "sim/config/registry.hpp"

namespace torsim::nic {

namespace {

template <auto parse>
void check_by(const ParamReader& r) {
  (void)parse(r);
}

}  // namespace

const std::vector<NicModelEntry>& nic_models() {
  static const std::vector<NicModelEntry> entries{
      {"gemini", "Cray Gemini (uGNI: SMSG, FMA, BTE)", &kGeminiParams, check_by<parse_gemini>},
      {"infiniband", "InfiniBand HCAs behind PCI Express (verbs)", &kInfinibandParams, check_by<parse_infiniband>},
      {"via", "a VIA NIC (cLAN; VIPL)", &kViaParams, check_by<parse_via>},
      {"bgp", "the Blue Gene/P torus DMA", &kBgpParams, check_by<parse_bgp>},
      {"bgq_mu", "the Blue Gene/Q message unit", &kMuParams, check_by<parse_mu>},
  };
  return entries;
}

void check_nic(const Machine& machine) {
  if (machine.nic.empty()) return;
  const Where where = machine.where / "nic";
  if (!machine.nic.contains("model") || !machine.nic["model"].is_string())
    where.fail("expected a NIC \"model\" string (a NIC section names its model, e.g. \"gemini\")");
  const auto& entry = find_entry(nic_models(), machine.nic["model"].get<std::string>(), "NIC model", where / "model");
  entry.check(ParamReader(machine.nic, where, *entry.params));
}

}  // namespace torsim::nic
