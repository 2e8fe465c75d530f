#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "parallelism/step_program.hpp"
#include "runtime/comm_model.hpp"
#include "runtime/input_pipeline.hpp"
#include "runtime/time_category.hpp"

namespace podsim::runtime {

inline constexpr std::size_t kCommAxes = 4;  ///< tp, dp, pp, other

/// What one stage's representative chip did during the step.
struct StageResult {
  int stage = 0;
  std::uint32_t multiplicity = 1;  ///< chips that behave exactly like this one
  CategoryTimes time_ps{};         ///< sums to the step time
  double flops = 0;                ///< useful FLOPs executed (recompute included)
  double padded_flops = 0;
  std::array<double, kCommAxes> comm_bytes{};     ///< bytes this chip sent, per CommAxis
  std::array<SimTime, kCommAxes> comm_busy_ps{};  ///< time its communication ran, per axis
};

/// The simulated step.
struct ExecutionResult {
  SimTime step_ps = 0;
  std::vector<StageResult> stages;
  std::uint64_t events = 0;
};

/// Runs every stage's program on the event engine. Streams of a stage run side by side,
/// each in program order; a task starts when its stream is free and what it waits for has
/// happened. The compute stream's timeline is cut into categories: running compute is
/// compute.*, a blocking collective comm.tp; a wait is classified by what it waited for —
/// a pipeline message (bubble while the sender was still computing, comm.pp once the
/// message was on its way), the host (input_stall), a data-parallel or other collective
/// (comm.dp / comm.other). After its last task a stage waits for the slowest one: bubble
/// with pipeline parallelism, idle otherwise.
ExecutionResult execute_step(const parallelism::StepPlan& plan, CommModel& comm,
                             const parallelism::InputPipelineSpec& input, int micro_batch);

}  // namespace podsim::runtime
