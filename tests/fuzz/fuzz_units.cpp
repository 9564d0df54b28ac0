// libFuzzer target: the units parser (tests/fuzz/targets.hpp).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  torsim::fuzz::parse_units({reinterpret_cast<const char*>(data), size});
  return 0;
}
