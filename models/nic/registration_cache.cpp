#include "models/nic/registration_cache.hpp"

#include <algorithm>

namespace torsim::nic {

Time registration_cost(Time per_call, Time per_page, Bytes page_size, Bytes bytes) {
  const std::int64_t pages = std::max<std::int64_t>(1, (bytes + page_size - 1) / page_size);
  return per_call + pages * per_page;
}

RegistrationCache::RegistrationCache(int ranks, std::int64_t capacity)
    : ranks_(static_cast<std::size_t>(ranks)), capacity_(static_cast<std::size_t>(capacity)) {}

bool RegistrationCache::holds(Rank r, std::uint64_t buffer) {
  PerRank& cache = ranks_[static_cast<std::size_t>(r)];
  if (const auto hit = cache.where.find(buffer); hit != cache.where.end()) {
    cache.order.splice(cache.order.begin(), cache.order, hit->second);
    return true;
  }
  cache.order.push_front(buffer);
  cache.where[buffer] = cache.order.begin();
  if (capacity_ > 0 && cache.order.size() > capacity_) {
    cache.where.erase(cache.order.back());
    cache.order.pop_back();
  }
  return false;
}

}  // namespace torsim::nic
