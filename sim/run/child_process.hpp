// Runs a piece of work in a forked child process and brings its JSON result back: for
// backends that allow one simulation per process (SimGrid), and for benchmarks that should
// each start from a fresh heap rather than from what earlier measurements left behind.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace torsim {

using Json = nlohmann::json;

/// Runs `work` in a child and returns what it returned (doubles round-trip exactly). An
/// exception in the child is rethrown here as std::runtime_error with its message; a child
/// that dies is reported with `what` ("the simgrid backend", say) and its exit status.
Json run_in_child_process(const std::function<Json()>& work, const std::string& what);

}  // namespace torsim
