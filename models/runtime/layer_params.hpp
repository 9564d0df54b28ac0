// What the parameter tables of the messaging layers declare alike: the "layer" key that selects
// one, and the two-sided software costs every MPI over a NIC model charges.
#pragma once

#include <array>
#include <string_view>

#include "sim/config/fields.hpp"
#include "sim/core/time.hpp"

namespace torsim::rt {

/// The "layer" key that selects a messaging layer: the first row of its table.
constexpr ParamSpec layer_spec(std::string_view name) {
  return {"layer", ParamKind::text, name, "", "", "", "messaging layer name", "-"};
}

template <class S>
constexpr Field<S> layer_field(std::string_view name) {
  return unbound<S>(layer_spec(name));
}

/// The software costs of an MPI's two-sided path: each MPI layer's parameters derive from it.
struct MpiCosts {
  Bytes header = 0;  // MPI's own bytes (envelope, packet header) carried with each message
  Time send_cpu = 0, recv_cpu = 0, match_cpu = 0;
};

/// The first rows of the table of an MPI layer named `layer` whose parameters S derive from
/// MpiCosts.
template <class S>
constexpr std::array<Field<S>, 5> mpi_fields(std::string_view layer) {
  return {
      layer_field<S>(layer),
      bind<&MpiCosts::header, S>({"header", ParamKind::size, kRequired, "B", "0B", "1KiB",
                                  "MPI's own bytes carried with each message (envelope or packet header)", "preset"}),
      bind<&MpiCosts::send_cpu, S>({"send_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                    "MPI_Isend software path on the sender's core", "preset"}),
      bind<&MpiCosts::recv_cpu, S>({"recv_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms",
                                    "taking a message in and completing its receive, on the receiver's core",
                                    "preset"}),
      bind<&MpiCosts::match_cpu, S>(
          {"match_cpu", ParamKind::time, kRequired, "ns", "0ns", "1ms", "tag matching of one message", "preset"})};
}

}  // namespace torsim::rt
