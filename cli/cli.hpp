// The torsim command line. main() only calls run_cli(); errors become exit codes here:
// 0 success, 1 internal error, 2 bad input or usage. Each command declares its operands and
// options once, in its CommandSpec (cli/options.hpp), and is listed in commands() (cli.cpp).
#pragma once

#include <string>
#include <vector>

namespace torsim {

int run_cli(const std::vector<std::string>& args);

}  // namespace torsim
