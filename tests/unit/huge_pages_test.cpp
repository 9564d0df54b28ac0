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
  for (std::size_t i = 1; i < sorted.size(); ++i)
    REQUIRE(sorted[i - 1].first + sorted[i - 1].second <= sorted[i].first);
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

TEST_CASE("recycled blocks come back by size and keep what is written", "[huge_pages]") {
  // Sizes of one class (65-128 bytes) share a free list; the last released is the next given.
  void* a = allocate_recycled(100);
  void* b = allocate_recycled(70);
  CHECK(a != b);
  std::memset(a, 1, 100);
  std::memset(b, 2, 70);
  CHECK(static_cast<unsigned char*>(a)[99] == 1);
  release_recycled(a, 100);
  void* again = allocate_recycled(128);
  if (kHugePages) CHECK(again == a);  // without huge pages: operator new throughout
  release_recycled(again, 128);
  void* large = allocate_recycled(kLargestRecycled + 1);  // past the largest class: operator new
  std::memset(large, 3, kLargestRecycled + 1);
  release_recycled(large, kLargestRecycled + 1);
  release_recycled(b, 70);
}

TEST_CASE("a vector on recycled blocks grows and shrinks as a plain one would", "[huge_pages]") {
  std::vector<int, RecycledAllocator<int>> recycled;
  std::vector<int> reference;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 5000; ++i) {
      recycled.push_back(i * round);
      reference.push_back(i * round);
    }
    REQUIRE(std::equal(recycled.begin(), recycled.end(), reference.begin(), reference.end()));
    recycled.erase(recycled.begin(), recycled.begin() + 4000);
    reference.erase(reference.begin(), reference.begin() + 4000);
    recycled.shrink_to_fit();
  }
  CHECK(std::equal(recycled.begin(), recycled.end(), reference.begin(), reference.end()));
}
