#pragma once

// One collective's timing as JSON members: the same keys in `podsim collective --json` (one
// object per size) and `podsim validate --json` (a collective row's "collective" record).

#include <string>

#include "collectives/collective_timing.hpp"
#include "output/json_writer.hpp"

namespace podsim::cli {

/// NCCL's protocol, or empty when NCCL does not run the collective.
std::string protocol_text(const collectives::CollectiveTiming& t);

/// bytes, algorithm, protocol, nccl_predicted_s (NCCL runs only), time_s, algbw_Bps, busbw_Bps,
/// max_link_utilization, into the object `j` has open.
void write_timing_members(output::JsonWriter& j, const collectives::CollectiveTiming& t);

}  // namespace podsim::cli
