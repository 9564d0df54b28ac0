#include "cli/merge.hpp"

#include <filesystem>
#include <iostream>
#include <map>

#include "run/output.hpp"
#include "run/runner.hpp"

namespace torsim {

namespace {

namespace fs = std::filesystem;

struct ShardOutput {
  std::string dir;
  std::string file;  // dir/results.json
  Json results;
};

ShardOutput read_shard(const std::string& dir) {
  ShardOutput s{dir, (fs::path(dir) / "results.json").string(), {}};
  s.results = parse_json_text(read_text_file(s.file, Where(s.file)), s.file);
  const Where where = Where(s.file) / "shard";
  const Json& shard = s.results.is_object() ? s.results.value("shard", Json()) : Json();
  if (!shard.is_object() || !shard.contains("index") || !shard.contains("count") || !shard.contains("points") ||
      !shard.contains("total_points") || !s.results.contains("points") ||
      shard["points"].size() != s.results["points"].size())
    where.fail("expected the results of one shard of a run (torsim run --shard K/N)");
  return s;
}

// Names the first value that differs under `key`, with both values (a scenario run once as
// a.json and once as /abs/a.json differs in its file).
[[noreturn]] void fail_different(const ShardOutput& first, const ShardOutput& other, const std::string& key) {
  const Json& theirs = first.results[key];
  const Json& ours = other.results[key];
  const Json patch = Json::diff(theirs, ours);
  const std::string pointer = patch.empty() ? "" : patch[0]["path"].get<std::string>();
  auto value_at = [&pointer](const Json& doc) -> std::string {
    try {
      const Json& value = doc.at(Json::json_pointer(pointer));
      return value.is_string() && value.get<std::string>().size() < 300 ? value.dump() : preview(value);
    } catch (const Json::exception&) {
      return "nothing";
    }
  };
  const std::string here = value_at(ours), there = value_at(theirs);
  throw InputError(other.file, "/" + key + pointer,
                   "expected the same " + key + " as " + first.file + " (shards of one run): this shard has " + here +
                       ", that one " + there +
                       (pointer == "/file" ? " (give every shard the scenario file by the same path)" : ""));
}

// Every shard must come from the same run: same scenario, version, machine and shard count.
void check_same_run(const ShardOutput& first, const ShardOutput& other) {
  if (first.results["shard"]["total_points"] != other.results["shard"]["total_points"])
    (Where(other.file) / "shard" / "total_points").fail("expected the sweep of " + first.file + " (shards of one run)");
  for (const char* key : {"scenario", "torsim_version", "machine"})
    if (first.results[key] != other.results[key]) fail_different(first, other, key);
  if (first.results["shard"]["count"] != other.results["shard"]["count"])
    (Where(other.file) / "shard" / "count")
        .fail("expected " + first.results["shard"]["count"].dump() + " shards, as in " + first.file);
}

// The points of every shard, by their index in the sweep; each shard given once, none missing.
std::vector<Json> merged_points(const std::vector<ShardOutput>& shards) {
  const std::size_t count = shards[0].results["shard"]["count"].get<std::size_t>();
  const std::size_t total = shards[0].results["shard"]["total_points"].get<std::size_t>();
  std::map<std::size_t, const ShardOutput*> by_index;
  std::vector<Json> points(total);
  for (const auto& s : shards) {
    check_same_run(shards[0], s);
    const std::size_t index = s.results["shard"]["index"].get<std::size_t>();
    if (const auto [it, fresh] = by_index.emplace(index, &s); !fresh)
      (Where(s.file) / "shard" / "index")
          .fail("shard " + std::to_string(index) + " is given twice (also " + it->second->file + ")");
    const Json& indices = s.results["shard"]["points"];
    for (std::size_t k = 0; k < indices.size(); ++k) {
      const std::size_t i = indices[k].get<std::size_t>();
      if (i >= total || !points[i].is_null())
        (Where(s.file) / "shard" / "points" / k).fail("expected a point index of the sweep not in another shard");
      points[i] = s.results["points"][k];
    }
  }
  std::string missing;
  for (std::size_t k = 0; k < count; ++k)
    if (!by_index.count(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
  if (!missing.empty())
    Where("command line", "merge")
        .fail("expected every shard of " + std::to_string(count) + "; missing shard(s) " + missing);
  for (std::size_t i = 0; i < total; ++i)
    if (points[i].is_null())
      Where("command line", "merge").fail("expected every point of the sweep; no shard has point " + std::to_string(i));
  return points;
}

Json merged_results(const std::vector<ShardOutput>& shards) {
  Json results = shards[0].results;
  results.erase("shard");
  results["points"] = merged_points(shards);
  double wall = 0, events = 0;
  for (const auto& s : shards) wall += s.results["wall"].value("wall_time_s", 0.0);
  for (const auto& p : results["points"]) events += p["counters"].value("events", 0.0);
  results["wall"] = {{"wall_time_s", wall}, {"events_per_second", wall > 0 ? events / wall : 0.0}};
  return results;
}

// links.csv: every shard's rows, by point index (rows of one point stay in their order).
std::string merged_links(const std::vector<ShardOutput>& shards) {
  std::map<std::size_t, std::string> rows;
  for (const auto& s : shards) {
    const std::string file = (fs::path(s.dir) / "links.csv").string();
    const std::string text = read_text_file(file, Where(file));
    if (text.rfind(kLinksCsvHeader, 0) != 0) Where(file).fail("expected links.csv written by torsim run");
    for (std::size_t at = kLinksCsvHeader.size(); at < text.size();) {
      const std::size_t end = text.find('\n', at);
      const std::string line = text.substr(at, end - at + 1);
      rows[std::stoul(line)] += line;
      at = end == std::string::npos ? text.size() : end + 1;
    }
  }
  std::string out(kLinksCsvHeader);
  for (const auto& [_, text] : rows) out += text;
  return out;
}

void write_merged_trace(OutputDir& out, const std::vector<ShardOutput>& shards, const std::string& name, Bytes max_size,
                        std::vector<std::string>& warnings) {
  std::map<std::size_t, std::string> fragments;
  for (const auto& s : shards) {
    const std::string file = (fs::path(s.dir) / name).string();
    for (auto& [point, text] : trace_fragments(read_text_file(file, Where(file)), Where(file)))
      fragments[point] = std::move(text);
  }
  std::vector<std::size_t> points;
  for (const auto& [point, _] : fragments) points.push_back(point);
  auto writer = out.open(name);
  write_trace(
      *writer, points, [&](std::size_t point) { return fragments.at(point); }, max_size, warnings);
  writer->close();
}

int command_merge(const Args& args) {
  const std::string out_option = args.value("--out");
  std::vector<ShardOutput> shards;
  for (const auto& dir : args.operands()) shards.push_back(read_shard(dir));
  const Json results = merged_results(shards);
  const Json& spec = results["scenario"]["spec"];
  const Where spec_where = Where(shards[0].file) / "scenario" / "spec" / "output";
  const Json output_spec = spec.value("output", Json::object());
  const OutputOptions output = parse_output(output_spec, spec_where);
  const std::string default_dir =
      output.dir.empty() ? "results/" + results["scenario"]["name"].get<std::string>() : output.dir;
  OutputDir out(out_option.empty() ? default_dir : out_option,
                out_option.empty() ? spec_where / "dir" : args.where("--out"));
  if (output.csv)
    for (const auto& [name, text] : series_csvs(results)) out.write(name, text);
  if (output.link_stats) out.write("links.csv", merged_links(shards));
  std::vector<std::string> warnings;
  const auto trace = trace_settings(output_spec, spec_where, "");
  if (trace && fs::exists(fs::path(shards[0].dir) / trace->file))
    write_merged_trace(out, shards, trace->file, trace->max_size, warnings);
  out.write("results.json", results.dump(2) + "\n");
  out.publish();
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  if (!args.given("--quiet"))
    std::cout << "merged " << shards.size() << " shards (" << results["points"].size() << " points) into " << out.dir()
              << "/results.json\n";
  return 0;
}

}  // namespace

const CommandSpec& merge_command() {
  static const CommandSpec spec{
      "merge",
      "DIR...",
      1,
      kAnyNumber,
      "merge the outputs of a run's shards",
      "Combines the output directories of every shard of a run (torsim run --shard K/N) into the single\n"
      "run's outputs, byte for byte but for the wall-clock figures.",
      {{"--out", "DIR", "the output directory (default: the scenario's output.dir, else results/<scenario name>)"},
       {"--quiet", "", "print nothing but errors and warnings"}},
      command_merge};
  return spec;
}

}  // namespace torsim
