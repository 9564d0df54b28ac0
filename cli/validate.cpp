#include "cli/validate.hpp"

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "run/output_files.hpp"
#include "validation/report.hpp"
#include "validation/status.hpp"

namespace torsim {

using namespace validation;

namespace {

struct Options {
  std::set<std::string> only;
  std::string report, registry, check_status, record_status;
  bool quick = false, plots = true, sensitivity = false;
  std::vector<std::string> what_if;  // --set
};

// "C1,K2": each id non-empty (an empty list would silently mean every claim).
std::set<std::string> claim_ids(const std::string& text) {
  std::set<std::string> ids;
  std::stringstream list(text);
  for (std::string id; std::getline(list, id, ',');) {
    if (id.empty()) throw UsageError("validate: --only '" + text + "' has an empty claim id (expected e.g. C1,K2)");
    ids.insert(id);
  }
  if (ids.empty() || text.back() == ',')
    throw UsageError("validate: --only '" + text + "' has an empty claim id (expected e.g. C1,K2)");
  return ids;
}

// The committed report (docs/validation/) is what a full run of the project's registry gives;
// any other run writes to results/validation/ unless --report says where.
std::string default_report(const Options& o, const std::string& project_registry) {
  const bool full = o.only.empty() && !o.quick && o.what_if.empty() && o.registry == project_registry;
  return full ? data_root() + "/docs/validation" : "results/validation";
}

void refuse_recording_a_what_if(const Options& o) {
  if (o.what_if.empty()) return;
  if (!o.record_status.empty())
    throw UsageError("validate: --record-status with --set: a what-if is never recorded as a claim's status");
  if (!o.check_status.empty())
    throw UsageError("validate: --check-status with --set: a what-if is not checked against the claims' statuses");
}

Options parse(const std::vector<std::string>& args) {
  Options o;
  const std::string project_registry = data_root() + "/validation/claims.json";
  o.registry = project_registry;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto value = [&] {
      if (i + 1 >= args.size()) throw UsageError(args[i] + " needs a value");
      return args[++i];
    };
    if (args[i] == "--quick")
      o.quick = true;
    else if (args[i] == "--no-plots")
      o.plots = false;
    else if (args[i] == "--sensitivity")
      o.sensitivity = true;
    else if (args[i] == "--only")
      o.only = claim_ids(value());
    else if (args[i] == "--set")
      o.what_if.push_back(value());
    else if (args[i] == "--report")
      o.report = value();
    else if (args[i] == "--registry")
      o.registry = value();
    else if (args[i] == "--check-status")
      o.check_status = value();
    else if (args[i] == "--record-status")
      o.record_status = value();
    else
      throw UsageError("validate: unknown argument '" + args[i] + "'");
  }
  if (o.report.empty()) o.report = default_report(o, project_registry);
  refuse_recording_a_what_if(o);
  return o;
}

std::vector<const ClaimSpec*> select(const std::vector<ClaimSpec>& claims, const std::set<std::string>& only) {
  std::vector<const ClaimSpec*> out;
  for (const auto& c : claims)
    if (only.empty() || only.count(c.id)) out.push_back(&c);
  for (const auto& id : only)
    if (std::none_of(claims.begin(), claims.end(), [&](const ClaimSpec& c) { return c.id == id; }))
      throw UsageError("validate: no claim '" + id + "' in the registry");
  return out;
}

RunSettings settings(const Options& o) { return {o.quick, o.what_if}; }

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

void record(const std::string& path, const std::vector<ClaimResult>& results, bool quick) {
  AtomicFile file(path, Where("command line", "--record-status " + path));
  file.writer().write(recorded_status(path, results, quick));
  file.publish();
}

}  // namespace

int command_validate(const std::vector<std::string>& args) {
  const Options o = parse(args);
  const auto claims = load_claims(o.registry);
  OutputDir out(o.report, Where("command line", "--report " + o.report));
  out.check_writable();
  PointCache cache;
  std::vector<ClaimResult> results;
  for (const auto* claim : select(claims, o.only)) {
    const Where where = Where(o.registry) / "claims" / static_cast<std::size_t>(claim - claims.data());
    results.push_back(run_claim(*claim, where, cache, settings(o)));
    if (o.sensitivity || (claim->sensitivity.always && !o.quick))
      add_sensitivity(results.back(), where, cache, settings(o));
  }
  print_table(results);
  print_sensitivity(results);
  write_report(out, results, o);
  std::cout << "wrote " << o.report << "/README.md and validation.json\n";
  if (!o.record_status.empty()) record(o.record_status, results, o.quick);
  return o.check_status.empty() ? 0 : check_against(o.check_status, results, o.quick);
}

}  // namespace torsim
