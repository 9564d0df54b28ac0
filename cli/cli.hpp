// The torsim command line. main() only calls run_cli(); errors become exit codes here:
// 0 success, 1 internal error, 2 bad input or usage.
#pragma once

#include <string>
#include <vector>

namespace torsim {

int run_cli(const std::vector<std::string>& args);

/// A subcommand: name, one-line summary, and its entry point (arguments after the name).
struct Command {
  std::string name;
  std::string summary;
  int (*main)(const std::vector<std::string>& args);
};
/// Subcommands other modules add (validate, bench), listed in --help.
std::vector<Command>& extra_commands();

}  // namespace torsim
