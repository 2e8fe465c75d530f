#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "parallelism/step_program.hpp"
#include "runtime/comm_model.hpp"
#include "runtime/input_pipeline.hpp"
#include "runtime/step_recorder.hpp"
#include "runtime/time_category.hpp"

namespace podsim::runtime {

inline constexpr std::size_t kCommAxes = 4;  ///< what results report per axis: tp, dp, pp, other

/// The reported axis of a communication: hybrid sharding's replica all-reduces count as
/// data-parallel (their time already does, time_category.hpp).
constexpr std::size_t report_axis(parallelism::CommAxis axis) {
  return axis == parallelism::CommAxis::kDpReplica ? static_cast<std::size_t>(parallelism::CommAxis::kDp)
                                                   : static_cast<std::size_t>(axis);
}

/// What one stage's representative chip did during the step.
struct StageResult {
  int stage = 0;
  std::uint32_t multiplicity = 1;  ///< chips that behave exactly like this one
  CategoryTimes time_ps{};         ///< sums to the step time
  double flops = 0;                ///< useful FLOPs executed (recompute included)
  double padded_flops = 0;
  std::array<double, kCommAxes> comm_bytes{};     ///< bytes this chip sent, per report_axis
  /// Time at least one communication of the axis was in flight (streams overlap: a union,
  /// so it never exceeds the step).
  std::array<SimTime, kCommAxes> comm_busy_ps{};
  /// Compute time added by communication holding compute units (a GPU's SMs under NCCL's
  /// kernels): part of compute.*, the time the same tasks would take with the chip alone.
  SimTime compute_slowed_ps = 0;
  /// Compute time the GPU spends waiting for the host to issue kernels (eager frameworks:
  /// parallelism::StageProgram::host_bound_ps): part of compute.*.
  SimTime compute_host_bound_ps = 0;
};

/// How busy one link class was over the step (`podsim run --trace`'s counter tracks):
/// its load (0 … 1) from each time on, until the next sample.
struct LinkSeries {
  std::string label;  ///< CommModel::resource_label, e.g. "stage 3 · x+"
  std::vector<std::pair<SimTime, double>> samples;
  double busy_ps = 0;  ///< ∫ load dt over the step
};

/// The simulated step.
struct ExecutionResult {
  SimTime step_ps = 0;
  std::vector<StageResult> stages;
  std::uint64_t events = 0;  ///< processed, or standing for a repeated period's (the same count)
  /// Periods of repeated microbatches added rather than simulated (Repeats::kSkip).
  std::uint64_t repeated_periods = 0;
  /// Microbatches the step has beyond those its programs hold, added as repeated periods
  /// (execute_step's `missing`): what was asked when the lengthening held, else less.
  int microbatches_added = 0;
  std::vector<PathSegment> critical_path;  ///< in time order; lengths sum to step_ps
  std::vector<Span> timeline;              ///< every interval of every stream (when asked for)
  std::vector<Flow> flows;                 ///< every pipeline message (with the timeline)
  /// With the timeline: the busiest link classes (up to 4, by busy time), load over time.
  std::vector<LinkSeries> busiest_links;
};

/// Runs every stage's program on the event engine. Streams of a stage run side by side,
/// each in program order; a task starts when its stream is free and what it waits for has
/// happened. The compute stream's timeline is cut into categories: running compute is
/// compute.*, a blocking collective comm.tp; a wait is classified by what it waited for —
/// a pipeline message (bubble while the sender was still computing, comm.pp once the
/// message was on its way), the host (input_stall), a data-parallel or other collective
/// (comm.dp / comm.other). After its last task a stage waits for the slowest one: bubble
/// with pipeline parallelism, idle otherwise.
///
/// Communication runs on one shared network: every collective and message in flight at the
/// same time, of any axis, stream or stage, shares the link classes it loads (CommProfile,
/// network::LinkSharing), so a link is never busier than 100 % and communication "hidden"
/// under compute still slows whatever else crosses its links. It slows the compute beside it
/// too: the SMs its kernels hold and the HBM bandwidth its traffic takes (ChipSharing); a
/// running compute task is retimed whenever either changes.
///
/// Repeated microbatches (steady_state.hpp): once the state at the start of a microbatch is
/// an earlier one's moved forward and the programs ahead repeat, the periods in between are
/// not simulated but added — times, bytes, FLOPs and events exactly as simulating them gives.
/// The critical path's records are moved with them. Not with Recording::kTimeline (every
/// interval is drawn) or a host that limits (its buffer is not part of the test).
/// Repeats::kSimulate simulates every one (the tests' reference).
///
/// `missing` > 0 (Recording::kTotals only): the step has that many microbatches more than the
/// programs hold, programs built shorter by parallelism::build_step's `held_microbatches`.
/// At repeated periods the run is lengthened by them, as whole periods: times, sums,
/// events and the comm model's counts move as the whole step's would, task and message numbers
/// only as far as the short programs go (runtime/short_programs.hpp says why this is the
/// whole step's run). Where it cannot be (no period repeats, the period does not divide
/// `missing`, or its FLOPs are not whole microbatches'), microbatches_added is not `missing`
/// and the result is not the step's.
enum class Repeats : std::uint8_t { kSkip, kSimulate };
ExecutionResult execute_step(const parallelism::StepPlan& plan, CommModel& comm, InputPipeline& input,
                             Recording recording = Recording::kCriticalPath, Repeats repeats = Repeats::kSkip,
                             int missing = 0);
/// The same with a fresh host pipeline (its buffer full at the start).
ExecutionResult execute_step(const parallelism::StepPlan& plan, CommModel& comm,
                             const parallelism::InputPipelineSpec& input, int micro_batch);

}  // namespace podsim::runtime
