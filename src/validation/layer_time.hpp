#pragma once

// One transformer layer's forward and backward on one chip, as Korthikanti et al. 2022
// Table 4 time it: the layer's forward ops, the recompute its policy runs before the
// backward, the backward ops, and its tensor-parallel collectives timed on the scenario's
// network — no embedding, head, pipeline or data parallelism.

#include "runtime/scenario.hpp"

namespace podsim::validation {

/// Seconds of one layer's forward + recompute + backward for one microbatch.
double layer_seconds(const runtime::Scenario& scenario);

}  // namespace podsim::validation
