#pragma once

#include <vector>

#include "hardware/chip_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "parallelism/step_program.hpp"
#include "workload/layer_ops.hpp"

namespace podsim::parallelism {

/// A run of ops with their total time, or a tensor-parallel collective.
struct Segment {
  bool collective = false;
  CommOp op = CommOp::kAllReduce;  ///< collectives
  SimTime duration_ps = 0;         ///< compute runs
  double flops = 0;
  double padded_flops = 0;
};

/// Times each op of `items` on `chip` in the dtype of its class (linear GEMMs in
/// precision.compute, the attention core in attention_dtype, the rest in activation_dtype)
/// and merges consecutive ops into one run; every tensor-parallel sync becomes a collective
/// segment.
std::vector<Segment> time_segments(const std::vector<workload::WorkItem>& items,
                                   const hardware::ChipSpec& chip, const Precision& precision);

}  // namespace podsim::parallelism
