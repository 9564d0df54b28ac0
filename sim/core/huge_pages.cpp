#include "sim/core/huge_pages.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace torsim {

namespace {
std::size_t whole_pages(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
}  // namespace

// mmap aligns to small pages only: map a huge page more and unmap what lies outside the
// aligned range, so that every 2 MiB of it can be one huge page.
void* map_huge(std::size_t bytes) {
  const std::size_t size = whole_pages(bytes);
  if constexpr (!kHugePages) return ::operator new (size, std::align_val_t{kHugePage});
  void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) ::munmap(raw, aligned - start);
  if (const std::size_t tail = start + kHugePage - aligned; tail > 0)
    ::munmap(reinterpret_cast<void*>(aligned + size), tail);
#ifdef MADV_HUGEPAGE
  ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // a hint: failure is harmless
#endif
  return reinterpret_cast<void*>(aligned);
}

void unmap_huge(void* memory, std::size_t bytes) noexcept {
  if constexpr (!kHugePages) return ::operator delete (memory, std::align_val_t{kHugePage});
  ::munmap(memory, whole_pages(bytes));
}

HugePageArena::~HugePageArena() {
  for (const Chunk& chunk : chunks_) {
    if (kHugePages)
      unmap_huge(chunk.memory, chunk.bytes);
    else
      ::operator delete (chunk.memory, std::align_val_t{chunk.alignment});
  }
}

// A block larger than a chunk's worth gets a chunk of its own; the room left in the current
// chunk is kept for the next smaller blocks.
void* HugePageArena::allocate(std::size_t bytes, std::size_t alignment) {
  if constexpr (!kHugePages) {
    chunks_.push_back({::operator new (bytes, std::align_val_t{alignment}), bytes, alignment});
    return chunks_.back().memory;
  }
  const auto aligned_next = [&] {
    const auto at = reinterpret_cast<std::uintptr_t>(next_);
    return reinterpret_cast<char*>((at + alignment - 1) / alignment * alignment);
  };
  if (next_ && aligned_next() + bytes <= end_) {
    char* block = aligned_next();
    next_ = block + bytes;
    return block;
  }
  constexpr std::size_t kChunk = kHugePage;  // one page: a small simulation maps little
  if (bytes > kChunk / 2) {
    void* own = map_huge(bytes);
    chunks_.push_back({own, bytes, 0});
    return own;
  }
  chunks_.push_back({map_huge(kChunk), kChunk, 0});
  next_ = static_cast<char*>(chunks_.back().memory) + bytes;
  end_ = static_cast<char*>(chunks_.back().memory) + kChunk;
  return chunks_.back().memory;
}

namespace {
constexpr std::size_t kSmallestRecycled = 64;
std::size_t size_class(std::size_t bytes) {
  return static_cast<std::size_t>(std::bit_width(std::max(bytes, kSmallestRecycled) - 1));
}
struct Recycled {
  HugePageArena arena;
  std::vector<void*> free[64];
};
// Never destroyed: a static object's destructor may still give a block back.
Recycled& recycled() {
  static Recycled& r = *new Recycled;
  return r;
}
}  // namespace

void* allocate_recycled(std::size_t bytes) {
  if (!kHugePages || bytes > kLargestRecycled) return ::operator new(bytes);
  const std::size_t k = size_class(bytes);
  auto& list = recycled().free[k];
  if (list.empty()) return recycled().arena.allocate(std::size_t{1} << k, kSmallestRecycled);
  void* block = list.back();
  list.pop_back();
  return block;
}

void release_recycled(void* block, std::size_t bytes) noexcept {
  if (!kHugePages || bytes > kLargestRecycled) return ::operator delete(block);
  recycled().free[size_class(bytes)].push_back(block);
}

}  // namespace torsim
