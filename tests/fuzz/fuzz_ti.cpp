// libFuzzer target: the time-independent trace reader (tests/fuzz/targets.hpp).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  torsim::fuzz::read_ti({reinterpret_cast<const char*>(data), size});
  return 0;
}
