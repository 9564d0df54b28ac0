// `torsim describe MACHINE --provenance`: every parameter of a machine, given by its preset or
// left at its table's default, with its value, its citation and its source class (cited, read
// in code, assumption, calibrated on K<n>: sim/config/provenance.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/config/params.hpp"
#include "sim/config/provenance.hpp"

namespace torsim {

struct ProvenanceRow {
  std::string path;  // dotted, inside the machine
  std::string value;
  std::string citation;
  Provenance provenance;
  bool given = true;  // false: the table's default
};

/// The machine's parameters (the expanded preset: `machine` with its "sources"), given ones in
/// the preset's order, then the defaults of the tables that apply to it.
std::vector<ProvenanceRow> machine_provenance(const Json& machine);

Json provenance_json(const std::vector<ProvenanceRow>& rows);
/// One line per parameter (citations cut to fit), then the count per class.
std::string provenance_text(const std::vector<ProvenanceRow>& rows);

}  // namespace torsim
