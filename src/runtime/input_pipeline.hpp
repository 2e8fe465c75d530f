#pragma once

#include <vector>

#include "parallelism/parallel_spec.hpp"
#include "util/sim_time.hpp"

namespace podsim::runtime {

/// The host feeding one data-parallel replica: it produces one microbatch every
/// micro_batch / samples_per_s seconds into a buffer of `prefetch` microbatches, stops while
/// the buffer is full, and works across step boundaries: what it produced during the tail of
/// one step (after the last microbatch was taken) is ready at the start of the next.
///
/// A step starts with the first `prefetch` microbatches ready at the times in `carried`
/// (relative to the step's start; ≤ 0 means already there). All zeros is a full buffer; the
/// step in steady state starts with what the previous, identical step left (carry_over),
/// so a host slower than the chips stalls every step by what it lacks over the whole step.
class InputPipeline {
 public:
  InputPipeline(const parallelism::InputPipelineSpec& spec, int micro_batch, std::vector<SimTime> carried = {});

  /// When microbatch `i` is ready. Precondition: every j < i has been consumed
  /// (consumed(j) called) — the first stage takes microbatches in order.
  SimTime ready_at(int i);
  /// Microbatch `i` was taken at `time` (frees a buffer slot).
  void consumed(int i, SimTime time);

  /// What the next step starts with, after a step of `step_ps` that took `microbatches`:
  /// the host keeps producing the next step's first `prefetch` microbatches as slots free.
  std::vector<SimTime> carry_over(SimTime step_ps, int microbatches);
  /// The host's time to produce `microbatches` (one step's worth).
  SimTime host_ps(int microbatches) const { return period_ps_ * microbatches; }
  /// A start with nothing buffered: microbatch j ready (j + 1) periods in.
  std::vector<SimTime> behind() const;
  /// False when data is always ready (no host rate given).
  bool limits() const { return period_ps_ > 0; }

 private:
  SimTime period_ps_ = 0;  // 0: always ready
  int prefetch_ = 1;
  std::vector<SimTime> carried_;
  std::vector<SimTime> produced_;
  std::vector<SimTime> consumed_;
};

}  // namespace podsim::runtime
