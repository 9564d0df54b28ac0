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
};

Options parse(const std::vector<std::string>& args) {
  Options o;
  o.report = data_root() + "/docs/validation";
  o.registry = data_root() + "/validation/claims.json";
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
    else if (args[i] == "--only") {
      std::stringstream ids(value());
      for (std::string id; std::getline(ids, id, ',');) o.only.insert(id);
    } else if (args[i] == "--report")
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

// validation.json, the plots and README.md, published together.
void write_report(OutputDir& out, const std::vector<ClaimResult>& results, const Options& o) {
  const std::string json = results_json(results, o.quick).dump(2) + "\n";
  out.write("validation.json", json);
  std::vector<std::string> plotted;
  if (o.plots)
    for (const auto& [id, png] : draw_plots(json)) {
      out.write(id + ".png", png);
      plotted.push_back(id);
    }
  out.write("README.md", report_markdown(results, o.quick, plotted));
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
    results.push_back(run_claim(*claim, where, cache, o.quick));
    if (o.sensitivity || (claim->sensitivity.always && !o.quick))
      add_sensitivity(results.back(), where, cache, o.quick);
  }
  print_table(results);
  print_sensitivity(results);
  write_report(out, results, o);
  std::cout << "wrote " << o.report << "/README.md and validation.json\n";
  if (!o.record_status.empty()) record(o.record_status, results, o.quick);
  return o.check_status.empty() ? 0 : check_against(o.check_status, results, o.quick);
}

}  // namespace torsim
