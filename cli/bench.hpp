// `torsim bench`: the shipped speed benchmark (figures recorded in docs/performance.md).
#pragma once

#include <string>
#include <vector>

namespace torsim {

int command_bench(const std::vector<std::string>& args);

}  // namespace torsim
