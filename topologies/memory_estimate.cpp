#include "topologies/memory_estimate.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

namespace torsim::topo {

namespace {

std::string gibibytes(std::int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(bytes) / static_cast<double>(1LL << 30));
  return text;
}

}  // namespace

std::int64_t estimated_run_bytes(std::int64_t network_links, std::int64_t nodes) {
  return (std::int64_t{40} << 20) + 400 * network_links + 800 * nodes;
}

void check_fits_in_memory(const std::string& what, std::int64_t network_links, std::int64_t nodes, const Where& where) {
  const std::int64_t needed = estimated_run_bytes(network_links, nodes);
  std::int64_t usable = static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  std::string limit = "the computer's physical memory";
  if (rlimit as{}; getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY &&
                   static_cast<std::int64_t>(as.rlim_cur) < usable) {
    usable = static_cast<std::int64_t>(as.rlim_cur);
    limit = "the address-space limit (ulimit -v)";
  }
  if (usable <= 0 || needed <= usable) return;
  where.fail(what + " needs about " + gibibytes(needed) + " of memory to run (estimated: 400 B per network link, " +
             "800 B per node; " + std::to_string(network_links) + " links, " + std::to_string(nodes) + " nodes); " +
             limit + " is " + gibibytes(usable) + ": expected a machine that fits");
}

}  // namespace torsim::topo
