// How far to trust a claim's status: the claim re-evaluated with each parameter its runs read
// whose source is an assumption (found from what the runs read, sim/config/provenance.hpp), and
// each its registry entry lists, at 0.5x and 2x of its value; and on every network model the
// machine supports (packet; packet with credit flow control where the preset has router
// buffers; analytic). Only the points the checks read run again, and a run that did not read a
// parameter is not run again for it.
#pragma once

#include "validation/evaluate.hpp"

namespace torsim::validation {

/// Computes r.robustness at the scale of r's status (with --quick: the reduced one).
void add_robustness(ClaimResult& r, const Where& where, PointCache& cache, const RunSettings& run);

/// The label of a status with its robustness: "reproduced (robust)", "not reproduced (fragile:
/// nic.bte_setup, ...)", with the network models on which it differs and "holds by
/// construction" where the registry says so; plain when the robustness was not computed.
std::string robust_label(const ClaimResult& r);

/// A full-scale result whose robustness was left to a run that names the claim (its registry's
/// sensitivity.on_request).
bool robustness_on_request(const ClaimResult& r);

/// An on-request result that quotes the robustness a run naming its claim recorded, from the
/// same runs (r.recorded, not stale).
bool quotes_recorded_robustness(const ClaimResult& r);

/// "k of n": of the n variants that move a result, the k that keep the status; "-" when not
/// computed.
std::string robust_column(const ClaimResult& r);

}  // namespace torsim::validation
