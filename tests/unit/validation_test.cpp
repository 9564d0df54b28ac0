#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/validate.hpp"
#include "tests/support/input_error.hpp"
#include "tests/support/scratch_path.hpp"
#include "validation/evaluate.hpp"
#include "validation/report.hpp"
#include "validation/robustness.hpp"

using namespace torsim;
using namespace torsim::validation;

namespace {

// torsim validate ARGS, with its errors thrown rather than printed.
int validate(const std::vector<std::string>& args) {
  return validate_command().main(parse_args(validate_command(), args));
}

}  // namespace

namespace {

Curve curve(std::vector<double> x, std::vector<double> y) { return {std::move(x), std::move(y)}; }

ClaimSpec gain_claim(double expected) {
  ClaimSpec c;
  c.id = "T1";
  CheckSpec check;
  check.rule = Rule::gain_up_to;
  check.baseline = "baseline";
  check.improved = "improved";
  check.gain = GainKind::reduction;
  check.lower_is_better = true;
  check.expected = expected;
  check.why = "test";
  c.checks.push_back(check);
  return c;
}

}  // namespace

TEST_CASE("symmetric relative error never divides by a zero reference", "[validation]") {
  CHECK(symmetric_relative_error(110, 100, 0) == Approx(10.0 / 110));
  CHECK(symmetric_relative_error(100, 110, 0) == Approx(10.0 / 110));  // symmetric
  CHECK(symmetric_relative_error(0, 0, 0) == 0);
  CHECK(symmetric_relative_error(0.001, 0, 1.0) == Approx(0.001));  // the floor bounds the scale
  CHECK(std::isfinite(symmetric_relative_error(1, 0, 0)));
}

TEST_CASE("gains are defined per kind and refuse a zero reference", "[validation]") {
  CHECK(*gain_percent(10, 5, GainKind::reduction) == Approx(50));
  CHECK(*gain_percent(10, 5, GainKind::speedup) == Approx(100));
  CHECK(*gain_percent(5, 10, GainKind::increase) == Approx(100));
  CHECK_FALSE(gain_percent(0, 5, GainKind::reduction));
  CHECK_FALSE(gain_percent(5, 0, GainKind::speedup));
  CHECK_FALSE(gain_percent(0, 5, GainKind::increase));
}

TEST_CASE("an up-to gain uses the best point and a 10-point tolerance", "[validation]") {
  const Curve mpi = curve({8, 64, 1024}, {2.0, 2.2, 4.0});
  const Curve ugni = curve({8, 64, 1024}, {1.1, 1.2, 3.6});  // gains 45 %, 45.5 %, 10 %
  const auto v = check_gain_up_to(mpi, ugni, GainKind::reduction, 50);
  CHECK(v.status == Status::reproduced);
  CHECK(*v.simulated == Approx(100.0 * (2.2 - 1.2) / 2.2));
  CHECK(v.at_x == 64);
  // A deliberately wrong simulated value is caught: 20 % against a claimed 50 %.
  const Curve wrong = curve({8, 64, 1024}, {1.6, 1.76, 3.2});
  const auto caught = check_gain_up_to(mpi, wrong, GainKind::reduction, 50);
  CHECK(caught.status == Status::not_reproduced);
  CHECK_THAT(caught.detail, Catch::Contains("-30 points"));
  // Just outside the tolerance fails; just inside passes.
  CHECK(check_gain_up_to(curve({1}, {100}), curve({1}, {60.5}), GainKind::reduction, 50).status ==
        Status::not_reproduced);
  CHECK(check_gain_up_to(curve({1}, {100}), curve({1}, {59.5}), GainKind::reduction, 50).status == Status::reproduced);
}

TEST_CASE("a gain at a point needs that point", "[validation]") {
  const Curve base = curve({1024, 15360}, {10, 10}), fast = curve({1024, 15360}, {9, 6});
  CHECK(check_gain_at(base, fast, GainKind::speedup, 15360, 70).status == Status::reproduced);  // 66.7 %
  const auto missing = check_gain_at(base, fast, GainKind::speedup, 4096, 70);
  CHECK(missing.status == Status::not_reproduced);
  CHECK_THAT(missing.detail, Catch::Contains("no simulated point"));
  const auto zero = check_gain_at(curve({1}, {0}), curve({1}, {1}), GainKind::reduction, 1, 10);
  CHECK(zero.status == Status::not_reproduced);
  CHECK_THAT(zero.detail, Catch::Contains("reference is zero"));
}

TEST_CASE("an absolute value is checked within 15 percent", "[validation]") {
  const Curve c = curve({8, 64}, {0.704, 0.8});
  CHECK(check_absolute(c, 8, 0.7, 0).status == Status::reproduced);
  CHECK(check_absolute(c, 8, 0.5, 0).status == Status::not_reproduced);  // 29 % apart
  CHECK(check_absolute(c, 64, 0.69, 0).status == Status::reproduced);    // 13.75 % apart
  CHECK(check_absolute(c, 16, 0.7, 0).status == Status::not_reproduced);
}

TEST_CASE("a trend must hold everywhere but near the crossover", "[validation]") {
  // PAMI below MPI up to 512 KB, above after; the point at 500 KB is within 5 % and ignored.
  const Curve pami = curve({1024, 65536, 500000, 1048576}, {1, 2, 12, 20});
  const Curve mpi = curve({1024, 65536, 500000, 1048576}, {2, 3, 10, 18});
  CHECK(check_trend(pami, mpi, 524288, true, true).status == Status::reproduced);
  CHECK(check_trend(pami, mpi, std::nullopt, true, true).status == Status::not_reproduced);
  const auto wrong = check_trend(mpi, pami, 524288, true, true);
  CHECK(wrong.status == Status::not_reproduced);
  CHECK_THAT(wrong.detail, Catch::Contains("behind at x = 1024, 6.554e+04"));
  CHECK(check_trend(pami, mpi, 1, true, true).status == Status::not_reproduced);  // nothing in range
}

TEST_CASE("a tie is not a win: a trend needs a margin beyond the tie resolution", "[validation]") {
  CHECK(standing(100, 100.5, true) == Standing::tie);  // 0.5 % of the larger value
  CHECK(standing(100, 102, true) == Standing::ahead);
  CHECK(standing(100, 102, false) == Standing::behind);
  CHECK(standing(0, 0, true) == Standing::tie);
  // PAMI's bandwidth 0.003 % above MPI's at the largest sizes: ties, so the claim fails there.
  const Curve pami = curve({1024, 1048576, 4194304}, {900, 1795.06, 1798.03});
  const Curve mpi = curve({1024, 1048576, 4194304}, {500, 1795.0, 1798.0});
  const auto v = check_trend(pami, mpi, std::nullopt, true, false);
  CHECK(v.status == Status::not_reproduced);
  CHECK(v.ties == 2);
  CHECK_THAT(v.detail, Catch::Contains("ahead by more than the 1 % tie resolution at 1 of 3 points"));
  CHECK_THAT(v.detail, Catch::Contains("ties at x = 1.049e+06, 4.194e+06"));
  // Beyond the resolution every point is a win.
  CHECK(check_trend(pami, curve({1024, 1048576, 4194304}, {500, 1700, 1700}), std::nullopt, true, false).status ==
        Status::reproduced);
}

TEST_CASE("a claim that names a bound is checked on both sides of it", "[validation]") {
  const std::vector<double> sizes{1024, 65536, 262144, 1048576, 4194304};
  const Curve mpi = curve(sizes, {6, 41, 147, 571, 2267});
  // "PAMI better below 512 KB": PAMI still 10 % ahead above it contradicts the bound.
  const Curve ahead_everywhere = curve(sizes, {1.7, 36, 130, 514, 2040});
  const auto one_sided = check_trend(ahead_everywhere, mpi, 524288, true, true);
  CHECK(one_sided.status == Status::not_reproduced);
  CHECK_THAT(one_sided.detail, Catch::Contains("still ahead at x = 1.049e+06, 4.194e+06, which the bound denies"));
  // Above the bound a tie (MPI's fixed per-call cost under 1 %) or MPI ahead agrees with it.
  const Curve catches_up = curve(sizes, {1.7, 36, 142, 567, 2263});
  const auto both = check_trend(catches_up, mpi, 524288, true, true);
  CHECK(both.status == Status::reproduced);
  CHECK_THAT(both.detail, Catch::Contains("not ahead at any of its 2 points (2 ties), as the bound implies"));
  CHECK(check_trend(curve(sizes, {1.7, 36, 142, 600, 2400}), mpi, 524288, true, true).status == Status::reproduced);
  // A bound with no sweep point beyond it leaves the claim's other side unchecked: not reproduced.
  const auto unchecked = check_trend(catches_up, mpi, 8388608, true, true);
  CHECK(unchecked.status == Status::not_reproduced);
  CHECK_THAT(unchecked.detail, Catch::Contains("no sweep point, so the claim's other side is unchecked"));
  // "Above 64 KiB": the mirror image.
  CHECK(check_trend(mpi, curve(sizes, {6, 41, 160, 620, 2500}), 65536, false, true).status == Status::reproduced);
}

TEST_CASE("a claim's status follows its checks", "[validation]") {
  ClaimSpec c = gain_claim(50);
  c.curves = {{"baseline", {}}, {"improved", {}}};
  std::map<std::string, Curve> curves{{"baseline", curve({1}, {10})}, {"improved", curve({1}, {5})}};
  CHECK(evaluate(c, curves, false).status == Status::reproduced);
  curves["improved"] = curve({1}, {9});
  CHECK(evaluate(c, curves, false).status == Status::not_reproduced);
  c.not_modelled = "needs a layer";
  CHECK(evaluate(c, curves, false).status == Status::not_yet_modelled);
}

TEST_CASE("the registry lists every mission claim and parses", "[validation]") {
  const auto claims = load_claims(std::string(TORSIM_SOURCE_DIR) + "/validation/claims.json");
  for (int i = 1; i <= 15; ++i) {
    const std::string id = "C" + std::to_string(i);
    INFO(id);
    CHECK(std::any_of(claims.begin(), claims.end(), [&](const ClaimSpec& c) { return c.id == id; }));
  }
  for (const auto& c : claims) {
    INFO(c.id);
    CHECK_FALSE(c.paper.title.empty());
    CHECK_FALSE(c.source.empty());
    CHECK_FALSE(c.checks.empty());
    for (const auto& check : c.checks) CHECK_FALSE(check.why.empty());
    if (c.not_modelled.empty())
      for (const auto& [name, spec] : c.curves)
        CHECK(std::filesystem::exists(std::string(TORSIM_SOURCE_DIR) + "/" + spec.scenario));
  }
}

TEST_CASE("a bad registry entry is rejected with its path", "[validation]") {
  const auto path = test::scratch_path("torsim-bad-claims", ".json");
  std::ofstream(path) << R"({"claims": [{"id": "X", "paper": {}, "source": "s", "machine": "m", "quantity": "q",
                             "paper_value": "v", "checks": [{"rule": "gain_at", "why": "w"}]}]})";
  const InputError e = test::input_error_of([&] { load_claims(path.string()); });
  CHECK(e.path() == "/claims/0/paper");
  CHECK_THAT(e.message(), Catch::Contains("missing required key 'title'"));
  std::filesystem::remove(path);
}

TEST_CASE("a sensitivity parameter is scaled exactly in its own unit", "[validation][sensitivity]") {
  const Where w("test");
  CHECK(scaled_parameter("100ns", 0.5, w) == "50000ps");
  CHECK(scaled_parameter("8KiB", 2, w) == "16384B");
  CHECK(scaled_parameter("6.911GB/s", 0.5, w) == "3455500000B/s");
  CHECK(scaled_parameter(72, 0.5, w) == 36);
  CHECK(scaled_parameter(72, 2, w) == 144);
  CHECK(scaled_parameter(1, 0.5, w) == 1);  // a count stays a count
  CHECK(scaled_parameter(0.25, 2, w) == 0.5);
  CHECK_THROWS_AS(scaled_parameter("fast", 2, w), InputError);
  CHECK_THROWS_AS(scaled_parameter(Json::array(), 2, w), InputError);
}

namespace {

// A registry of one claim: MPI's 8 B latency between the two nodes of a Gemini, 1.27 us
// (the K2 calibration point), in a temporary directory with its own small scenario.
// `sensitivity_extra`: more fields of the claim's "sensitivity" object.
std::filesystem::path sensitivity_registry(const std::filesystem::path& dir,
                                           const std::string& sensitivity_extra = "") {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "scenario.json")
      << R"({"machine": {"preset": "hopper", "runtimes": {"mpi": {"progress_cpu": "0ns"}}},
      "runtime": {"layer": "mpi"},
      "placement": {"node_list": [0, 1]},
      "workload": {"name": "pingpong", "sizes": [8], "iterations": 4, "warmup": 1}})";
  std::ofstream(dir / "claims.json") << R"({"claims": [{"id": "T1", "kind": "calibration",
      "paper": {"title": "t", "authors": "a", "venue": "v", "year": "y", "doi": "d", "seed": "s"},
      "source": "s", "machine": "m", "quantity": "q", "paper_value": "1.27 us",
      "checks": [{"rule": "absolute", "improved": "mpi", "at": 8, "expected": 1.27, "why": "w"}],
      "curves": {"mpi": {"scenario": ")" + (dir / "scenario.json").string() +
                                            R"(", "series": "latency",
                         "x": "size_bytes", "y": "latency_us"}},
      "breakdown": {"series": "latency_breakdown"},
      "sensitivity": {"parameters": ["nic.registration_cpu", "runtimes.mpi.send_cpu"])" +
                                            sensitivity_extra + R"(}}]})";
  return dir / "claims.json";
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("validate --sensitivity varies the registry's parameters and every assumption the runs read",
          "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-sensitivity-test");
  const auto registry = sensitivity_registry(dir);
  std::string text = read_text(registry);
  text.replace(text.find(R"("expected": 1.27)"), 16, R"("expected": 1.14)");  // the claim at its base value
  std::ofstream(registry) << text;
  REQUIRE(validate({"--registry", registry.string(), "--report", (dir / "report").string(), "--no-plots",
                    "--sensitivity", "--quick"}) == 0);
  const Json doc = read_json_file((dir / "report" / "validation.json").string());
  const Json& claim = doc["claims"][0];
  const Json& robust = claim["robustness"];
  const double base = robust["base"][0]["simulated"].get<double>();
  CHECK(base > 1.0);  // K2's 1.27 us, less the progress engine's polling passes
  CHECK(base < 1.27);
  std::map<std::string, Json> rows;
  for (const auto& row : robust["rows"]) rows[row["parameter"].get<std::string>()] = row;
  // Listed: MPI's send path (130 ns, calibrated on K2) is on every message's path.
  const Json& send = rows.at("runtimes.mpi.send_cpu");
  CHECK(send["listed"] == true);
  CHECK(send["class"] == "calibrated on K2");
  CHECK(send["x0.5"]["checks"][0]["simulated"].get<double>() == Approx(base - 0.065).margin(0.002));
  CHECK(send["x2"]["checks"][0]["simulated"].get<double>() == Approx(base + 0.13).margin(0.002));
  CHECK(send["effect"].get<double>() == Approx(100 * 0.13 / base).margin(0.2));  // percent of the latency
  // Found by the run: the NIC's assumed SMSG costs; not listed, varied all the same.
  CHECK(rows.at("nic.smsg_send_cpu")["class"] == "assumption");
  CHECK(rows.at("nic.smsg_send_cpu")["listed"] == false);
  CHECK(rows.at("nic.smsg_send_cpu")["moves"] == true);
  // An 8 B eager message registers nothing: read, but it moves nothing.
  CHECK(rows.at("nic.registration_cpu")["moves"] == false);
  CHECK(rows.at("nic.registration_cpu")["effect"].get<double>() == 0);
  // Neither a layer the run does not take nor a cited value is varied; a switch or a zero cannot be.
  CHECK_FALSE(rows.count("runtimes.charm.send_cpu"));
  CHECK_FALSE(rows.count("nic.bte_bandwidth"));
  std::map<std::string, std::string> unvaried;
  for (const auto& u : robust["unvaried"]) unvaried[u["parameter"].get<std::string>()] = u["why"].get<std::string>();
  CHECK(unvaried.at("runtimes.mpi.dynamic_connections") == "a switch, not a number");
  CHECK(unvaried.at("runtimes.mpi.progress_cpu") == "zero");  // the scenario's machine sets it to 0 ns
  CHECK(robust["robust"] ==
        std::to_string(robust["moving"].get<int>()) + " of " + std::to_string(robust["moving"].get<int>()));
  CHECK(claim["label"] == "reproduced (robust)");
  // The status on each network model the machine supports: Hopper has router buffers.
  std::vector<std::string> models;
  for (const auto& m : robust["network_models"]) models.push_back(m["model"].get<std::string>());
  CHECK(models == std::vector<std::string>{"packet", "packet, credit flow control", "analytic"});
  CHECK(robust["network_models"][0]["primary"] == true);
  // The breakdown at the checked size: parts that add up to the latency.
  const Json& parts = claim["breakdowns"]["mpi"][0]["parts"];
  double sum = 0;
  for (const auto& [name, value] : parts.items())
    if (name != "latency_us") sum += value.get<double>();
  CHECK(sum == Approx(parts["latency_us"].get<double>()).margin(1e-6));
  CHECK(parts["send_us"].get<double>() > 0.2);  // MPI's send path and GNI_SmsgSend
  std::filesystem::remove_all(dir);
}

TEST_CASE("a variant of a parameter a run did not read reuses that run, exactly", "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-sensitivity-reuse");
  const auto claims = load_claims(sensitivity_registry(dir).string());
  auto robustness_with = [&](bool reuse) {
    PointCache cache(1, reuse);
    ClaimResult r = run_claim(claims[0], Where("claims.json"), cache, {true, {}, ""});
    add_robustness(r, Where("claims.json"), cache, {true, {}, ""});
    return results_json({r}, {true, {}, ""}).dump();
  };
  CHECK(robustness_with(true) == robustness_with(false));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a status that one parameter at 0.5x or 2x changes is fragile, and CI sees robust turn fragile",
          "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-sensitivity-fragile");
  const auto registry = sensitivity_registry(dir);
  std::string text = read_text(registry);
  text.replace(text.find(R"("expected": 1.27)"), 16, R"("expected": 1.0)");  // 1.14 us: 12 % apart
  std::ofstream(registry) << text;
  const auto report = (dir / "report").string();
  const auto status = (dir / "status.json").string();
  std::ofstream(status) << R"x({"quick": {"T1": "reproduced (robust)"}})x";
  // With MPI's send path doubled, 1.27 us is 21 % from 1.0: the status changes.
  CHECK(validate({"--registry", registry.string(), "--report", report, "--no-plots", "--quick", "--sensitivity",
                  "--check-status", status}) == 3);
  const Json claim = read_json_file(report + "/validation.json")["claims"][0];
  CHECK_THAT(claim["label"].get<std::string>(), Catch::StartsWith("reproduced (fragile: "));
  CHECK_THAT(claim["label"].get<std::string>(), Catch::Contains("runtimes.mpi.send_cpu"));
  CHECK_THAT(read_text(report + "/README.md"), Catch::Contains("The assumptions that decide it:"));
  // Without the robustness (a reduced-scale run without --sensitivity) only the status is checked.
  CHECK(validate({"--registry", registry.string(), "--report", report, "--no-plots", "--quick", "--check-status",
                  status}) == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("every full-scale run computes the robustness; a reduced-scale one with --sensitivity, and says how",
          "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-sensitivity-always");
  const auto report = (dir / "report").string();
  const auto registry = sensitivity_registry(dir).string();
  REQUIRE(validate({"--registry", registry, "--report", report, "--no-plots"}) == 0);
  CHECK(read_json_file(report + "/validation.json")["claims"][0].contains("robustness"));
  CHECK_THAT(read_text(dir / "report" / "README.md"), Catch::Contains("| `runtimes.mpi.send_cpu` | 130ns |"));
  // A reduced-scale run leaves it out (CI's quick validation stays as fast), and says so.
  REQUIRE(validate({"--registry", registry, "--report", report, "--no-plots", "--quick"}) == 0);
  CHECK_FALSE(read_json_file(report + "/validation.json")["claims"][0].contains("robustness"));
  const std::string text = read_text(dir / "report" / "README.md");
  CHECK_THAT(text, Catch::Contains("Robustness: not computed in this report; a full-scale run computes it, and "
                                   "`torsim validate --quick --only T1 --sensitivity` at this scale."));
  CHECK_THAT(text, !Catch::Contains("| `runtimes.mpi.send_cpu` |"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a claim whose full-scale robustness is on request gets it when named, and says why when not",
          "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-sensitivity-on-request");
  const auto report = (dir / "report").string();
  const auto registry = sensitivity_registry(dir, R"(, "on_request": "hours of CPU")").string();
  REQUIRE(validate({"--registry", registry, "--report", report, "--no-plots"}) == 0);
  const Json skipped = read_json_file(report + "/validation.json")["claims"][0];
  CHECK_FALSE(skipped.contains("robustness"));
  CHECK(skipped["label"] == "reproduced (robustness on request)");
  CHECK_THAT(read_text(dir / "report" / "README.md"),
             Catch::Contains("| on request | reproduced (robustness on request) |") &&
                 Catch::Contains("Robustness: on request, not computed in a run of the whole registry: hours of "
                                 "CPU. `torsim validate --only T1` computes it."));
  REQUIRE(validate({"--registry", registry, "--report", report, "--no-plots", "--only", "T1"}) == 0);
  const Json named = read_json_file(report + "/validation.json")["claims"][0];
  CHECK(named.contains("robustness"));
  CHECK_THAT(named["label"].get<std::string>(), Catch::StartsWith("reproduced (fragile: "));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a variant reruns only the curves the checks read, at the sweep points whose base runs gave the checked x",
          "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-sensitivity-checked-points");
  std::string text = read_text(sensitivity_registry(dir));
  // Two sweep points, each giving the latency series one size; the check reads 8 B only. A
  // second curve of the same runs is only drawn.
  std::ofstream(dir / "scenario.json")
      << R"({"machine": {"preset": "hopper"}, "runtime": {"layer": "mpi"}, "placement": {"node_list": [0, 1]},
      "workload": {"name": "pingpong", "sizes": [8], "iterations": 4, "warmup": 1},
      "sweep": {"workload.sizes": [[4096], [8]]}})";
  const std::string curve = text.substr(text.find(R"("mpi": {"scenario")") + 6);
  const std::string spec = curve.substr(0, curve.find('}') + 1);
  text.replace(text.find(R"("mpi": {"scenario")"), 6 + spec.size(), R"("mpi": )" + spec + R"(, "drawn": )" + spec);
  std::ofstream(dir / "claims.json") << text;
  const auto claims = load_claims((dir / "claims.json").string());
  PointCache cache(1);
  const Where where("claims.json");
  const ChecksRead read = checks_read(claims[0], where, cache, {});
  CHECK(read.curves == std::set<std::string>{"mpi"});
  REQUIRE(read.points.at("mpi").size() == 1);
  CHECK_THAT(*read.points.at("mpi").begin(), Catch::Contains("[8]"));
  const Evaluation varied = evaluate_with(claims[0], where, cache, false, {"machine.runtimes.mpi.send_cpu=1us"}, read);
  CHECK(varied.curves.size() == 1);
  CHECK(varied.curves.at("mpi").x == std::vector<double>{8});
  CHECK(check_requests(claims[0], where, {"machine.runtimes.mpi.send_cpu=1us"}, read).size() == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a run of the whole registry adopts an on-request claim's recorded robustness from the same runs only",
          "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-sensitivity-adopted");
  const auto claims = load_claims(sensitivity_registry(dir, R"(, "on_request": "hours of CPU")").string());
  PointCache cache(1);
  const RunSettings full{false, {}, ""};
  ClaimResult named = run_claim(claims[0], Where("claims.json"), cache, full);
  add_robustness(named, Where("claims.json"), cache, full);
  const Json recorded = results_json({named}, {false, {}, "T1"});
  const ClaimResult skipped = run_claim(claims[0], Where("claims.json"), cache, full);
  REQUIRE(robust_label(skipped) == "reproduced (robustness on request)");
  REQUIRE_THAT(robust_label(named), Catch::StartsWith("reproduced (fragile: "));

  std::vector<ClaimResult> results{skipped};
  adopt_recorded_robustness(results, recorded, "on-request/validation.json");
  CHECK(robust_label(results[0]) == robust_label(named));
  CHECK(robust_column(results[0]) == robust_column(named));
  CHECK_THAT(report_markdown(results, full, {}), Catch::Contains("as computed by a run naming the claim"));
  CHECK(results_json(results, full)["claims"][0]["recorded_robustness"]["stale"] == false);

  // Recorded from runs whose curves differ (another model, another preset): not adopted.
  Json altered = recorded;
  altered["claims"][0]["curves"]["mpi"]["y"][0] = 99.0;
  std::vector<ClaimResult> other{skipped};
  adopt_recorded_robustness(other, altered, "on-request/validation.json");
  CHECK(robust_label(other[0]) == "reproduced (robustness on request; the recorded one is stale)");
  CHECK(robust_column(other[0]) == "on request");
  CHECK_THAT(report_markdown(other, full, {}), Catch::Contains("came from runs whose curves differ"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a sensitivity parameter missing from the machine is an error naming the registry entry",
          "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-sensitivity-bad");
  const auto registry = sensitivity_registry(dir);
  std::string text = read_text(registry);
  text.replace(text.find("nic.registration_cpu"), 20, "nic.registration_cpuu");
  std::ofstream(registry) << text;
  try {
    validate({"--registry", registry.string(), "--report", (dir / "report").string(), "--no-plots", "--sensitivity"});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.path() == "/claims/0/sensitivity/parameters/0");
    CHECK_THAT(e.message(), Catch::Contains("no 'nic.registration_cpuu'"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a run notes the machine parameters it reads, and only those", "[validation][sensitivity]") {
  const auto dir = test::scratch_path("torsim-reads-test");
  sensitivity_registry(dir);
  PointCache cache;
  const PointRequest request{(dir / "scenario.json").string(), {}, [](const SweepPoint&) { return true; }};
  const auto points = cache.points(request);
  REQUIRE(points.size() == 1);
  const auto& reads = points[0]->reads;
  CHECK(reads.count("/machine/runtimes/mpi/send_cpu"));
  CHECK(reads.at("/machine/runtimes/mpi/send_cpu").given);
  CHECK(reads.count("/machine/nic/smsg_send_cpu"));
  CHECK(reads.count("/machine/node/cores"));
  CHECK_FALSE(reads.count("/machine/runtimes/charm/send_cpu"));  // a layer the run does not take
  CHECK_FALSE(reads.count("/machine/compute/nqueens_node"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a variant a model rejects says why, naming its files relative to the data root",
          "[validation][sensitivity]") {
  PointCache cache;
  PointRequest request{
      "scenarios/ib/wilkes-mpi.json", {"machine.topology.leaves=16"}, [](const SweepPoint&) { return true; }, true};
  const auto points = cache.points(request);
  REQUIRE_FALSE(points.empty());
  const std::string& error = points.front()->error;
  CHECK(error.find("scenarios/machines/wilkes.json") != std::string::npos);  // the preset that was varied
  CHECK(error.find(data_root()) == std::string::npos);                       // no checkout's own path
}
