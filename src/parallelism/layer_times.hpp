#pragma once

#include <vector>

#include "hardware/chip_spec.hpp"
#include "hardware/compute_model.hpp"
#include "parallelism/layer_segments.hpp"
#include "parallelism/parallel_spec.hpp"
#include "workload/layer_ops.hpp"
#include "workload/model_spec.hpp"

namespace podsim::parallelism {

/// What one chip computes per microbatch under a layout, timed: a transformer layer's
/// forward, backward and what its remat policy re-runs (offload transfers included), and the
/// input embedding's and output head's passes. The program builder turns these into tasks;
/// the planner's lower bound (step_bound.hpp) sums them without building any.
struct LayerTimes {
  std::vector<Segment> layer_forward, layer_backward, layer_recompute;
  std::vector<Segment> embedding_forward, embedding_backward, head_forward, head_backward;
  workload::LayerRemat remat;
};

/// `chip` is the chip as the step runs it (hardware::with_flash_kernel already applied).
LayerTimes layer_times(const workload::ModelSpec& model, const hardware::ChipSpec& chip, const ParallelSpec& parallel,
                       const TrainingSpec& training);

/// The optimizer step of one chip of pipeline `stage`: the bytes Adam reads and writes for the
/// parameters it updates (its ZeRO shard), at the chip's HBM rate.
hardware::OpTime optimizer_time(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                                const ParallelSpec& parallel, const TrainingSpec& training, int stage);

/// The compute runs' time in `segments` (collectives left out).
SimTime compute_ps(const std::vector<Segment>& segments);

}  // namespace podsim::parallelism
