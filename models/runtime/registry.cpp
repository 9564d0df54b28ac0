#include <algorithm>

#include "models/collectives/collectives.hpp"
#include "models/runtime/charm.hpp"
#include "models/runtime/mpi_pami.hpp"
#include "models/runtime/raw.hpp"
#include "sim/config/json_merge.hpp"

namespace torsim::rt {

namespace {

std::unique_ptr<MessagingLayer> make_raw(const ParamReader&, Job& job) { return std::make_unique<RawLayer>(job); }

std::string layer_names() {
  std::string out;
  for (const auto& e : messaging_layers()) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

}  // namespace

const std::vector<MessagingLayerEntry>& messaging_layers() {
  static const std::vector<MessagingLayerEntry> entries{
      {"raw", "NIC-level put/send with no software overhead", &kRawLayerParams, make_raw},
      {"ugni", "Cray Gemini uGNI level: SMSG, FMA and BTE", &kUgniLayerParams, make_ugni_layer},
      {"mpi", "MPI over uGNI (Cray MPICH protocols) on Gemini", &kMpiLayerParams, make_mpi_layer},
      {"charm_mpi", "Charm++ over its MPI machine layer on Gemini", &kCharmMpiParams, make_charm_mpi_layer},
      {"charm_ugni", "Charm++ over its uGNI machine layer on Gemini", &kCharmUgniParams, make_charm_ugni_layer},
      {"pami", "PAMI on the Blue Gene/Q message unit", &kPamiLayerParams, make_pami_layer},
      {"mpi_pami", "MPI over PAMI (MPICH pamid) on Blue Gene/Q", &kMpiPamiLayerParams, make_mpi_pami_layer},
  };
  return entries;
}

std::unique_ptr<MessagingLayer> make_messaging_layer(const Json& spec, const Where& where, Job& job) {
  if (!spec.is_object()) where.fail("expected an object such as {\"layer\": \"raw\"}, got " + preview(spec));
  if (spec.contains("layer") && !spec["layer"].is_string())
    (where / "layer").fail("expected a layer name string, got " + preview(spec["layer"]));
  const std::string name = spec.value("layer", std::string("raw"));
  const auto& entries = messaging_layers();
  auto entry = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == name; });
  if (entry == entries.end())
    (where / "layer").fail("unknown messaging layer '" + name + "'; valid values are: " + layer_names());
  // The machine's calibrated parameters for this layer, overridden by the scenario's.
  const Machine& machine = job.machine;
  const Json calibrated = machine.runtimes.value(name, Json::object());
  const Where calibrated_where = machine.where / "runtimes" / name;
  const Json merged = merge_overrides(calibrated, spec, where);
  try {
    // "collectives" selects the algorithms (models/collectives); a layer whose own table
    // declares it reads it itself, for its native collectives.
    Json layer_spec = merged;
    if (!entry->params->find("collectives")) layer_spec.erase("collectives");
    auto layer = entry->make(ParamReader(layer_spec, where, *entry->params), job);
    if (!layer->has_collectives())
      layer->set_collectives(coll::make_algorithms(merged.value("collectives", Json::object()), where / "collectives",
                                                   job.size()));
    return layer;
  } catch (const InputError& e) {
    reattribute(e, where, spec, where, calibrated_where);
  }
}

}  // namespace torsim::rt
