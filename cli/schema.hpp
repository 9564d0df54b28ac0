// `torsim schema`: JSON Schema (draft-07) of scenario files and machine presets, generated from
// the same ParamTables that parse them, so that editors validate and complete scenario files and
// the schema cannot drift from the code.
//
// A table's place in the document comes from its section name, "<dotted path>[ (<key>: <value>)]":
// "machine.node" is the node object of a machine, "workload (name: pingpong)" the workload object
// when its "name" is "pingpong", "machine.topology.dims[i]" each element of the dims list. A new
// table is placed by its section name alone; one whose place does not exist is an error of the
// generator (the schema test fails), never silently left out.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "sim/config/params.hpp"

namespace torsim {

/// The schema of scenario files.
Json scenario_schema();
/// The schema of machine presets (scenarios/machines/*.json) and inline machine objects.
Json machine_schema();

/// `torsim schema`.
const CommandSpec& schema_command();

}  // namespace torsim
