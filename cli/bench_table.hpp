// `torsim bench --markdown`: the benchmark's figures as rows of docs/performance.md's tables,
// so that refreshing the page is a paste.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace torsim {

/// "97 % of a core": a measurement's CPU time over its wall time.
std::string percent_of_a_core(const nlohmann::json& core_share);

/// Prints the table rows for every section `results` holds (the JSON `torsim bench --json`
/// writes); `command` is the command line that measured them, for the rows' last column.
void print_performance_rows(const nlohmann::json& results, const std::string& command, std::ostream& out);

}  // namespace torsim
