#pragma once

#include <vector>

#include "parallelism/parallel_spec.hpp"
#include "util/sim_time.hpp"

namespace podsim::runtime {

/// The host feeding one data-parallel replica: it produces one microbatch every
/// micro_batch / samples_per_s seconds into a buffer of `prefetch` microbatches, and stops
/// while the buffer is full. In steady state the buffer is full when a step begins (the
/// host refilled it during the previous step's tail), so the first `prefetch`
/// microbatches are ready at once.
class InputPipeline {
 public:
  InputPipeline(const parallelism::InputPipelineSpec& spec, int micro_batch);

  /// When microbatch `i` is ready. Precondition: every j < i has been consumed
  /// (consumed(j) called) — the first stage takes microbatches in order.
  SimTime ready_at(int i);
  /// Microbatch `i` was taken at `time` (frees a buffer slot).
  void consumed(int i, SimTime time);

 private:
  SimTime period_ps_ = 0;  // 0: always ready
  int prefetch_ = 1;
  std::vector<SimTime> produced_;
  std::vector<SimTime> consumed_;
};

}  // namespace podsim::runtime
