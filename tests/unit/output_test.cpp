#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "run/output.hpp"
#include "tests/support/scratch_path.hpp"

using namespace torsim;

namespace {

// What ResultsJsonWriter writes for `machine`, `points` and `rest`.
std::string streamed(const Json& machine, const Json& points, const Json& rest) {
  const auto path = test::scratch_path("torsim-results-writer-test", ".json");
  {
    FileWriter file(path.string(), Where("test"));
    ResultsJsonWriter writer(file, machine);
    for (const auto& p : points) writer.add_point(p);
    writer.finish(rest);
    file.close();
  }
  const std::string text = read_text_file(path.string(), Where("test"));
  std::filesystem::remove(path);
  return text;
}

}  // namespace

TEST_CASE("results.json written point by point is what dumping the whole document gives", "[output]") {
  const Json machine = {{"name", "m"}, {"nodes", 4}, {"empty", Json::object()}, {"list", {1, 2}}};
  const Json rest = {{"scenario", {{"name", "s\nwith a line break"}, {"spec", {{"sweep", Json::object()}}}}},
                     {"shard", {{"points", Json::array()}}},
                     {"torsim_version", "0.1.0"},
                     {"wall", {{"wall_time_s", 0.5}}}};
  const Json point = {{"metrics", {{"latency_us", 1.25}}},
                      {"series", {{"s", {{"rows", {{1.0, 2.0}}}}}}},
                      {"sweep", {{"placement", {{"node_list", {0, 2}}}}}},
                      {"counters", Json::object()}};
  for (const std::size_t count : {0, 1, 3}) {
    Json points = Json::array();
    for (std::size_t i = 0; i < count; ++i) points.push_back(point);
    Json whole = rest;
    whole["machine"] = machine;
    whole["points"] = points;
    CHECK(streamed(machine, points, rest) == whole.dump(2) + "\n");
  }
}

TEST_CASE("series CSVs quote fields and start each file with its header", "[output]") {
  const Json results = {{"points",
                         {{{"sweep", {{"placement", {{"node_list", {0, 2}}}}, {"size", "16KiB"}}},
                           {"series", {{"latency", {{"columns", {"a,b", "c"}}, {"rows", {{1, 2.5}}}}}}}},
                          {{"sweep", {{"placement", "x\"y"}, {"size", 8}}},
                           {"series", {{"latency", {{"columns", {"a,b", "c"}}, {"rows", {{3, 4}}}}}}}}}}};
  const auto files = series_csvs(results);
  REQUIRE(files.size() == 1);
  CHECK(files.at("latency.csv") ==
        "placement,size,\"a,b\",c\n"
        "\"{\"\"node_list\"\":[0,2]}\",16KiB,1,2.5\n"
        "\"x\"\"y\",8,3,4\n");
}
