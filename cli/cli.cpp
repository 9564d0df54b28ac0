#include "cli/cli.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>

#include "cli/bench.hpp"
#include "cli/describe.hpp"
#include "cli/merge.hpp"
#include "cli/plot.hpp"
#include "cli/reference.hpp"
#include "cli/run_command.hpp"
#include "cli/schema.hpp"
#include "cli/trace_info.hpp"
#include "cli/validate.hpp"
#include "run/interrupt.hpp"

namespace torsim {

namespace {

// Every command, in the order torsim --help lists them.
std::vector<const CommandSpec*> commands() {
  return {&run_command(),    &merge_command(),    &describe_command(), &trace_info_command(), &reference_command(),
          &schema_command(), &validate_command(), &bench_command(),    &plot_command()};
}

std::string overview() {
  std::string text = "torsim " TORSIM_VERSION " - a discrete-event simulator of HPC interconnects\n\nusage:\n";
  for (const auto* c : commands()) text += "  " + command_synopsis(*c) + "\n      " + std::string(c->summary) + "\n";
  return text + "\ntorsim COMMAND --help describes a command and each of its options.\n";
}

const CommandSpec* find_command(const std::string& name) {
  for (const auto* c : commands())
    if (c->name == name) return c;
  return nullptr;
}

// What a command printed must have reached its destination (a full disk behind a redirection).
int checked_stdout(int status) {
  if (!std::cout.flush()) throw InputError("standard output", "", "cannot write: " + std::string(std::strerror(errno)));
  return status;
}

int dispatch(const std::vector<std::string>& args) {
  handle_interrupts();  // an interrupted command says so, and its children end with it
  if (args.empty()) {
    std::cerr << overview();
    return 2;
  }
  if (args[0] == "--help" || args[0] == "-h" || (args[0] == "help" && args.size() == 1)) {
    std::cout << overview();
    return checked_stdout(0);
  }
  if (args[0] == "--version") {
    std::cout << "torsim " TORSIM_VERSION "\n";
    return checked_stdout(0);
  }
  const bool help = args[0] == "help";
  const std::string& name = help ? args[1] : args[0];
  const CommandSpec* command = find_command(name);
  if (!command) Where("command line", name).fail("unknown command '" + name + "' (torsim --help lists them)");
  const std::vector<std::string> rest(args.begin() + (help ? 2 : 1), args.end());
  if (help || asks_for_help(rest)) {
    std::cout << command_help(*command);
    return checked_stdout(0);
  }
  return checked_stdout(command->main(parse_args(*command, rest)));
}

}  // namespace

int run_cli(const std::vector<std::string>& args) {
  try {
    return dispatch(args);
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace torsim
