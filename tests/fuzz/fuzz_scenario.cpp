// libFuzzer target: the scenario loader (tests/fuzz/targets.hpp).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  torsim::fuzz::load_scenario({reinterpret_cast<const char*>(data), size});
  return 0;
}
