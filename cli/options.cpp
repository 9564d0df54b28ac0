#include "cli/options.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace torsim {

namespace {

std::size_t value_count(const OptionSpec& o) {
  if (o.value.empty()) return 0;
  return static_cast<std::size_t>(std::count(o.value.begin(), o.value.end(), ' ')) + 1;
}

bool looks_like_option(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

std::string option_list(const CommandSpec& command) {
  std::string list;
  for (const auto& o : command.options)
    list += (list.empty() ? "" : ", ") + std::string(o.name) + (o.value.empty() ? "" : " " + std::string(o.value));
  return list.empty() ? "none" : list;
}

const OptionSpec* find_option(const CommandSpec& command, std::string_view name) {
  for (const auto& o : command.options)
    if (o.name == name || (!o.alias.empty() && o.alias == name)) return &o;
  return nullptr;
}

[[noreturn]] void unknown_option(const CommandSpec& command, const std::string& arg) {
  std::vector<std::string_view> names;
  for (const auto& o : command.options) names.push_back(o.name);
  const std::string hint = closest_name(arg, names);
  Where("command line", arg)
      .fail(std::string(command.name) + " does not take " + arg +
            (hint.empty() ? "" : " (did you mean " + hint + "?)") + "; its options are: " + option_list(command) +
            " (torsim " + std::string(command.name) + " --help)");
}

// The values of `option` (given as `arg`, its inline "=value" already split off into `inline_value`).
std::vector<std::string> take_values(const OptionSpec& option, const std::string& arg,
                                     const std::vector<std::string>& args, std::size_t& i,
                                     const std::string* inline_value) {
  const std::size_t count = value_count(option);
  if (inline_value) {
    if (count != 1) Where("command line", arg).fail("expected " + std::string(option.name) + " without '='");
    return {*inline_value};
  }
  std::vector<std::string> values;
  for (std::size_t k = 0; k < count; ++k) {
    const bool negative_number = i + 1 < args.size() && std::isdigit(static_cast<unsigned char>(args[i + 1][1]));
    if (i + 1 >= args.size() || (looks_like_option(args[i + 1]) && !negative_number))
      Where("command line", arg)
          .fail("expected " + std::string(option.value) + " after " + std::string(option.name) +
                (i + 1 < args.size() ? ", got " + args[i + 1] : ""));
    values.push_back(args[++i]);
  }
  return values;
}

void check_operands(const CommandSpec& command, const std::vector<std::string>& operands) {
  const std::size_t n = operands.size();
  if (n >= command.min_operands && n <= command.max_operands) return;
  const Where where("command line", std::string(command.name));
  const std::string help = " (torsim " + std::string(command.name) + " --help)";
  if (command.max_operands == 0)
    where.fail(std::string(command.name) + " takes no operand, got '" + operands.front() + "'" + help);
  if (n > command.max_operands)
    where.fail("expected " + std::string(command.operands) + ", got " + std::to_string(n) + " operands (" +
               operands[command.max_operands] + " is one too many)" + help);
  where.fail("expected " + std::string(command.operands) + help);
}

}  // namespace

bool Args::given(std::string_view option) const {
  return std::any_of(options_.begin(), options_.end(), [&](const auto& o) { return o.first == option; });
}

std::string Args::value(std::string_view option, std::string fallback) const {
  for (const auto& [name, values] : options_)
    if (name == option && !values.empty()) return values.front();
  return fallback;
}

std::vector<std::string> Args::values(std::string_view option) const {
  std::vector<std::string> out;
  for (const auto& [name, values] : options_)
    if (name == option) out.insert(out.end(), values.begin(), values.end());
  return out;
}

Where Args::where(std::string_view option) const {
  std::string text(option);
  for (const auto& value : values(option)) text += " " + value;
  return Where("command line", text);
}

Args parse_args(const CommandSpec& command, const std::vector<std::string>& args) {
  Args parsed;
  bool only_operands = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_operands || !looks_like_option(arg)) {
      parsed.operands_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_operands = true;
      continue;
    }
    const auto equals = arg.find('=');
    const std::string name = arg.rfind("--", 0) == 0 ? arg.substr(0, equals) : arg;
    const std::string inline_value = equals == std::string::npos ? "" : arg.substr(equals + 1);
    const OptionSpec* option = find_option(command, name);
    if (!option) unknown_option(command, name);
    if (!option->repeatable && parsed.given(option->name))
      Where("command line", name)
          .fail("given twice; " + std::string(command.name) + " takes " + std::string(option->name) + " once");
    const bool has_inline = name.size() != arg.size();
    auto values = take_values(*option, name, args, i, has_inline ? &inline_value : nullptr);
    parsed.options_.emplace_back(std::string(option->name), std::move(values));
  }
  check_operands(command, parsed.operands_);
  return parsed;
}

bool asks_for_help(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--") return false;
    if (arg == "--help" || arg == "-h") return true;
  }
  return false;
}

std::string command_synopsis(const CommandSpec& command) {
  std::string line = "torsim " + std::string(command.name);
  if (!command.operands.empty()) line += " " + std::string(command.operands);
  for (const auto& o : command.options)
    line += " [" + std::string(o.name) + (o.value.empty() ? "" : " " + std::string(o.value)) + "]" +
            (o.repeatable ? "..." : "");
  return line;
}

std::string command_help(const CommandSpec& command) {
  std::ostringstream out;
  out << "usage: torsim " << command.name << (command.operands.empty() ? "" : " ") << command.operands
      << (command.options.empty() ? "" : " [options]") << "\n\n"
      << command.description << "\n\noptions:\n";
  std::vector<std::string> left;
  for (const auto& o : command.options)
    left.push_back((o.alias.empty() ? "" : std::string(o.alias) + ", ") + std::string(o.name) +
                   (o.value.empty() ? "" : " " + std::string(o.value)));
  left.push_back("-h, --help");
  std::size_t width = 0;
  for (const auto& l : left) width = std::max(width, l.size());
  for (std::size_t k = 0; k < left.size(); ++k) {
    const bool help = k == command.options.size();
    std::string text = help ? "this help" : std::string(command.options[k].help);
    if (!help && command.options[k].repeatable) text += " (may be repeated)";
    out << "  " << left[k] << std::string(width - left[k].size() + 3, ' ') << text << "\n";
  }
  return out.str();
}

}  // namespace torsim
