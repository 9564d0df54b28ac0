#include "models/gpu/pack.hpp"

#include <algorithm>
#include <stdexcept>

namespace torsim::gpu {

namespace {

Bytes widest_element(const std::vector<Block>& blocks) {
  Bytes common = 0;
  for (const Block& b : blocks) common |= b.offset | b.length;
  for (const Bytes e : {8, 4}) {
    if (common % e == 0) return e;
  }
  return 1;
}

}  // namespace

Layout::Layout(std::vector<Block> blocks) : blocks_(std::move(blocks)), element_(widest_element(blocks_)) {
  packed_.reserve(blocks_.size());
  Bytes end = 0;
  for (const Block& b : blocks_) {
    if (b.length <= 0 || b.offset < 0) throw std::logic_error("a layout's blocks have a positive length");
    packed_.push_back(end += b.length);
  }
}

std::size_t Layout::block_at(Bytes offset) const {
  return static_cast<std::size_t>(std::upper_bound(packed_.begin(), packed_.end(), offset) - packed_.begin());
}

std::int64_t sectors_touched(Bytes offset, Bytes length, Bytes sector) {
  if (length <= 0) return 0;
  return (offset + length - 1) / sector - offset / sector + 1;
}

KernelWork pack_work(const Layout& layout, Bytes from, Bytes to, const PackCosts& costs) {
  KernelWork work;
  if (to <= from) return work;
  work.threads = (to - from + layout.element() - 1) / layout.element();
  const std::size_t first = layout.block_at(from), last = layout.block_at(to - 1);
  std::int64_t sectors = sectors_touched(from, to - from, costs.sector);  // the packed side
  std::int64_t previous_sector = -1;
  for (std::size_t i = first; i <= last; ++i) {
    const Block& b = layout.blocks()[i];
    const Bytes begin = std::max(from, layout.packed_offset(i)) - layout.packed_offset(i);
    const Bytes end = std::min(to, layout.packed_offset(i + 1)) - layout.packed_offset(i);
    const Bytes offset = b.offset + begin;
    sectors += sectors_touched(offset, end - begin, costs.sector);
    if (offset / costs.sector == previous_sector) --sectors;  // still in L2
    previous_sector = (offset + end - begin - 1) / costs.sector;
  }
  const auto blocks = static_cast<Bytes>(last - first + 1);
  work.traffic = sectors * costs.sector + blocks * costs.block_entry;
  return work;
}

}  // namespace torsim::gpu
