// Pack and unpack kernels of non-contiguous data on a GPU: what one asks of the device, from
// the layout of the data it moves.
//
// A layout is the list of contiguous blocks an MPI datatype covers, in the order the type map
// packs them (models/messaging/datatype.hpp expands datatypes into one). A pack kernel gathers
// them into a contiguous buffer; an unpack kernel scatters them back. The generic datatype
// kernels of CUDA-aware MPI libraries run one thread per element of every block, and read the
// layout's block list (offset and length per block) from device memory (MVAPICH2 2.2,
// src/mpid/ch3/channels/mrail/src/cuda/pack_unpack.cu; MVAPICH2-GDR user guide, section 13).
// A kernel's work is then:
//  - threads: the packed bytes over the element size (the widest of 8, 4, 1 bytes that divides
//    every block's offset and length, as those kernels choose their word);
//  - DRAM traffic, in whole sectors (a GPU's memory transactions move aligned sectors, 32 B
//    on Kepler: CUDA C Programming Guide, compute capability 3.x, global memory): the sectors
//    the blocks touch on the non-contiguous side (a sector shared with the previous block
//    counts once: it is still in L2), the sectors of the contiguous side, and the block list.
// How long that takes on a device, alone or beside other kernels, is the device's business
// (models/gpu/device.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"

namespace torsim::gpu {

struct Block {
  Bytes offset = 0;  // from the start of the buffer
  Bytes length = 0;
};

/// The contiguous blocks of a datatype, in packing order, with their packed positions.
class Layout {
 public:
  Layout() = default;
  explicit Layout(std::vector<Block> blocks);
  const std::vector<Block>& blocks() const { return blocks_; }
  std::size_t block_count() const { return blocks_.size(); }
  Bytes bytes() const { return packed_.empty() ? 0 : packed_.back(); }
  /// The widest element (8, 4 or 1 B) dividing every block's offset and length.
  Bytes element() const { return element_; }
  /// Packed position of the start of block i (i == block_count(): bytes()).
  Bytes packed_offset(std::size_t i) const { return i == 0 ? 0 : packed_[i - 1]; }
  /// The block holding packed byte `offset` (offset < bytes()).
  std::size_t block_at(Bytes offset) const;

 private:
  std::vector<Block> blocks_;
  std::vector<Bytes> packed_;  // packed end of each block
  Bytes element_ = 8;
};

/// What a kernel asks of the GPU.
struct KernelWork {
  std::int64_t threads = 0;
  Bytes traffic = 0;  // DRAM bytes read and written, whole sectors
  bool operator==(const KernelWork&) const = default;
};

struct PackCosts {
  Bytes sector = 32;      // DRAM transaction size
  Bytes block_entry = 8;  // bytes of the block list read per block (offset and length)
};

/// The kernel that packs (or unpacks: the same traffic the other way) packed bytes
/// [from, to) of `layout`.
KernelWork pack_work(const Layout& layout, Bytes from, Bytes to, const PackCosts& costs);
inline KernelWork pack_work(const Layout& layout, const PackCosts& costs) {
  return pack_work(layout, 0, layout.bytes(), costs);
}

/// Sectors of `sector` bytes that [offset, offset + length) touches.
std::int64_t sectors_touched(Bytes offset, Bytes length, Bytes sector);

}  // namespace torsim::gpu
