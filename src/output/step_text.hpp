#pragma once

#include <string>

#include "output/step_tables.hpp"

namespace podsim::output {

/// The report `podsim run` prints: headline metrics, where the pacing stage's time goes,
/// memory per chip, bytes per parallelism axis, the busiest link.
std::string step_text(const runtime::Scenario& scenario, const runtime::StepReport& report,
                      const topology::Topology& topo, const RunLabels& labels);

/// The summary as one JSON object (`podsim run --json`): step_time_s, mfu, tokens_per_s,
/// and the rest of /summary, plus the pacing stage's breakdown in seconds.
std::string step_json(const runtime::Scenario& scenario, const runtime::StepReport& report, const RunLabels& labels);

}  // namespace podsim::output
