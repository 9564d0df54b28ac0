#include "models/messaging/datatype.hpp"

#include <algorithm>
#include <stdexcept>

namespace torsim::rt {

void Datatype::append(Bytes offset, Bytes length) {
  if (length <= 0) return;
  if (!blocks_.empty() && blocks_.back().offset + blocks_.back().length == offset)
    blocks_.back().length += length;
  else
    blocks_.push_back({offset, length});
  size_ += length;
}

void Datatype::append(const Datatype& type, Bytes offset) {
  for (const gpu::Block& b : type.blocks_) append(offset + b.offset, b.length);
}

void Datatype::close() {
  if (blocks_.empty()) return;
  Bytes lo = blocks_.front().offset, hi = lo;
  for (const gpu::Block& b : blocks_) {
    lo = std::min(lo, b.offset);
    hi = std::max(hi, b.offset + b.length);
  }
  lower_bound_ = lo;
  extent_ = hi - lo;
}

Datatype Datatype::basic(Bytes size) {
  if (size <= 0) throw std::logic_error("a basic datatype has a positive size");
  Datatype t;
  t.append(0, size);
  t.close();
  return t;
}

Datatype Datatype::contiguous(std::int64_t count, const Datatype& old) { return vector(count, 1, 1, old); }

Datatype Datatype::vector(std::int64_t count, std::int64_t block_length, std::int64_t stride, const Datatype& old) {
  Datatype t;
  for (std::int64_t i = 0; i < count; ++i)
    for (std::int64_t j = 0; j < block_length; ++j) t.append(old, (i * stride + j) * old.extent_);
  t.close();
  return t;
}

Datatype Datatype::indexed_block(std::int64_t block_length, const std::vector<std::int64_t>& displacements,
                                 const Datatype& old) {
  Datatype t;
  for (const std::int64_t d : displacements)
    for (std::int64_t j = 0; j < block_length; ++j) t.append(old, (d + j) * old.extent_);
  t.close();
  return t;
}

Datatype Datatype::structure(const std::vector<Member>& members) {
  Datatype t;
  for (const Member& m : members)
    for (std::int64_t j = 0; j < m.count; ++j) t.append(*m.type, m.displacement + j * m.type->extent_);
  t.close();
  return t;
}

// The box's rows along the fastest dimension are contiguous runs; the other dimensions are
// walked as an odometer, slowest outermost. The extent is the whole array's.
Datatype Datatype::subarray(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& subsizes,
                            const std::vector<std::int64_t>& starts, Order order, const Datatype& old) {
  const std::size_t n = sizes.size();
  if (n == 0 || subsizes.size() != n || starts.size() != n) throw std::logic_error("subarray dimensions differ");
  for (std::size_t d = 0; d < n; ++d)
    if (subsizes[d] <= 0 || starts[d] < 0 || starts[d] + subsizes[d] > sizes[d])
      throw std::logic_error("a subarray's box lies inside its array");
  std::vector<std::size_t> fastest_first(n);
  for (std::size_t d = 0; d < n; ++d) fastest_first[d] = order == Order::fortran ? d : n - 1 - d;
  std::vector<Bytes> stride(n);
  Bytes s = old.extent_;
  for (const std::size_t d : fastest_first) {
    stride[d] = s;
    s *= sizes[d];
  }
  Datatype t;
  std::vector<std::int64_t> index(n, 0);
  const std::size_t inner = fastest_first[0];
  for (;;) {
    Bytes offset = 0;
    for (std::size_t d = 0; d < n; ++d) offset += (starts[d] + index[d]) * stride[d];
    for (std::int64_t i = 0; i < subsizes[inner]; ++i) t.append(old, offset + i * old.extent_);
    std::size_t k = 1;
    for (; k < n; ++k) {
      const std::size_t d = fastest_first[k];
      if (++index[d] < subsizes[d]) break;
      index[d] = 0;
    }
    if (k == n) break;
  }
  t.lower_bound_ = 0;
  t.extent_ = s;
  return t;
}

gpu::Layout Datatype::layout(std::int64_t count) const {
  Datatype t;
  for (std::int64_t i = 0; i < count; ++i) t.append(*this, i * extent_);
  return gpu::Layout(std::move(t.blocks_));
}

}  // namespace torsim::rt
