#include <algorithm>

#include "sim/config/registry.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/switched.hpp"
#include "topologies/torus.hpp"

namespace torsim::topo {

namespace {

struct Factory {
  TopologyEntry entry;
  std::unique_ptr<Topology> (*make)(const ParamReader&, const NodeLinks&);
};

const std::vector<Factory>& factories() {
  static const std::vector<Factory> list{
      {{"torus", "n-dimensional torus, per-dimension size, bandwidth, latency, multiplicity", &kTorusParams},
       make_torus},
      {{"mesh", "n-dimensional mesh: a torus without wrap-around links by default", &kMeshParams}, make_torus},
      {{"fat_tree", "fat tree of crossbars, two or three levels, 1 or 2 rails, subnet-manager routing",
        &kFatTreeParams},
       make_fat_tree},
      {{"crossbar", "a single switch", &kCrossbarParams}, make_crossbar},
  };
  return list;
}

}  // namespace

const std::vector<TopologyEntry>& topology_types() {
  static const std::vector<TopologyEntry> entries = [] {
    std::vector<TopologyEntry> out;
    for (const auto& f : factories()) out.push_back(f.entry);
    out.push_back({"torus dims", "one dimension of a torus or mesh", &kTorusDimParams});
    out.push_back({"fat_tree levels", "one switch level of a fat tree", &kFatTreeLevelParams});
    return out;
  }();
  return entries;
}

std::unique_ptr<Topology> make_topology(const Json& spec, const Where& where, const NodeLinks& node_links) {
  std::string valid;
  for (const auto& f : factories()) valid += (valid.empty() ? "" : ", ") + std::string(f.entry.type);
  if (!spec.is_object())
    where.fail("expected a topology object such as {\"type\": \"torus\", ...}, got " + preview(spec));
  if (!spec.contains("type")) where.fail("missing required key 'type'; valid values are: " + valid);
  if (!spec["type"].is_string()) (where / "type").fail("expected one of " + valid + ", got " + preview(spec["type"]));
  const auto type = spec["type"].get<std::string>();
  const Factory& factory =
      find_entry(factories(), type, "topology type", where / "type", [](const Factory& f) { return f.entry.type; });
  return factory.make(ParamReader(spec, where, *factory.entry.params), node_links);
}

}  // namespace torsim::topo
