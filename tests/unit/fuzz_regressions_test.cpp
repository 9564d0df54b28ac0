// Every input a fuzzer once crashed on (tests/fuzz/regressions/<target>/), replayed through the
// same entry points as the fuzzers: a bug that comes back aborts this test, in every build.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fuzz/targets.hpp"

namespace {

std::vector<std::filesystem::path> regressions(const char* target) {
  std::vector<std::filesystem::path> files;
  const auto dir = std::filesystem::path(TORSIM_SOURCE_DIR) / "tests" / "fuzz" / "regressions" / target;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename() != "README.md") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string content(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("fuzz regressions: scenario loader") {
  for (const auto& file : regressions("scenario")) {
    std::fprintf(stderr, "replaying %s\n", file.c_str());  // an abort shows which input
    torsim::fuzz::load_scenario(content(file));
  }
}

TEST_CASE("fuzz regressions: units parser") {
  for (const auto& file : regressions("units")) {
    std::fprintf(stderr, "replaying %s\n", file.c_str());
    torsim::fuzz::parse_units(content(file));
  }
}

TEST_CASE("fuzz regressions: DUMPI reader") {
  for (const auto& file : regressions("dumpi")) {
    std::fprintf(stderr, "replaying %s\n", file.c_str());
    torsim::fuzz::read_dumpi(content(file));
  }
}

TEST_CASE("fuzz regressions: time-independent reader") {
  for (const auto& file : regressions("ti")) {
    std::fprintf(stderr, "replaying %s\n", file.c_str());
    torsim::fuzz::read_ti(content(file));
  }
}
