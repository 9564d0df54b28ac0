// Overlaying one JSON object on another (a scenario's overrides on a machine preset, --set on
// a scenario) while remembering which file gave each value, so errors name the right one.
#pragma once

#include <string>

#include "sim/config/params.hpp"

namespace torsim {

/// Deep merge: objects merge key by key; an object whose keys are all integers patches the
/// elements of an array by index ({"dims": {"1": {"size": 4}}}); anything else replaces.
/// Errors (e.g. an index beyond the array) name `patch_where`.
Json merge_overrides(Json base, const Json& patch, const Where& patch_where);

/// Whether `pointer` (a JSON pointer relative to the merged object) or one of its ancestors
/// was given by `patch`, i.e. the value at `pointer` came from the patch.
bool given_by(const Json& patch, const std::string& pointer);

/// An error raised while parsing a merged object (whose location was `merged_where`) is
/// re-raised against whichever of the two sources gave the value at fault.
[[noreturn]] void reattribute(const InputError& error, const Where& merged_where, const Json& patch,
                              const Where& patch_where, const Where& base_where);

/// Sets a dotted path ("workload.sizes", "machine.topology.dims.1.size") in `doc`, creating
/// objects as needed. The value text is parsed as JSON, or taken as a string if it is not JSON.
void set_dotted(Json& doc, const std::string& assignment, const Where& where);

}  // namespace torsim
