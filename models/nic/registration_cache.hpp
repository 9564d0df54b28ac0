// Memory registration, as every NIC model with RDMA charges it: a call that pins a buffer's
// pages (a fixed cost and a cost per page), and a per-rank cache of the buffers already
// registered, so that a buffer used again costs nothing. The NICs differ only in the cache's
// capacity: Gemini's and VIA's keep every buffer, an InfiniBand HCA's keeps a bounded number
// and deregisters the least recently used.
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

#include "models/node/cores.hpp"
#include "sim/core/time.hpp"

namespace torsim::nic {

using node::Rank;

/// CPU time of one registration call of `bytes`: `per_call` plus `per_page` for each page
/// (at least one) of `page_size`.
Time registration_cost(Time per_call, Time per_page, Bytes page_size, Bytes bytes);

class RegistrationCache {
 public:
  /// `capacity`: buffers kept registered per rank, the least recently used leaving first;
  /// 0: no limit.
  RegistrationCache(int ranks, std::int64_t capacity);
  /// True if rank r's cache holds `buffer` (now its most recently used); otherwise registers
  /// it now, evicting the least recently used one if the cache is full, and false.
  bool holds(Rank r, std::uint64_t buffer);

 private:
  struct PerRank {
    std::list<std::uint64_t> order;  // most recently used first
    std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where;
  };
  std::vector<PerRank> ranks_;
  std::size_t capacity_;
};

}  // namespace torsim::nic
