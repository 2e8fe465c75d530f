#pragma once

#include <cstddef>
#include <string>

#include "output/table.hpp"
#include "plan/plan_run.hpp"

namespace podsim::plan {

/// What a plan was asked, for headers and the file.
struct PlanRequest {
  runtime::Scenario base;
  std::string topology_name;
  std::size_t top = 10;  ///< ranked layouts printed
};

/// Lines on pure data parallelism (tp = pp = 1: replicated, then sharded with ZeRO) and
/// pure model parallelism (dp = 1): the best such layout against the winner and its
/// largest overhead, or why none can run ("never fits in memory: even with full recompute
/// and micro batch 1, a chip of pipeline stage 0 needs 2453.1 GiB of 32.0 GiB").
/// How many of the ranked layouts, the winner included, lie within podsim's error in comparing
/// two runs (output::PredictionBand::spread of the chip) of the winner's step: a tie, not a ranking.
std::size_t tied_with_winner(const PlanRequest& request, const PlanResult& result);
/// "a tie: #1–#13 lie within 4.4 %, … of the winner's step, …; they differ in tp, pp, ZeRO", or
/// "no tie: …".
std::string tie_text(const PlanRequest& request, const PlanResult& result);

std::string pure_data_parallel_verdict(const PlanRequest& request, const PlanResult& result);
std::string pure_model_parallel_verdict(const PlanRequest& request, const PlanResult& result);

/// The ranked table of the best `request.top` layouts, the counts, and the two verdicts.
std::string plan_text(const PlanRequest& request, const PlanResult& result);
/// The same as one JSON object: request, counts, "ranked" (best first), the verdicts.
std::string plan_json(const PlanRequest& request, const PlanResult& result);
/// Every enumerated layout, one row each (docs/output-schema.md, /plan).
output::Table plan_table(const PlanRequest& request, const PlanResult& result);
/// /plan_verdicts: the pure data- and model-parallel verdicts and the tie line, as text.
output::Table plan_verdicts_table(const PlanRequest& request, const PlanResult& result);

}  // namespace podsim::plan
