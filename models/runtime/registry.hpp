// The messaging layers by name: what a scenario's "runtime" section chooses, with each layer's
// parameter table and factory.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "models/messaging/messaging.hpp"

namespace torsim::rt {

/// The "runtime" section of a scenario: {"layer": "raw", ...overrides of the machine's
/// calibrated parameters for that layer}.
std::unique_ptr<MessagingLayer> make_messaging_layer(const Json& spec, const Where& where, Job& job);
/// The layer a "runtime" section names ("raw" when it names none); `spec` checked by
/// make_messaging_layer.
std::string layer_name(const Json& spec);

struct MessagingLayerEntry {
  std::string_view name;
  std::string_view description;
  const ParamTable* params;
  /// Builds the layer from its parameters (the machine's runtimes.<name> merged with the
  /// scenario's overrides).
  std::unique_ptr<MessagingLayer> (*make)(const ParamReader&, Job&);
  /// The NIC model (machine.nic.model) this implementation of the name is for, when one name
  /// has an implementation per NIC ("mpi": Cray MPICH on gemini, MVAPICH2 on infiniband).
  std::string_view nic = {};
};
const std::vector<MessagingLayerEntry>& messaging_layers();

/// What of a machine the models above the network read only when a run uses them: its NIC, its
/// GPUs and every messaging layer's calibration (machine.runtimes), checked against their tables
/// whatever the run uses, so that input nobody reads is an error.
void check_machine_calibration(const Machine& machine);

}  // namespace torsim::rt
