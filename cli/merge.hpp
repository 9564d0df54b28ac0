// `torsim merge`: combines the output directories of a run's shards (torsim run --shard K/N, one
// per Slurm array task) into what the single run writes: the same results.json (apart from the
// wall-clock figures), CSVs, links.csv and trace, byte for byte.
#pragma once

#include "cli/options.hpp"

namespace torsim {

const CommandSpec& merge_command();

}  // namespace torsim
