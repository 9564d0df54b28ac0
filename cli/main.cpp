#include "cli/cli.hpp"

int main(int argc, char** argv) { return torsim::run_cli(std::vector<std::string>(argv + 1, argv + argc)); }
