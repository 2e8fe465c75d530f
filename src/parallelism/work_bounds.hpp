#pragma once

// What a step will cost to simulate, and whether its times can be represented at all —
// known from the scenario before anything is built, so that an absurd input is refused
// with a located message instead of running for minutes, exhausting memory, or
// overflowing the picosecond clock.

#include <cstdint>
#include <optional>
#include <string>

#include "hardware/chip_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "workload/model_spec.hpp"

namespace podsim::parallelism {

/// The simulation work of one step, estimated from the scenario alone.
struct WorkEstimate {
  double microbatches = 0;     ///< per data-parallel replica
  double tasks = 0;            ///< tasks of every stage program (events are ~1–2 per task)
  double memory_bytes = 0;     ///< for those programs and the executor's state
  double ops_per_layer = 0;    ///< compute runs and collectives of one layer, forward + backward
  int layers = 0;
};

/// Tasks podsim builds for one step without --force: 2 × 10^7, about 2 GB and some 15 s
/// of simulation on one core (measured: 4 × 10^7 tasks took 34 s and 3.7 GB). The shipped
/// scenarios build at most a few hundred thousand.
inline constexpr double kTaskBudget = 2e7;
/// Seconds of simulation per task on one core (the budget's 2 × 10^7 tasks in some 15 s).
inline constexpr double kSecondsPerTask = 0.75e-6;
/// Bytes of memory per task: the task, its dependencies, the executor's per-task state and
/// pending events (measured: 3.7 GB for 4 × 10^7 tasks).
inline constexpr double kBytesPerTask = 100;

/// Counts the step program's tasks from the layer's op list and the layout.
WorkEstimate estimate_work(const workload::ModelSpec& model, const ParallelSpec& parallel,
                           const TrainingSpec& training);

/// Why `work` is beyond kTaskBudget (the estimate, its parts, what to change), or nullopt.
/// Commands refuse such a step unless forced; sweeps and plans skip it with this reason.
std::optional<std::string> over_budget(const WorkEstimate& work, const TrainingSpec& training);

/// Throws LayoutError (naming the key at fault) when a time of this step could not be held
/// in podsim's clock (kMaxStepPs, 2^60 ps ≈ 13 simulated days) however fast the network:
/// the step's FLOPs per chip at the chip's peak (training.global_batch, or training.seq_len
/// when attention dominates), or the host's time to produce a replica's samples
/// (training.input.samples_per_s); or when the microbatches would overflow message ids.
void check_representable(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                         const ParallelSpec& parallel, const TrainingSpec& training, std::uint32_t chips);

}  // namespace podsim::parallelism
