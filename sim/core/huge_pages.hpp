// Memory for the simulator's large pools, backed by transparent huge pages where the kernel
// gives them on request (madvise mode). A large run touches hundreds of megabytes of records,
// timelines and frames at random: with 4 KiB pages nearly every such access also misses the
// TLB, and its page walk waits on memory too. A 2 MiB page takes that walk off most of them.
// Only where the memory goes changes, never what is stored: outputs are the same either way.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace torsim {

inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// Under AddressSanitizer every block comes from operator new, which it checks (bounds, use
// after free); it does not check mapped memory. Same outputs either way.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kHugePages = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kHugePages = false;
#else
inline constexpr bool kHugePages = true;
#endif
#else
inline constexpr bool kHugePages = true;
#endif

/// `bytes` rounded up to whole huge pages, mapped at a huge-page boundary and advised to be
/// backed by huge pages (a hint: the kernel may still use small ones). Throws std::bad_alloc.
void* map_huge(std::size_t bytes);
/// Unmaps what map_huge(bytes) returned.
void unmap_huge(void* memory, std::size_t bytes) noexcept;

/// A standard allocator that maps allocations of at least a huge page on their own huge pages
/// (a large vector: records addressed by index) and leaves smaller ones to operator new.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
  static bool mapped(std::size_t n) { return kHugePages && n * sizeof(T) >= kHugePage; }
  T* allocate(std::size_t n) {
    if (mapped(n)) return static_cast<T*>(map_huge(n * sizeof(T)));
    return std::allocator<T>{}.allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (mapped(n)) return unmap_huge(p, n * sizeof(T));
    std::allocator<T>{}.deallocate(p, n);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

/// Blocks carved one after the other from huge-page chunks, for pools that recycle their
/// blocks through free lists of their own and never give one back: it frees its chunks only
/// when destroyed. Blocks are aligned to `alignment` (at most a huge page). Without huge
/// pages (kHugePages false) each block is an operator new of its own.
class HugePageArena {
 public:
  HugePageArena() = default;
  HugePageArena(const HugePageArena&) = delete;
  HugePageArena& operator=(const HugePageArena&) = delete;
  ~HugePageArena();
  void* allocate(std::size_t bytes, std::size_t alignment);

 private:
  struct Chunk {
    void* memory;
    std::size_t bytes;
    std::size_t alignment;  // of an operator new block (kHugePages false)
  };
  std::vector<Chunk> chunks_;
  char* next_ = nullptr;  // free room in the last chunk: [next_, end_)
  char* end_ = nullptr;
};

/// Blocks of up to kLargestRecycled bytes, rounded up to powers of two from 64 bytes, carved
/// from huge-page chunks and recycled through a free list per size; larger ones go to
/// operator new. For the many small arrays a large run grows and shrinks (a rank's queues),
/// touched at random like the pools'. Without huge pages, operator new throughout.
void* allocate_recycled(std::size_t bytes);
void release_recycled(void* block, std::size_t bytes) noexcept;
inline constexpr std::size_t kLargestRecycled = std::size_t{1} << 20;

/// A standard allocator over allocate_recycled().
template <class T>
struct RecycledAllocator {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "blocks are aligned as operator new's");
  using value_type = T;
  RecycledAllocator() = default;
  template <class U>
  RecycledAllocator(const RecycledAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_recycled(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { release_recycled(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const RecycledAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace torsim
