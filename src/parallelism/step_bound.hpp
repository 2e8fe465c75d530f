#pragma once

#include <array>
#include <vector>

#include "hardware/chip_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "util/sim_time.hpp"
#include "workload/model_spec.hpp"

namespace podsim::parallelism {

/// A lower bound of the step time of a layout on any network, from its compute alone, without
/// building its program (what the planner prunes with; docs/plan.md "Branch and bound").
///
/// It holds because the runtime never runs a compute task faster than its time (communication
/// beside it only slows it, runtime/chip_sharing.hpp), runs one stream's tasks one at a time,
/// and communication takes no less than nothing. For each stage s of the pipeline:
/// - its compute stream starts no earlier than the first microbatch's forward has passed the
///   virtual stages before its first one (A_s), and then runs all its compute (W_s);
/// - once its last backward is done, that microbatch's backward still has to pass every
///   virtual stage before it, and the first stage then runs its optimizer step.
/// The bound is the largest of these over the stages: for uniform stages of 1F1B it is
/// (m + p − 1)·(f + b) plus the optimizer, the closed form of the bubble.
///
/// With `tp`, the tensor-parallel collectives the compute stream waits for count too, each at
/// its time alone on the network (communication beside it only slows it): a blocking one
/// whole; under collective matmul, a pair of k slices and their collective T as the program
/// runs them, max((k − 1)/k·M, T) + M/k.
/// Per pipeline stage, per CommOp (all-reduce, all-gather, reduce-scatter): the time alone of
/// one tensor-parallel collective of the step's buffer, for the operations `measured` marks
/// (step_lower_bound_ps throws std::logic_error if it needs another).
struct TpTimes {
  std::vector<std::array<SimTime, 3>> per_stage;
  std::array<bool, 3> measured{true, true, true};
  bool empty() const { return per_stage.empty(); }
};
SimTime step_lower_bound_ps(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                            const ParallelSpec& parallel, const TrainingSpec& training, const TpTimes* tp = nullptr);
/// The operations of TpTimes that step_lower_bound_ps reads for this layout (those its
/// compute stream waits for); the others may be left 0.
std::array<bool, 3> tp_ops_read(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                                const ParallelSpec& parallel, const TrainingSpec& training);

/// Per pipeline stage, the time alone of ZeRO-3's all-gather of one layer's parameters and of
/// the reduce-scatter of its gradients (both on the data-parallel axis).
struct Zero3Times {
  SimTime gather_ps = 0;
  SimTime reduce_ps = 0;
};

/// A lower bound of the step of a ZeRO-3 layout (with data parallelism, collectives per layer)
/// from its data-parallel streams: each runs its collectives one at a time, each no faster than
/// alone. Per stage, every microbatch gathers each of its layers' parameters twice (forward and
/// backward) on the gather stream and reduce-scatters their gradients once on the reduce
/// stream (one stream when overlap.dp_serial); the embedding's and head's are left out. 0 for
/// other layouts.
SimTime zero3_stream_bound_ps(const workload::ModelSpec& model, const ParallelSpec& parallel,
                              const TrainingSpec& training, const std::vector<Zero3Times>& times);

}  // namespace podsim::parallelism
