#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "sim/core/huge_pages.hpp"

using namespace torsim;

namespace {
std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
}  // namespace

TEST_CASE("map_huge gives writable memory on a huge-page boundary", "[huge_pages]") {
  for (const std::size_t bytes : {std::size_t{1}, kHugePage, kHugePage + 1, 3 * kHugePage}) {
    void* memory = map_huge(bytes);
    CHECK(address(memory) % kHugePage == 0);
    std::memset(memory, 0xab, bytes);  // every byte asked for is there
    CHECK(static_cast<unsigned char*>(memory)[bytes - 1] == 0xab);
    unmap_huge(memory, bytes);
  }
}

TEST_CASE("an arena's blocks are aligned, disjoint and keep what is written", "[huge_pages]") {
  // Blocks of mixed sizes, some larger than a chunk's half (a chunk of their own): each is
  // filled with its own byte, and every byte is checked once all of them are written.
  HugePageArena arena;
  std::vector<std::pair<unsigned char*, std::size_t>> blocks;
  std::uint64_t state = 99;
  for (int i = 0; i < 3000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const std::size_t bytes = i % 1000 == 999 ? 5 * kHugePage : 1 + (state >> 33) % 5000;
    const std::size_t alignment = i % 3 == 0 ? 64 : 16;
    auto* block = static_cast<unsigned char*>(arena.allocate(bytes, alignment));
    REQUIRE(address(block) % alignment == 0);
    std::memset(block, i & 0xff, bytes);
    blocks.emplace_back(block, bytes);
  }
  std::vector<std::pair<unsigned char*, std::size_t>> sorted = blocks;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i) REQUIRE(sorted[i - 1].first + sorted[i - 1].second <= sorted[i].first);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto [block, bytes] = blocks[i];
    REQUIRE(std::all_of(block, block + bytes, [i](unsigned char b) { return b == (i & 0xff); }));
  }
}

TEST_CASE("a vector on huge pages grows past a huge page as a plain one would", "[huge_pages]") {
  std::vector<std::uint64_t, HugePageAllocator<std::uint64_t>> big;
  std::vector<std::uint64_t> reference;
  for (std::uint64_t i = 0; i < 3 * kHugePage / sizeof(std::uint64_t); ++i) {
    big.push_back(i * 2654435761u);
    reference.push_back(i * 2654435761u);
  }
  CHECK(HugePageAllocator<std::uint64_t>::mapped(big.capacity()) == kHugePages);  // operator new under ASan
  if (kHugePages) CHECK(address(big.data()) % kHugePage == 0);
  CHECK(std::equal(big.begin(), big.end(), reference.begin(), reference.end()));
  big.resize(10);
  big.shrink_to_fit();  // back below a huge page: operator new again
  CHECK(std::equal(big.begin(), big.end(), reference.begin()));
}
