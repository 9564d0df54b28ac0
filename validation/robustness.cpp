#include "validation/robustness.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "models/machine.hpp"

namespace torsim::validation {

namespace {

// The top-level keys of a machine: a registry parameter that starts with one is a machine path.
bool is_machine_path(const std::string& path) {
  static const std::set<std::string> keys{"topology", "node", "packet", "router", "nic", "gpu", "compute", "runtimes"};
  return keys.count(path.substr(0, path.find('.')));
}

std::string dotted(std::string pointer) {
  if (pointer.starts_with("/")) pointer.erase(0, 1);
  std::replace(pointer.begin(), pointer.end(), '/', '.');
  return pointer;
}

const Json* at_path(const Json& doc, const std::string& path) {
  const Json* at = &doc;
  std::stringstream parts(path);
  for (std::string key; std::getline(parts, key, '.');) {
    if (at->is_array() && !key.empty() && std::all_of(key.begin(), key.end(), ::isdigit) &&
        std::stoul(key) < at->size())
      at = &(*at)[std::stoul(key)];
    else if (at->is_object() && at->contains(key))
      at = &(*at)[key];
    else
      return nullptr;
  }
  return at;
}

// A table default as a scenario would write it: a number stays a number.
Json default_json(const std::string& text) {
  if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-')) {
    const Json parsed = Json::parse(text, nullptr, false);
    if (parsed.is_number()) return parsed;
  }
  return text;
}

std::string value_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Why a value cannot be halved and doubled, or "" when it can.
std::string unscalable(const Json& v) {
  if (v.is_number()) return v.get<double>() == 0 ? "zero" : "";
  if (!v.is_string()) return v.is_boolean() ? "a switch, not a number" : "not a number";
  try {
    const Json scaled = scaled_parameter(v, 2, Where("value"));
    return scaled == scaled_parameter(v, 0.5, Where("value")) ? "zero" : "";
  } catch (const InputError&) {
    return "not a number";
  }
}

// What the claim's runs read of one parameter: its values (one per distinct value) and citation.
struct Seen {
  std::set<std::string> values;
  Json value;
  std::string citation;
};

// Every machine parameter the base runs read, with its value and citation.
std::map<std::string, Seen> machine_reads(const std::vector<const RunPoint*>& points) {
  std::map<std::string, Seen> out;
  for (const RunPoint* p : points) {
    const Json& machine = p->completed.point.doc.at("machine");
    for (const auto& [pointer, read] : p->reads) {
      if (!pointer.starts_with("/machine/")) continue;
      const std::string path = dotted(pointer.substr(8));
      if (path == "name" || path == "description") continue;
      Seen& seen = out[path];
      const Json* given = read.given ? at_path(machine, path) : nullptr;
      seen.value = given ? *given : default_json(read.default_value);
      seen.values.insert(seen.value.dump());
      seen.citation =
          given ? machine_citation(machine, path) : (read.table_source == "preset" ? "" : read.table_source);
    }
  }
  return out;
}

struct Parameters {
  std::vector<VariedParameter> varied;
  std::vector<UnvariedParameter> unvaried;
};

void add_parameter(Parameters& out, VariedParameter p, const Seen& seen) {
  if (seen.values.size() > 1) {
    out.unvaried.push_back({p.path, "", "differs between the claim's runs", p.provenance});
    return;
  }
  p.value = value_text(seen.value);
  if (const std::string why = unscalable(seen.value); !why.empty()) {
    out.unvaried.push_back({p.path, p.value, why, p.provenance});
    return;
  }
  out.varied.push_back(std::move(p));
}

// The registry's parameters first, in its order, then every assumption the runs read.
Parameters parameters_of(const ClaimSpec& c, const std::vector<const RunPoint*>& points, const Where& where) {
  const auto reads = machine_reads(points);
  Parameters out;
  for (std::size_t i = 0; i < c.sensitivity.parameters.size(); ++i) {
    const std::string& path = c.sensitivity.parameters[i];
    const bool in_machine = is_machine_path(path);
    const Json& doc = points.front()->completed.point.doc;
    Seen seen;
    if (const auto it = reads.find(path); it != reads.end()) {
      seen = it->second;
    } else if (const Json* v = at_path(in_machine ? doc.at("machine") : doc, path)) {
      seen = {{v->dump()}, *v, in_machine ? machine_citation(doc.at("machine"), path) : ""};
    } else {
      (where / "sensitivity" / "parameters" / i)
          .fail("the " +
                std::string(in_machine ? "machine '" + doc.at("machine").value("name", std::string("?")) + "'"
                                       : "scenario") +
                " has no '" + path + "' (a sensitivity parameter needs its value in the " +
                (in_machine ? "machine preset)" : "scenario)"));
    }
    add_parameter(out, {path, "", seen.citation, classify_source(seen.citation), true, in_machine}, seen);
  }
  for (const auto& [path, seen] : reads) {
    const Provenance provenance = classify_source(seen.citation);
    if (provenance.source_class != SourceClass::assumption) continue;
    if (std::count(c.sensitivity.parameters.begin(), c.sensitivity.parameters.end(), path)) continue;
    add_parameter(out, {path, "", seen.citation, provenance, false, true}, seen);
  }
  return out;
}

std::vector<const RunPoint*> base_points(const ClaimSpec& c, const Where& where, PointCache& cache,
                                         const std::vector<std::string>& sets) {
  std::vector<const RunPoint*> out;
  for (const auto& [name, spec] : c.curves)
    for (const RunPoint* p : cache.points(curve_request(spec, sets, {}, where / "curves" / name))) out.push_back(p);
  return out;
}

std::vector<std::string> variant_sets(const std::vector<std::string>& base, const VariedParameter& p, double factor) {
  auto sets = base;
  const Json scaled = scaled_parameter(default_json(p.value), factor, Where("sensitivity"));
  sets.push_back(p.set_path() + "=" + value_text(scaled));
  return sets;
}

// How far a variant moves the claim's curves: the largest relative change of any point, in
// percent (0: the variant changes no result).
double effect(const Evaluation& base, const Evaluation& varied) {
  double largest = 0;
  for (const auto& [name, curve] : base.curves) {
    const auto other = varied.curves.find(name);
    if (other == varied.curves.end()) continue;
    for (std::size_t i = 0; i < curve.x.size(); ++i) {
      const auto y = other->second.at(curve.x[i]);
      if (!y) continue;
      const double scale = std::max(std::fabs(curve.y[i]), 1e-300);
      largest = std::max(largest, 100 * std::fabs(*y - curve.y[i]) / scale);
    }
  }
  return largest;
}

// The network models the claim's machine supports; the scenarios' own is the primary.
std::vector<ModelStatus> network_models(const RunPoint& first) {
  const Json& doc = first.completed.point.doc;
  const Json network = doc.value("network", Json::object());
  const std::string model = network.value("model", std::string("packet"));
  const bool credit = network.value("flow_control", std::string("none")) == "credit";
  const Json router = doc.at("machine").value("router", Json::object());
  std::vector<ModelStatus> out{{"packet", "network.flow_control=none", model == "packet" && !credit, {}, {}, ""}};
  if (router.contains("buffer_per_vc"))
    out.push_back(
        {"packet, credit flow control", "network.flow_control=credit", model == "packet" && credit, {}, {}, ""});
  out.push_back({"analytic", "network.model=analytic", model == "analytic", {}, {}, ""});
  return out;
}

void add_models(ClaimResult& r, const Where& where, PointCache& cache, const std::vector<std::string>& base,
                const ChecksRead& read, const RunPoint& first) {
  Robustness& robust = r.robustness;
  robust.models = network_models(first);
  std::vector<PointRequest> requests;
  for (const auto& m : robust.models) {
    if (m.primary) continue;
    auto sets = base;
    if (m.model != "analytic") sets.push_back("network.model=packet");
    sets.push_back(m.set);
    for (auto& q : check_requests(*r.claim, where, sets, read, true)) requests.push_back(std::move(q));
  }
  cache.prefetch(requests);
  for (auto& m : robust.models) {
    auto sets = base;
    if (!m.primary) {
      if (m.model != "analytic") sets.push_back("network.model=packet");
      sets.push_back(m.set);
    }
    try {
      m.verdicts = m.primary ? robust.base : evaluate_with(*r.claim, where, cache, r.quick, sets, read).verdicts;
      m.status = status_of(m.verdicts);
    } catch (const ImpossibleRun& e) {
      m.impossible = e.what();
    }
  }
}

}  // namespace

void add_robustness(ClaimResult& r, const Where& where, PointCache& cache, const RunSettings& run) {
  const ClaimSpec& c = *r.claim;
  if (!c.not_modelled.empty() || c.curves.empty()) return;
  std::vector<std::string> base = claim_sets(c, run);
  base.insert(base.end(), c.sensitivity.set.begin(), c.sensitivity.set.end());
  const auto points = base_points(c, where, cache, base);
  Parameters parameters = parameters_of(c, points, where);
  Robustness& robust = r.robustness;
  robust.computed = true;
  const ChecksRead read = checks_read(c, where, cache, base);
  const Evaluation base_evaluation = evaluate_with(c, where, cache, run.quick, base, read);
  robust.base = base_evaluation.verdicts;
  robust.unvaried = std::move(parameters.unvaried);
  std::vector<PointRequest> requests;
  for (const auto& p : parameters.varied)
    for (const double f : kSensitivityFactors)
      for (auto& q : check_requests(c, where, variant_sets(base, p, f), read, true)) requests.push_back(std::move(q));
  cache.prefetch(requests);
  for (auto& p : parameters.varied) {
    SensitivityRow row{std::move(p), {}, {}, {}, {}, 0};
    for (std::size_t f = 0; f < kSensitivityFactors.size(); ++f) {
      Evaluation varied;
      try {
        varied =
            evaluate_with(c, where, cache, run.quick, variant_sets(base, row.parameter, kSensitivityFactors[f]), read);
      } catch (const ImpossibleRun& e) {
        row.impossible[f] = e.what();
        continue;
      }
      row.verdicts[f] = varied.verdicts;
      row.status[f] = status_of(row.verdicts[f]);
      const double moved_by = effect(base_evaluation, varied);
      row.effect = std::max(row.effect, moved_by);
      row.moved[f] = moved_by > 0 || row.status[f] != status_of(robust.base);
    }
    robust.rows.push_back(std::move(row));
  }
  sort_by_effect(robust.rows);
  add_models(r, where, cache, base, read, *points.front());
}

namespace {

std::string names(const std::vector<std::string>& list, std::size_t most) {
  std::string out;
  for (std::size_t i = 0; i < list.size() && i < most; ++i) out += (i ? ", " : "") + list[i];
  if (list.size() > most) out += " and " + std::to_string(list.size() - most) + " more";
  return out;
}

}  // namespace

bool robustness_on_request(const ClaimResult& r) {
  return !r.robustness.computed && !r.quick && !r.claim->sensitivity.on_request.empty();
}

bool quotes_recorded_robustness(const ClaimResult& r) {
  return robustness_on_request(r) && r.recorded && !r.recorded->stale;
}

std::string robust_label(const ClaimResult& r) {
  std::string label(status_name(r.status));
  const Robustness& robust = r.robustness;
  std::vector<std::string> notes;
  if (robust.computed) {
    const auto flips = robust.flipping(r.status);
    notes.push_back(flips.empty() ? "robust" : "fragile: " + names(flips, 4));
    for (const ModelStatus* m : robust.differing_models(r.status))
      notes.push_back(std::string(status_name(m->status)) + " on " + m->model);
  } else if (quotes_recorded_robustness(r)) {
    return r.recorded->label;  // the same runs decided it: its notes are this run's
  } else if (robustness_on_request(r)) {
    notes.push_back(r.recorded ? "robustness on request; the recorded one is stale" : "robustness on request");
  }
  if (!r.claim->by_construction.empty() && r.status == Status::reproduced) notes.push_back("holds by construction");
  if (!r.what_if.empty()) notes.push_back("what-if");
  std::string joined;
  for (const auto& n : notes) joined += (joined.empty() ? "" : "; ") + n;
  return joined.empty() ? label : label + " (" + joined + ")";
}

std::string robust_column(const ClaimResult& r) {
  const Robustness& robust = r.robustness;
  if (quotes_recorded_robustness(r)) return r.recorded->column;
  if (!robust.computed) return robustness_on_request(r) ? "on request" : "-";
  return std::to_string(robust.kept_variants(r.status)) + " of " + std::to_string(robust.moving_variants());
}

}  // namespace torsim::validation
