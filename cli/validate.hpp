// `torsim validate`: runs the claims' scenarios, compares with the papers, prints the table,
// writes validation.json and the report (Markdown index and one plot per claim), and records
// or checks the statuses (validation/status.json).
#pragma once

#include <string>
#include <vector>

namespace torsim {

int command_validate(const std::vector<std::string>& args);

}  // namespace torsim
