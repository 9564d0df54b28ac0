#include "cli/validate.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/run_command.hpp"
#include "run/output_files.hpp"
#include "sim/config/registry.hpp"
#include "validation/report.hpp"
#include "validation/robustness.hpp"
#include "validation/status.hpp"

namespace torsim {

using namespace validation;

namespace {

struct Options {
  std::set<std::string> only;
  std::string report, registry, check_status, record_status;
  bool quick = false, plots = true, sensitivity = false, no_sensitivity = false;
  std::vector<std::string> what_if;  // --set
  std::size_t jobs = 1;
};

[[noreturn]] void empty_claim_id(const std::string& text) {
  Where("command line", "--only " + text).fail("an empty claim id: expected ids separated by commas, such as C1,K2");
}

// "C1,K2": each id non-empty (an empty list would silently mean every claim).
std::set<std::string> claim_ids(const std::string& text) {
  std::set<std::string> ids;
  std::stringstream list(text);
  for (std::string id; std::getline(list, id, ',');) {
    if (id.empty()) empty_claim_id(text);
    ids.insert(id);
  }
  if (ids.empty() || text.back() == ',') empty_claim_id(text);
  return ids;
}

// The committed report (docs/validation/) is what a full run of the project's registry gives;
// any other run writes to results/validation/ unless --report says where.
std::string default_report(const Options& o, const std::string& project_registry) {
  const bool full =
      o.only.empty() && !o.quick && o.what_if.empty() && !o.no_sensitivity && o.registry == project_registry;
  return full ? data_root() + "/docs/validation" : "results/validation";
}

// Full scale: always (the statuses recorded carry it); reduced scale: with --sensitivity.
bool robustness_wanted(const Options& o) { return o.sensitivity || (!o.quick && !o.no_sensitivity); }

// A claim whose full-scale robustness costs hours is computed when --only names it, not in a
// run of the whole registry (the report says so, and why).
bool on_request(const ClaimSpec& c, const Options& o) {
  return !o.quick && o.only.empty() && !c.sensitivity.on_request.empty();
}

void refuse_recording_a_what_if(const Options& o) {
  if (o.what_if.empty()) return;
  if (!o.record_status.empty())
    Where("command line", "--record-status")
        .fail("a what-if (--set) is never recorded as a claim's status: expected one or the other");
  if (!o.check_status.empty())
    Where("command line", "--check-status")
        .fail("a what-if (--set) is not checked against the claims' statuses: expected one or the other");
}

Options parse(const Args& args) {
  Options o;
  const std::string project_registry = data_root() + "/validation/claims.json";
  o.registry = args.value("--registry", project_registry);
  o.quick = args.given("--quick");
  o.plots = !args.given("--no-plots");
  o.sensitivity = args.given("--sensitivity");
  o.no_sensitivity = args.given("--no-sensitivity");
  if (args.given("--jobs")) o.jobs = parse_jobs(args.value("--jobs"));
  if (args.given("--only")) o.only = claim_ids(args.value("--only"));
  o.what_if = args.values("--set");
  o.report = args.value("--report");
  o.check_status = args.value("--check-status");
  o.record_status = args.value("--record-status");
  if (o.report.empty()) o.report = default_report(o, project_registry);
  refuse_recording_a_what_if(o);
  if (o.sensitivity && o.no_sensitivity)
    Where("command line", "--no-sensitivity").fail("expected --sensitivity or --no-sensitivity, not both");
  if (!o.record_status.empty() && !robustness_wanted(o) && !o.quick)
    Where("command line", "--record-status")
        .fail("a full-scale status is recorded with its robustness: expected it without --no-sensitivity");
  return o;
}

std::vector<const ClaimSpec*> select(const std::vector<ClaimSpec>& claims, const std::set<std::string>& only) {
  std::vector<const ClaimSpec*> out;
  std::vector<std::string_view> ids;
  for (const auto& c : claims) {
    ids.push_back(c.id);
    if (only.empty() || only.count(c.id)) out.push_back(&c);
  }
  for (const auto& id : only)
    if (std::find(ids.begin(), ids.end(), id) == ids.end())
      Where("command line", "--only " + id).fail(unknown_name_message("claim", id, ids));
  return out;
}

RunSettings settings(const Options& o) {
  std::string only;
  for (const auto& id : o.only) only += (only.empty() ? "" : ",") + id;
  return {o.quick, o.what_if, only};
}

// validation.json, the plots and README.md, published together.
void write_report(OutputDir& out, const std::vector<ClaimResult>& results, const Options& o) {
  const std::string json = results_json(results, settings(o)).dump(2) + "\n";
  out.write("validation.json", json);
  std::vector<std::string> plotted;
  if (o.plots)
    for (const auto& [id, png] : draw_plots(json)) {
      out.write(id + ".png", png);
      plotted.push_back(id);
    }
  out.write("README.md", report_markdown(results, settings(o), plotted));
  out.publish();
}

// A run of the whole registry (no what-if) shows the robustness a run naming each on-request
// claim recorded in the committed report's on-request/<claim>/ directory, where the same runs
// decided it.
void adopt_on_request(std::vector<ClaimResult>& results, const Options& o) {
  if (o.quick || !o.only.empty() || !o.what_if.empty()) return;
  for (const auto& r : results) {
    const std::string relative = "docs/validation/" + on_request_report(r.claim->id) + "/validation.json";
    const std::string path = data_root() + "/" + relative;
    if (robustness_on_request(r) && std::filesystem::exists(path))
      adopt_recorded_robustness(results, read_json_file(path), relative);
  }
}

void record(const std::string& path, const std::vector<ClaimResult>& results, bool quick) {
  AtomicFile file(path, Where("command line", "--record-status " + path));
  file.writer().write(recorded_status(path, results, quick));
  file.publish();
}

int command_validate(const Args& args) {
  const Options o = parse(args);
  const auto claims = load_claims(o.registry);
  OutputDir out(o.report, Where("command line", "--report " + o.report));
  out.check_writable();
  PointCache cache(o.jobs);
  std::vector<ClaimResult> results;
  for (const auto* claim : select(claims, o.only)) {
    const Where where = Where(o.registry) / "claims" / static_cast<std::size_t>(claim - claims.data());
    results.push_back(run_claim(*claim, where, cache, settings(o)));
    if (robustness_wanted(o) && !on_request(*claim, o)) add_robustness(results.back(), where, cache, settings(o));
  }
  adopt_on_request(results, o);
  print_table(results);
  print_sensitivity(results);
  write_report(out, results, o);
  std::cout << "wrote " << o.report << "/README.md and validation.json\n";
  if (!o.record_status.empty()) record(o.record_status, results, o.quick);
  return o.check_status.empty() ? 0 : check_against(o.check_status, results, o.quick);
}

}  // namespace

const CommandSpec& validate_command() {
  static const CommandSpec spec{
      "validate",
      "",
      0,
      0,
      "compare with the papers' claims",
      "Runs the scenarios of the registered claims, prints claim | paper | simulated | tolerance | robust | status\n"
      "and writes the report: a full run into docs/validation/; with --only, --quick or --set into\n"
      "results/validation/ unless --report says where. A full-scale run computes each claim's robustness:\n"
      "every parameter its runs read whose source is an assumption, and each its registry entry lists, at 0.5x\n"
      "and 2x, and its status on each network model the machine supports.",
      {{"--only", "C1,K2", "only these claims"},
       {"--quick", "", "the claims' reduced-scale variants (as CI runs them)"},
       {"--report", "DIR", "the report's directory"},
       {"--no-plots", "", "no plots in the report"},
       {"--sensitivity", "", "the robustness at reduced scale too (--quick)"},
       {"--no-sensitivity", "", "no robustness at full scale (a partial look; never recorded)"},
       {"--set", "path=value", "a what-if on every claim's runs, reported as such and never recorded as a status",
        true},
       {"--jobs", "N", "runs at once, each in a process of its own (1 to 4096; the same results)", false, "-j"},
       {"--check-status", "FILE",
        "exit 3 if a claim recorded in FILE as reproduced no longer is, or one recorded as robust is now fragile"},
       {"--record-status", "FILE", "record each claim's status and robustness in FILE (validation/status.json)"},
       {"--registry", "FILE", "a claims registry other than validation/claims.json"}},
      command_validate};
  return spec;
}

}  // namespace torsim
