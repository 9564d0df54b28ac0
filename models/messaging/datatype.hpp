// MPI derived datatypes, expanded into the contiguous blocks they cover (their type map,
// flattened): what a pack or unpack kernel walks (models/gpu/pack.hpp).
//
// Constructors follow the MPI standard (MPI 3.1, chapter 4): a type's blocks are listed in
// type-map order with byte offsets from the buffer's start; adjacent blocks that touch are
// merged, as MPI implementations flatten type maps. Extents follow the standard too: a
// basic type's is its size; a vector's and an indexed type's run from the lowest to the
// highest byte covered; a subarray's is the whole array; count > 1 repeats a type at its
// extent.
#pragma once

#include <cstdint>
#include <vector>

#include "models/gpu/pack.hpp"

namespace torsim::rt {

class Datatype {
 public:
  /// A basic type of `size` bytes (MPI_FLOAT: 4, MPI_DOUBLE: 8).
  static Datatype basic(Bytes size);
  /// MPI_Type_contiguous.
  static Datatype contiguous(std::int64_t count, const Datatype& old);
  /// MPI_Type_vector: `count` blocks of `block_length` old types, `stride` old extents apart.
  static Datatype vector(std::int64_t count, std::int64_t block_length, std::int64_t stride, const Datatype& old);
  /// MPI_Type_create_indexed_block: blocks of `block_length` at `displacements` (in old extents).
  static Datatype indexed_block(std::int64_t block_length, const std::vector<std::int64_t>& displacements,
                                const Datatype& old);
  struct Member {
    std::int64_t count = 1;
    Bytes displacement = 0;  // bytes
    const Datatype* type = nullptr;
  };
  /// MPI_Type_create_struct.
  static Datatype structure(const std::vector<Member>& members);
  enum class Order { c, fortran };
  /// MPI_Type_create_subarray: the `subsizes` box at `starts` of an array of `sizes`.
  static Datatype subarray(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& subsizes,
                           const std::vector<std::int64_t>& starts, Order order, const Datatype& old);

  /// Bytes of data (MPI_Type_size).
  Bytes size() const { return size_; }
  Bytes lower_bound() const { return lower_bound_; }
  Bytes extent() const { return extent_; }
  const std::vector<gpu::Block>& blocks() const { return blocks_; }
  /// The blocks of `count` of these, from the buffer's start (offsets are not negative).
  gpu::Layout layout(std::int64_t count = 1) const;

 private:
  Datatype() = default;
  /// Appends a block, merging it with the last one when they touch.
  void append(Bytes offset, Bytes length);
  /// Appends `type`'s blocks shifted by `offset`.
  void append(const Datatype& type, Bytes offset);
  /// Sets size, and lower bound and extent from the blocks (true lower and upper bounds).
  void close();

  std::vector<gpu::Block> blocks_;
  Bytes size_ = 0;
  Bytes lower_bound_ = 0;
  Bytes extent_ = 0;
};

}  // namespace torsim::rt
