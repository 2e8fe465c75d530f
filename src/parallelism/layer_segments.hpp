#pragma once

#include <cstdint>
#include <vector>

#include "hardware/chip_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "parallelism/step_program.hpp"
#include "workload/layer_ops.hpp"

namespace podsim::parallelism {

/// Which compute run a collective matmul overlaps a tensor-parallel collective with.
enum class Partner : std::uint8_t {
  kNone,      ///< none: the collective blocks the compute stream
  kNext,      ///< the next segment (an all-gather feeding its matmuls)
  kPrevious,  ///< the previous segment (a reduce-scatter or all-reduce of its matmuls' output)
};

/// A run of ops with their total time, or a tensor-parallel collective.
struct Segment {
  bool collective = false;
  CommOp op = CommOp::kAllReduce;  ///< collectives
  Partner partner = Partner::kNone;  ///< collectives under TpOverlap::kCollectiveMatmul
  SimTime duration_ps = 0;         ///< compute runs
  SimTime memory_ps = 0;           ///< of duration_ps, the part bound by HBM bandwidth
  SimTime gemm_ps = 0;             ///< of duration_ps, the linear layers' compute-bound GEMMs
  /// Compute runs: what the host takes to issue the run's kernels (training.host), and how
  /// much of duration_ps the GPU waits for it: a run lasts the longer of its kernels and their
  /// issue (workload/host_dispatch.hpp).
  SimTime host_ps = 0;
  SimTime host_bound_ps = 0;
  double flops = 0;
  double padded_flops = 0;
};

/// Where `items` split into runs under `overlap`: each collective's partner (none without
/// collective matmul) and the items that start a new run (a partner's first and the one after
/// its last).
struct SegmentShape {
  std::vector<Partner> partner;  ///< per item (collectives only)
  std::vector<bool> starts_run;  ///< per item, plus one past the end
};
SegmentShape segment_shape(const std::vector<workload::WorkItem>& items, TpOverlap overlap);

/// Tasks the program builder makes of `items` (for the work estimate): one per compute run and
/// per collective, and under collective matmul one more per all-gather with a partner (its
/// matmul in two slices) and two more per reduction with one (two slices and the wait or the
/// all-gather that follows).
double task_count(const std::vector<workload::WorkItem>& items, TpOverlap overlap);

/// Times each op of `items` on `chip` in the dtype of its class (linear GEMMs in
/// precision.compute, the attention core in attention_dtype, the rest in activation_dtype)
/// and merges consecutive ops into one run; every tensor-parallel sync becomes a collective
/// segment. With collective matmul, the linear GEMMs right after an all-gather (or right before
/// a reduce-scatter or all-reduce) form a run of their own, the collective's partner: the
/// matmul its decomposed steps overlap with (docs/runtime.md §4). Each run takes at least
/// the host's time to issue it: its items' calls and kernels at `host`'s costs.
std::vector<Segment> time_segments(const std::vector<workload::WorkItem>& items, const hardware::ChipSpec& chip,
                                   const Precision& precision, TpOverlap overlap = TpOverlap::kNone,
                                   const workload::HostCost& host = {});

}  // namespace podsim::parallelism
