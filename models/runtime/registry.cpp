#include "models/runtime/registry.hpp"

#include <algorithm>

#include "models/collectives/collectives.hpp"
#include "models/gpu/device.hpp"
#include "models/nic/registry.hpp"
#include "models/runtime/bluegene_p/gasnet_dcmf.hpp"
#include "models/runtime/bluegene_p/mpich_dcmf.hpp"
#include "models/runtime/bluegene_q/mpich_pamid.hpp"
#include "models/runtime/cuda/mvapich2_cuda.hpp"
#include "models/runtime/gemini/charm.hpp"
#include "models/runtime/gemini/ugni.hpp"
#include "models/runtime/infiniband/mvapich2.hpp"
#include "models/runtime/infiniband/verbs.hpp"
#include "models/runtime/raw.hpp"
#include "models/runtime/via/mvich.hpp"
#include "models/runtime/via/vipl.hpp"
#include "sim/config/json_merge.hpp"
#include "sim/config/provenance.hpp"
#include "sim/config/registry.hpp"

namespace torsim::rt {

namespace {

std::unique_ptr<MessagingLayer> make_raw(const ParamReader&, Job& job) { return std::make_unique<RawLayer>(job); }

// A name with one implementation per NIC resolves by the machine's NIC model.
const MessagingLayerEntry& find_layer(const std::string& name, const Machine& machine, const Where& where) {
  const std::string nic = machine.nic.value("model", std::string());
  std::string nics;
  for (const auto& e : messaging_layers()) {
    if (e.name != name) continue;
    if (e.nic.empty() || e.nic == nic) return e;
    nics += (nics.empty() ? "" : ", ") + std::string(e.nic);
  }
  find_entry(messaging_layers(), name, "messaging layer", where);  // fails for an unknown name
  where.fail("messaging layer '" + name + "' runs on machines whose NIC is " + nics + "; machine '" + machine.name +
             "' has " + (nic.empty() ? "no NIC model" : "'" + nic + "'"));
}

// Sections of machine.runtimes that several layers read, besides each layer's own.
const ParamTable* shared_calibration(std::string_view name) {
  if (name == "charm") return &kCharmParams;
  if (name == "mpi_cuda") return &kMvapich2CudaParams;
  return nullptr;
}

const ParamTable& calibration_table(const std::string& name, const Machine& machine, const Where& where) {
  if (const ParamTable* shared = shared_calibration(name)) return *shared;
  std::vector<std::string_view> valid{"charm", "mpi_cuda"};
  for (const auto& e : messaging_layers()) {
    if (e.name == name) return *find_layer(name, machine, where).params;
    if (valid.back() != e.name) valid.push_back(e.name);
  }
  where.fail(unknown_name_message("messaging layer", name, valid));
}

// The collective algorithms a layer's calibration may choose, besides the layer's own keys.
void check_calibration(Json section, const Where& where, const ParamTable& table) {
  if (section.is_object() && section.contains("collectives")) {
    ParamReader(section["collectives"], where / "collectives", coll::kSelectionParams).check_given();
    if (!table.find("collectives")) section.erase("collectives");
  }
  ParamReader(section, where, table).check_given();
}

}  // namespace

const std::vector<MessagingLayerEntry>& messaging_layers() {
  static const std::vector<MessagingLayerEntry> entries{
      {"raw", "NIC-level put/send with no software overhead", &kRawLayerParams, make_raw},
      {"ugni", "Cray Gemini uGNI level: SMSG, FMA and BTE", &kUgniLayerParams, make_ugni_layer},
      {"mpi", "MPI over uGNI (Cray MPICH protocols) on Gemini", &kCrayMpichLayerParams, make_cray_mpich_layer,
       "gemini"},
      {"mpi", "MPI over verbs (MVAPICH2 protocols) on InfiniBand", &kMvapich2LayerParams, make_mvapich2_layer,
       "infiniband"},
      {"verbs", "InfiniBand verbs: send/receive into posted buffers, RDMA write and read", &kVerbsLayerParams,
       make_verbs_layer},
      {"charm_mpi", "Charm++ over its MPI machine layer on Gemini", &kCharmMpiParams, make_charm_mpi_layer},
      {"charm_ugni", "Charm++ over its uGNI machine layer on Gemini", &kCharmUgniParams, make_charm_ugni_layer},
      {"dcmf", "Blue Gene/P DCMF on the torus DMA: sends, puts, gets", &kDcmfLayerParams, make_dcmf_layer},
      {"mpi_dcmf", "MPI over DCMF on Blue Gene/P (MPICH's DCMF device)", &kMpichDcmfLayerParams, make_mpich_dcmf_layer},
      {"gasnet_dcmf", "GASNet's DCMF conduit on Blue Gene/P: puts, gets, active messages", &kGasnetDcmfLayerParams,
       make_gasnet_dcmf_layer},
      {"vipl", "VIA send/receive and RDMA write through VIPL calls (cLAN)", &kViplLayerParams, make_vipl_layer},
      {"via_mpi", "MPI over VIA (MVICH's protocols), collectives over send/receive or RDMA", &kMvichLayerParams,
       make_mvich_layer},
      {"pami", "PAMI on the Blue Gene/Q message unit", &kPamiLayerParams, make_pami_layer},
      {"mpi_pami", "MPI over PAMI (MPICH pamid) on Blue Gene/Q", &kMpichPamidLayerParams, make_mpich_pamid_layer},
  };
  return entries;
}

std::string layer_name(const Json& spec) { return spec.value("layer", std::string("raw")); }

std::unique_ptr<MessagingLayer> make_messaging_layer(const Json& spec, const Where& where, Job& job) {
  if (!spec.is_object()) where.fail("expected an object such as {\"layer\": \"raw\"}, got " + preview(spec));
  if (spec.contains("layer") && !spec["layer"].is_string())
    (where / "layer").fail("expected a layer name string, got " + preview(spec["layer"]));
  const std::string name = layer_name(spec);
  const MessagingLayerEntry& entry = find_layer(name, job.machine, where / "layer");
  // The machine's calibrated parameters for this layer, overridden by the scenario's.
  const Machine& machine = job.machine;
  const Json calibrated = machine.runtimes.value(name, Json::object());
  const Where calibrated_where = machine.where / "runtimes" / name;
  const Json merged = merge_overrides(calibrated, spec, where);
  try {
    // "collectives" selects the algorithms (models/collectives); a layer whose own table
    // declares it reads it itself, for its native collectives.
    Json layer_spec = merged;
    if (!entry.params->find("collectives")) layer_spec.erase("collectives");
    auto layer = entry.make(ParamReader(layer_spec, where, *entry.params), job);
    if (!layer->has_collectives())
      layer->set_collectives(
          coll::make_algorithms(merged.value("collectives", Json::object()), where / "collectives", job.size()));
    return layer;
  } catch (const InputError& e) {
    reattribute(e, where, spec, where, calibrated_where);
  }
}

void check_machine_calibration(const Machine& machine) {
  const ReadLog::Pause checked_not_used;  // the layer, NIC and GPU a run takes note their reads when built
  nic::check_nic(machine);
  if (!machine.gpu.empty()) gpu::gpu_of(machine, machine.where / "gpu");
  for (const auto& [name, section] : machine.runtimes.items()) {
    const Where where = machine.where / "runtimes" / name;
    check_calibration(section, where, calibration_table(name, machine, where));
  }
}

}  // namespace torsim::rt
