#include <catch2/catch.hpp>
#include <optional>

#include "cli/reference.hpp"
#include "sim/config/fields.hpp"
#include "sim/config/json_merge.hpp"
#include "sim/config/params.hpp"
#include "sim/config/registry.hpp"
#include "sim/config/unused.hpp"
#include "tests/support/input_error.hpp"

using namespace torsim;

namespace {
constexpr ParamSpec kSpecs[] = {
    {"count", ParamKind::integer, "3", "", "1", "10", "a count", "-"},
    {"size", ParamKind::size, "4KiB", "B", "1B", "1MiB", "a size", "-"},
    {"latency", ParamKind::time, kRequired, "ns", "0ns", "1ms", "a latency", "-"},
    {"rate", ParamKind::rate, "1GB/s", "GB/s", "", "", "a rate", "-"},
    {"mode", ParamKind::choice, "fast", "", "", "", "a mode", "-", "fast|slow"},
    {"sizes", ParamKind::size_list, "[\"8B\"]", "B", "0B", "", "sizes", "-"},
    {"flag", ParamKind::boolean, "false", "", "", "", "a flag", "-"},
};
const ParamTable kTable{"test section", "For tests.", kSpecs};

}  // namespace

TEST_CASE("values parse with units and defaults apply", "[params]") {
  const Json j = Json::parse(R"({"latency": "1.27us", "sizes": {"from": "8B", "to": "64B", "factor": 2}})");
  ParamReader r(j, Where("f.json", "/x"), kTable);
  CHECK(r.integer("count") == 3);
  CHECK(r.size("size") == 4096);
  CHECK(r.time("latency") == 1270000);
  CHECK(r.rate("rate") == 1000000000);
  CHECK(r.text("mode") == "fast");
  CHECK(r.sizes("sizes") == std::vector<Bytes>{8, 16, 32, 64});
  CHECK_FALSE(r.boolean("flag"));
  CHECK(ParamReader(Json::parse(R"({"latency": 5})"), Where("f.json"), kTable).time("latency") == 5000);
}

TEST_CASE("unknown keys are rejected with a hint and the valid keys", "[params]") {
  const Json j = Json::parse(R"({"latency": "1us", "cuont": 2})");
  const auto e = test::input_error_of([&] { ParamReader(j, Where("f.json", "/x"), kTable); });
  CHECK(e.file() == "f.json");
  CHECK(e.path() == "/x/cuont");
  CHECK_THAT(e.message(), Catch::Contains("unknown key 'cuont'") && Catch::Contains("did you mean 'count'") &&
                              Catch::Contains("Valid keys are: count, size"));
}

TEST_CASE("bad values name the path and what was expected", "[params]") {
  auto check = [](const char* text, const char* name, const char* path, const char* expected) {
    const Json j = Json::parse(text);
    const auto e = test::input_error_of([&] {
      ParamReader r(j, Where("f.json", "/x"), kTable);
      if (std::string(name) == "count")
        (void)r.integer(name);
      else if (std::string(name) == "size")
        (void)r.size(name);
      else if (std::string(name) == "latency")
        (void)r.time(name);
      else if (std::string(name) == "mode")
        (void)r.text(name);
      else if (std::string(name) == "sizes")
        (void)r.sizes(name);
      else
        (void)r.boolean(name);
    });
    CHECK(e.path() == path);
    CHECK_THAT(e.message(), Catch::Contains(expected));
  };
  check(R"({"latency": "1us", "count": 0})", "count", "/x/count", "expected a value in [1, 10]");
  check(R"({"latency": "1us", "count": "three"})", "count", "/x/count", "expected an integer");
  check(R"({"latency": "1us", "size": "4 kilobytes"})", "size", "/x/size", "expected a size such as \"4KiB\"");
  check(R"({"latency": "1us", "size": "2MiB"})", "size", "/x/size", "out of range");
  check(R"({})", "latency", "/x", "missing required key 'latency'");
  check(R"({"latency": "1us", "mode": "medium"})", "mode", "/x/mode", "valid values are: fast, slow");
  check(R"({"latency": "1us", "mode": "slwo"})", "mode", "/x/mode",
        "unknown mode 'slwo' (did you mean 'slow'?); valid values are: fast, slow");
  check(R"({"latency": "1us", "sizes": ["8B", "x"]})", "sizes", "/x/sizes/1", "expected a size");
  check(R"({"latency": "1us", "sizes": {"from": "8B", "to": "4B", "factor": 2}})", "sizes", "/x/sizes",
        "'from' <= 'to'");
  check(R"({"latency": "1us", "flag": "yes"})", "flag", "/x/flag", "expected true or false");
}

TEST_CASE("checking what is given reads every given value, and only those", "[params]") {
  CHECK_NOTHROW(ParamReader(Json::parse(R"({"count": 4})"), Where("f.json", "/x"), kTable).check_given());
  const auto e = test::input_error_of(
      [] { ParamReader(Json::parse(R"({"count": 4, "size": "2MiB"})"), Where("f.json", "/x"), kTable).check_given(); });
  CHECK(e.path() == "/x/size");
  CHECK_THAT(e.message(), Catch::Contains("out of range"));
}

TEST_CASE("a choice maps through a table that must cover exactly its declared values", "[params]") {
  const Json j = Json::parse(R"({"mode": "slow"})");
  const ParamReader r(j, Where("f.json"), kTable);
  CHECK(r.choice<int>("mode", {{"fast", 1}, {"slow", 2}}) == 2);
  CHECK_THROWS_AS(r.choice<int>("mode", {{"fast", 1}}), std::logic_error);
  CHECK_THROWS_AS(r.choice<int>("mode", {{"fast", 1}, {"slow", 2}, {"medium", 3}}), std::logic_error);
  const auto e = test::input_error_of([] {
    ParamReader(Json::parse(R"({"mode": "medium"})"), Where("f.json"), kTable)
        .choice<int>("mode", {{"fast", 1}, {"slow", 2}});
  });
  CHECK(e.path() == "/mode");
  CHECK_THAT(e.message(), Catch::Contains("valid values are: fast, slow"));
}

TEST_CASE("a registry names the closest entry to an unknown name, and every valid one", "[params]") {
  struct Entry {
    std::string_view name;
    int value;
  };
  const std::vector<Entry> entries{{"packet", 1}, {"analytic", 2}, {"analytic", 3}};
  CHECK(find_entry(entries, "analytic", "model", Where("f.json")).value == 2);
  const auto e = test::input_error_of([&] { find_entry(entries, "packets", "network model", Where("f.json", "/m")); });
  CHECK(e.path() == "/m");
  CHECK(e.message() == "unknown network model 'packets' (did you mean 'packet'?); valid values are: packet, analytic");
}

TEST_CASE("a hint names the close name, else the one name a shortened name is whole words of", "[params]") {
  const std::vector<std::string_view> patterns{"shift", "uniform_random", "random_permutation", "hot_spot"};
  CHECK(closest_name("shfit", patterns) == "shift");
  CHECK(closest_name("uniform", patterns) == "uniform_random");
  CHECK(closest_name("permutation", patterns) == "random_permutation");
  CHECK(closest_name("random", patterns).empty());  // two names hold it: no guess
  CHECK(closest_name("unif", patterns).empty());    // not a whole word
  CHECK(closest_name("spot_hot", patterns).empty());
}

TEST_CASE("a non-object is rejected", "[params]") {
  const auto e = test::input_error_of([] { ParamReader(Json::parse("[1]"), Where("f.json", "/x"), kTable); });
  CHECK(e.path() == "/x");
  CHECK_THAT(e.message(), Catch::Contains("expected an object"));
}

TEST_CASE("overrides merge into presets, lists patched by index", "[params]") {
  const Json base =
      Json::parse(R"({"a": 1, "dims": [{"size": 2, "bw": 1}, {"size": 3, "bw": 1}], "o": {"x": 1, "y": 2}})");
  const Json patch = Json::parse(R"({"dims": {"1": {"bw": 9}}, "o": {"y": 5}})");
  const Json merged = merge_overrides(base, patch, Where("s.json", "/machine"));
  CHECK(merged["dims"][1]["bw"] == 9);
  CHECK(merged["dims"][1]["size"] == 3);
  CHECK(merged["dims"][0]["bw"] == 1);
  CHECK(merged["o"]["x"] == 1);
  CHECK(merged["o"]["y"] == 5);
  CHECK(given_by(patch, "/dims/1/bw"));
  CHECK_FALSE(given_by(patch, "/dims/1/size"));
  CHECK_FALSE(given_by(patch, "/a"));
  const auto e = test::input_error_of(
      [&] { merge_overrides(base, Json::parse(R"({"dims": {"5": {}}})"), Where("s.json", "/machine")); });
  CHECK(e.path() == "/machine/dims/5");
}

TEST_CASE("set assignments parse JSON values or take strings", "[params]") {
  Json doc = Json::parse(R"({"workload": {"sizes": [1]}, "machine": {"dims": [{"size": 2}]}})");
  set_dotted(doc, "workload.sizes=[8,16]", Where("command line"));
  set_dotted(doc, "machine.dims.0.size=4", Where("command line"));
  set_dotted(doc, "machine.node.nic_latency=500ns", Where("command line"));
  CHECK(doc["workload"]["sizes"] == Json::parse("[8,16]"));
  CHECK(doc["machine"]["dims"][0]["size"] == 4);
  CHECK(doc["machine"]["node"]["nic_latency"] == "500ns");
  CHECK_THROWS_AS(set_dotted(doc, "machine.dims.7.size=4", Where("command line")), InputError);
  CHECK_THROWS_AS(set_dotted(doc, "novalue", Where("command line")), InputError);
}

TEST_CASE("every declared default and bound parses", "[params][reference]") {
  for (const ParamTable* table : all_param_tables()) {
    for (const auto& p : table->params) {
      INFO(table->section << " / " << p.name);
      const bool quantity = p.kind == ParamKind::size || p.kind == ParamKind::rate || p.kind == ParamKind::time;
      if (quantity && p.default_value != kRequired && p.default_value != kUnset)
        CHECK_NOTHROW(spec_quantity(p, p.default_value));
      if (quantity && !p.min.empty()) CHECK_NOTHROW(spec_quantity(p, p.min));
      if (quantity && !p.max.empty()) CHECK_NOTHROW(spec_quantity(p, p.max));
      CHECK_FALSE(p.meaning.empty());
      CHECK_FALSE(p.source.empty());
    }
  }
}

namespace {
struct Bound {
  int count = -1;
  Bytes size = -1;
  Time latency = -1;
  Rate rate = -1;
  double share = -1;
  bool flag = true;
  std::string name = "unset";
};
constexpr Field<Bound> kFields[] = {
    unbound<Bound>({"model", ParamKind::text, kRequired, "", "", "", "a selector", "-"}),
    bind<&Bound::latency>({"latency", ParamKind::time, kRequired, "ns", "0ns", "1ms", "a latency", "-"}),
    bind<&Bound::count>({"count", ParamKind::integer, "3", "", "1", "10", "a count", "-"}),
    bind<&Bound::size>({"size", ParamKind::size, "4KiB", "B", "1B", "1MiB", "a size", "-"}),
    bind<&Bound::rate>({"rate", ParamKind::rate, "1GB/s", "GB/s", "", "", "a rate", "-"}),
    bind<&Bound::share>({"share", ParamKind::number, "0.5", "", "0", "1", "a share", "-"}),
    bind<&Bound::flag>({"flag", ParamKind::boolean, "false", "", "", "", "a flag", "-"}),
    bind<&Bound::name>({"name", ParamKind::text, "x", "", "", "", "a name", "-"}),
};
constexpr auto kBoundSpecs = specs_of(kFields);
const ParamTable kBoundTable{"bound section", "For tests.", kBoundSpecs};
}  // namespace

TEST_CASE("a field list is the table and the parse: each value lands in its member", "[params]") {
  STATIC_REQUIRE(kBoundSpecs.size() == 8);
  CHECK(kBoundSpecs[1].name == "latency");
  CHECK(kBoundTable.find("share") != nullptr);
  const Json given = {{"model", "m"}, {"latency", "2ns"}, {"size", "1KiB"}, {"flag", true}};
  const Bound b = parse_fields(ParamReader(given, Where("f.json"), kBoundTable), kFields);
  CHECK(b.latency == 2 * kNanosecond);
  CHECK(b.size == 1024);
  CHECK(b.flag);
  CHECK(b.count == 3);  // the declared defaults, not the struct's
  CHECK(b.rate == 1'000'000'000);
  CHECK(b.share == 0.5);
  CHECK(b.name == "x");
  // The declaration's checks apply: a missing required value and an out-of-range one fail.
  REQUIRE_THROWS_AS(parse_fields(ParamReader(Json::object(), Where("f.json"), kBoundTable), kFields), InputError);
  REQUIRE_THROWS_AS(
      parse_fields(ParamReader({{"latency", "1ns"}, {"count", 11}}, Where("f.json"), kBoundTable), kFields),
      InputError);
}

namespace {
enum class Mode { fast, slow };
struct Moded {
  Mode mode = Mode::slow;
};
constexpr ChoiceName<Mode> kModeNames[] = {{"fast", Mode::fast}, {"slow", Mode::slow}};
constexpr Field<Moded> kModedFields[] = {
    bind_choice<&Moded::mode, kModeNames>({"mode", ParamKind::choice, "fast", "", "", "", "a mode", "-", "fast|slow"}),
};
constexpr ParamSpec kModedSpecs[] = {kModedFields[0].spec};
const ParamTable kModedTable{"moded", "For tests.", kModedSpecs};
}  // namespace

TEST_CASE("a choice bound to an enum maps every declared name and nothing else", "[params]") {
  static_assert(detail::names_are("fast|slow", kModeNames));
  static_assert(!detail::names_are("fast|slow|medium", kModeNames));
  static_assert(!detail::names_are("fast", kModeNames));
  static_assert(!detail::names_are("slow|fast", kModeNames));
  CHECK(parse_fields(ParamReader(Json::object(), Where("f.json", "/x"), kModedTable), kModedFields).mode == Mode::fast);
  const Json slow = Json::parse(R"({"mode": "slow"})");
  CHECK(parse_fields(ParamReader(slow, Where("f.json", "/x"), kModedTable), kModedFields).mode == Mode::slow);
  const Json medium = Json::parse(R"({"mode": "medium"})");
  CHECK_THROWS_AS(parse_fields(ParamReader(medium, Where("f.json", "/x"), kModedTable), kModedFields), InputError);
}

TEST_CASE("unused input fails at once unless a log collects it", "[params]") {
  const Where where("f.json", "/workload/window");
  CHECK_THROWS_AS(not_used(where, "window is read only with X"), InputError);
  not_used_unless_preset(where, "no log: nothing happens");
  const UnusedInputLog log;
  not_used(where, "window is read only with X");
  not_used_unless_preset(where / "inner", "a preset may give it");
  REQUIRE(log.entries().size() == 2);
  CHECK(log.entries()[0].where.pointer() == "/workload/window");
  CHECK_FALSE(log.entries()[0].preset_may_give);
  CHECK(log.entries()[1].preset_may_give);
}

namespace {
struct SharedCosts {
  Time cost = 0;
};
struct WithShared : SharedCosts {
  std::int64_t count = 0;
};
constexpr std::array<Field<WithShared>, 1> kSharedRows = {
    bind<&SharedCosts::cost, WithShared>({"cost", ParamKind::time, "5ns", "ns", "0ns", "1ms", "a cost", "-"})};
constexpr Field<WithShared> kOwnRows[] = {
    bind<&WithShared::count>({"count", ParamKind::integer, "3", "", "1", "10", "a count", "-"})};
constexpr auto kJoined = join(kSharedRows, kOwnRows);
constexpr auto kJoinedSpecs = specs_of(kJoined);
const ParamTable kJoinedTable{"joined", "For tests.", kJoinedSpecs};
}  // namespace

TEST_CASE("shared rows fill the base of the struct a joined table fills", "[params]") {
  static_assert(kJoinedSpecs[0].name == "cost" && kJoinedSpecs[1].name == "count");
  const Json given = Json::parse(R"({"cost": "7ns", "count": 4})");
  const WithShared w = parse_fields(ParamReader(given, Where("f.json", "/x"), kJoinedTable), kJoined);
  CHECK(w.cost == 7 * kNanosecond);
  CHECK(w.count == 4);
  const WithShared d = parse_fields(ParamReader(Json::object(), Where("f.json", "/x"), kJoinedTable), kJoined);
  CHECK(d.cost == 5 * kNanosecond);
  CHECK(d.count == 3);
}

namespace {
struct Optional {
  std::int64_t nodes = 0;
  std::vector<std::int64_t> list;
  bool round_robin = false;
  std::optional<Time> until;
};
constexpr ChoiceName<bool> kOrderNames[] = {{"block", false}, {"round_robin", true}};
struct Derived : Optional {};
constexpr Field<Derived> kOptionalFields[] = {
    bind<&Optional::nodes, Derived>({"nodes", ParamKind::integer, kUnset, "", "1", "", "a count", "-"}),
    bind<&Optional::list, Derived>({"list", ParamKind::integer_list, kUnset, "", "0", "", "ids", "-"}),
    bind_choice<&Optional::round_robin, kOrderNames, Derived>(
        {"order", ParamKind::choice, "block", "", "", "", "an order", "-", "block|round_robin"}),
    bind<&Optional::until, Derived>({"until", ParamKind::time, kUnset, "ns", "0ns", "", "an end", "-"}),
};
constexpr auto kOptionalSpecs = specs_of(kOptionalFields);
const ParamTable kOptionalTable{"optional", "For tests.", kOptionalSpecs};
}  // namespace

TEST_CASE("a parameter without a default, not given, leaves its member in its not-given state", "[params]") {
  const Derived none = parse_fields(ParamReader(Json::object(), Where("f.json"), kOptionalTable), kOptionalFields);
  CHECK(none.nodes == 0);
  CHECK(none.list.empty());
  CHECK_FALSE(none.round_robin);
  CHECK_FALSE(none.until.has_value());
  const Json given = Json::parse(R"({"nodes": 4, "list": [2, 0], "order": "round_robin", "until": "3ns"})");
  const Derived d = parse_fields(ParamReader(given, Where("f.json"), kOptionalTable), kOptionalFields);
  CHECK(d.nodes == 4);
  CHECK(d.list == std::vector<std::int64_t>{2, 0});
  CHECK(d.round_robin);
  CHECK(d.until == 3 * kNanosecond);
  const Json zero = Json::parse(R"({"nodes": 0})");  // given: its range applies
  CHECK_THROWS_AS(parse_fields(ParamReader(zero, Where("f.json"), kOptionalTable), kOptionalFields), InputError);
}
