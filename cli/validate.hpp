// `torsim validate`: runs the claims' scenarios, compares with the papers, prints the table,
// writes validation.json and the report (Markdown index and one plot per claim), and records
// or checks the statuses (validation/status.json).
#pragma once

#include "cli/options.hpp"

namespace torsim {

const CommandSpec& validate_command();

}  // namespace torsim
