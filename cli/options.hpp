// The command line of every command, declared once. A command's table of options gives its
// parsing, the rejection of everything else (an option it does not take, a missing value, an
// option given twice, operands it does not take: exit 2) and its --help.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/config/params.hpp"

namespace torsim {

struct OptionSpec {
  std::string_view name;        // "--out"
  std::string_view value;       // what follows, one word per value ("DIR", "SRC DST"); "" for a flag
  std::string_view help;        // one line for --help
  bool repeatable = false;      // may be given more than once (--set); the values are kept in order
  std::string_view alias = {};  // a short form ("-j")
};

class Args;

inline constexpr std::size_t kAnyNumber = std::numeric_limits<std::size_t>::max();

struct CommandSpec {
  std::string_view name;
  std::string_view operands;  // in the usage line: "FILE", "DIR...", "" for none
  std::size_t min_operands = 0;
  std::size_t max_operands = 0;  // kAnyNumber for no limit
  std::string_view summary;      // one line, in torsim --help
  std::string_view description;  // what torsim CMD --help says before the options
  std::vector<OptionSpec> options;
  int (*main)(const Args& args) = nullptr;
};

/// A command line parsed against its command's table.
class Args {
 public:
  const std::vector<std::string>& operands() const { return operands_; }
  bool given(std::string_view option) const;
  /// The value of an option that takes one, or `fallback` when it was not given.
  std::string value(std::string_view option, std::string fallback = "") const;
  /// Every value given for `option` (each use of a repeatable option, or the words of one that
  /// takes several), in order.
  std::vector<std::string> values(std::string_view option) const;
  /// The options as given, in order (name, values).
  const std::vector<std::pair<std::string, std::vector<std::string>>>& options() const { return options_; }
  /// Where an option's value sits, for errors: command line, "--out DIR".
  Where where(std::string_view option) const;

 private:
  friend Args parse_args(const CommandSpec& command, const std::vector<std::string>& args);
  std::vector<std::string> operands_;
  std::vector<std::pair<std::string, std::vector<std::string>>> options_;
};

/// Parses `args` (what follows the command's name); anything the table does not declare is an
/// InputError at the command line naming the argument.
Args parse_args(const CommandSpec& command, const std::vector<std::string>& args);
/// True when `args` asks for the command's help (-h or --help before any "--").
bool asks_for_help(const std::vector<std::string>& args);
/// `torsim CMD --help`: usage, description and one line per option.
std::string command_help(const CommandSpec& command);
/// The usage line: "torsim run FILE [--set path=value]... [--out DIR] ...".
std::string command_synopsis(const CommandSpec& command);

}  // namespace torsim
