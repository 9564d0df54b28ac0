#include "cli/describe.hpp"

#include <iostream>

#include "cli/provenance.hpp"
#include "run/scenario.hpp"
#include "run/simulation.hpp"

namespace torsim {

namespace {

// A machine whose every section is checked, including those only some messaging layers read.
Machine parse_checked(const Json& spec, const Where& where) {
  Machine machine = parse_machine(spec, where);
  rt::check_machine_calibration(machine);
  return machine;
}

// The machine object of a scenario file, a machine file or a preset name, expanded.
Json machine_json_for_describe(const std::string& what) {
  if (what.size() > 5 && what.ends_with(".json")) {
    const Json doc = read_json_file(what);
    if (doc.is_object() && doc.contains("workload")) return Scenario(what, {}).doc().at("machine");
    return doc;
  }
  return load_preset(what, Where("command line", "describe " + what)).machine;
}

// A scenario file, a machine file, or a preset name.
Machine load_machine_for_describe(const std::string& what) {
  if (what.size() > 5 && what.ends_with(".json")) {
    const Json doc = read_json_file(what);
    if (doc.is_object() && doc.contains("workload")) {
      const Scenario scenario(what, {});
      try {
        return parse_checked(scenario.doc().at("machine"), Where(scenario.file()) / "machine");
      } catch (const InputError& e) {
        scenario.reraise(e);
      }
    }
    return parse_checked(doc, Where(what));
  }
  const ExpandedPreset preset = load_preset(what, Where("command line", "describe " + what));
  try {
    return parse_checked(preset.machine, Where(preset.layers.front().first));
  } catch (const InputError& e) {
    if (e.file() != preset.layers.front().first) throw;
    throw InputError(preset.file_of(e.path()), e.path(), e.message());
  }
}

Json route_json(const Machine& m, topo::NodeId src, topo::NodeId dst) {
  const auto& t = *m.topology;
  std::vector<topo::LinkId> route;
  t.route(src, dst, route);
  Json hops = Json::array();
  Time latency = m.node.nic_latency;
  Rate bottleneck = 0;
  auto vertex_label = [&](std::int32_t v) {
    return v < t.router_count() ? "router " + std::to_string(v) : "node " + t.node_label(v - t.router_count());
  };
  for (auto l : route) {
    const auto& link = t.link(l);
    latency += link.latency;
    bottleneck = bottleneck == 0 ? link.bandwidth : std::min(bottleneck, link.bandwidth);
    hops.push_back({{"link", l},
                    {"from", vertex_label(link.from)},
                    {"to", vertex_label(link.to)},
                    {"dim", link.dim},
                    {"direction", link.direction},
                    {"bandwidth", format_rate(link.bandwidth)},
                    {"latency", format_time(link.latency)}});
  }
  return {{"src", src},
          {"dst", dst},
          {"router_hops", t.hops(src, dst)},
          {"links", hops},
          {"zero_load_latency_ns", static_cast<double>(latency) / kNanosecond},
          {"bottleneck_bandwidth", bottleneck ? format_rate(bottleneck) : "memcpy"}};
}

// Where node `n` sits: its router and its place there (on a torus the router's coordinates,
// dimension 0 first, and the node's slot: node n is on router n / concentration, slot n %
// concentration, and router r's coordinate in dimension d is (r / stride_d) % size_d, where
// stride_0 = 1 and stride_d is the product of the sizes before d).
Json node_json(const Machine& m, topo::NodeId n) {
  const auto& t = *m.topology;
  Json doc = {{"node", n}, {"router", t.router_of(n)}, {"place", t.node_label(n)}};
  const Json layout = t.describe();
  if (layout.contains("dims")) {
    Json names = Json::array();
    for (const auto& d : layout["dims"]) names.push_back(d["name"]);
    doc["dims"] = names;
  }
  return doc;
}

void print_node(const Json& node) {
  std::cout << "node " << node["node"] << ": router " << node["router"] << ", at " << node["place"].get<std::string>();
  if (node.contains("dims")) {
    std::string names;
    for (const auto& d : node["dims"]) names += (names.empty() ? "" : ",") + d.get<std::string>();
    std::cout << " (the router's coordinates (" << names << ") / the node's slot on it)";
  }
  std::cout << "\n";
}

topo::NodeId node_argument(const std::string& text, const Machine& m, const std::string& option) {
  std::size_t used = 0;
  long value = -1;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || value < 0 || value >= m.node_count())
    Where("command line", option + " " + text)
        .fail("expected a node id in 0.." + std::to_string(m.node_count() - 1) + " (machine '" + m.name + "'), got '" +
              text + "'");
  return static_cast<topo::NodeId>(value);
}

void print_describe(const Json& summary, const Json& route) {
  std::cout << summary["name"].get<std::string>() << ": " << summary["description"].get<std::string>() << "\n";
  for (const char* key :
       {"nodes", "cores", "routers", "network_links", "diameter_hops", "average_hops", "bisection_bandwidth_GBps"})
    std::cout << "  " << key << ": " << summary[key].dump() << "\n";
  std::cout << "  topology: " << summary["topology"].dump() << "\n";
  if (route.is_null()) return;
  std::cout << "route " << route["src"] << " -> " << route["dst"] << ": " << route["router_hops"] << " router hops, "
            << "zero-load latency " << route["zero_load_latency_ns"] << " ns + bytes / "
            << route["bottleneck_bandwidth"].get<std::string>() << "\n";
  for (const auto& hop : route["links"])
    std::cout << "  link " << hop["link"] << ": " << hop["from"].get<std::string>() << " -> "
              << hop["to"].get<std::string>() << "  dim " << hop["dim"] << " dir " << hop["direction"] << "  "
              << hop["bandwidth"].get<std::string>() << ", " << hop["latency"].get<std::string>() << "\n";
}

// Every parameter with its value, citation and source class.
int describe_provenance(const Args& args, const Machine& m) {
  const auto rows = machine_provenance(machine_json_for_describe(args.operands().front()));
  if (args.given("--json"))
    std::cout << provenance_json(rows).dump(2) << "\n";
  else
    std::cout << m.name << ": every parameter, its value and source class\n" << provenance_text(rows);
  return 0;
}

int command_describe(const Args& args) {
  const Machine m = load_machine_for_describe(args.operands().front());
  if (args.given("--provenance")) return describe_provenance(args, m);
  const Json summary = machine_summary(m);
  Json route;
  if (const auto ends = args.values("--route"); !ends.empty())
    route = route_json(m, node_argument(ends[0], m, "--route"), node_argument(ends[1], m, "--route"));
  Json node;
  if (args.given("--node")) node = node_json(m, node_argument(args.value("--node"), m, "--node"));
  if (args.given("--json")) {
    Json doc = summary;
    if (!route.is_null()) doc["route"] = route;
    if (!node.is_null()) doc["node"] = node;
    std::cout << doc.dump(2) << "\n";
  } else {
    print_describe(summary, route);
    if (!node.is_null()) print_node(node);
  }
  return 0;
}

}  // namespace

const CommandSpec& describe_command() {
  static const CommandSpec spec{
      "describe",
      "FILE|PRESET",
      1,
      1,
      "describe a machine",
      "Prints the machine of a scenario file, a machine file or a preset: nodes, cores, routers, links,\n"
      "diameter, average hops, bisection bandwidth, and on request the route between two nodes or where\n"
      "one node sits.",
      {{"--json", "", "print it as JSON"},
       {"--route", "SRC DST", "the route from node SRC to node DST, link by link"},
       {"--node", "N", "where node N sits: its router, and on a torus the router's coordinates and the node's slot"},
       {"--provenance", "",
        "every parameter instead, given or defaulted, with its citation and source class: cited, read in code, "
        "assumption, calibrated on K<n>"}},
      command_describe};
  return spec;
}

}  // namespace torsim
