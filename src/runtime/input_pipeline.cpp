#include "runtime/input_pipeline.hpp"

#include <algorithm>
#include <string>

#include "util/error.hpp"

namespace podsim::runtime {

InputPipeline::InputPipeline(const parallelism::InputPipelineSpec& spec, int micro_batch, std::vector<SimTime> carried)
    : prefetch_(std::max(1, spec.prefetch)), carried_(std::move(carried)) {
  if (spec.samples_per_s > 0) period_ps_ = from_seconds(micro_batch / spec.samples_per_s);
  carried_.resize(static_cast<std::size_t>(prefetch_), 0);
}

SimTime InputPipeline::ready_at(int i) {
  if (period_ps_ == 0) return 0;
  while (static_cast<int>(produced_.size()) <= i) {
    const int k = static_cast<int>(produced_.size());
    if (k < prefetch_) {
      produced_.push_back(carried_[static_cast<std::size_t>(k)]);
      continue;
    }
    // Starts when the previous one is done and a slot is free (microbatch k − prefetch left).
    // Both terms are at most kMaxStepPs (the simulator's horizon and from_seconds), so the
    // sum cannot overflow; beyond the horizon the host can never deliver within the step.
    const SimTime previous = produced_.back();
    const SimTime slot = consumed_[static_cast<std::size_t>(k - prefetch_)];
    const SimTime ready = std::max(previous, slot) + period_ps_;
    if (ready > kMaxStepPs) throw SimulationError("the host input pipeline would deliver microbatch " + std::to_string(k) +
                                                  " after 2^60 ps (13 simulated days)");
    produced_.push_back(ready);
  }
  return std::max<SimTime>(0, produced_[static_cast<std::size_t>(i)]);
}

void InputPipeline::consumed(int i, SimTime time) {
  if (static_cast<int>(consumed_.size()) <= i) consumed_.resize(static_cast<std::size_t>(i) + 1, 0);
  consumed_[static_cast<std::size_t>(i)] = time;
}

std::vector<SimTime> InputPipeline::behind() const {
  std::vector<SimTime> ready(static_cast<std::size_t>(prefetch_));
  for (int j = 0; j < prefetch_; ++j) ready[static_cast<std::size_t>(j)] = period_ps_ * (j + 1);
  return ready;
}

std::vector<SimTime> InputPipeline::carry_over(SimTime step_ps, int microbatches) {
  std::vector<SimTime> next(static_cast<std::size_t>(prefetch_), 0);
  if (period_ps_ == 0) return next;
  // Produce the next step's first microbatches: microbatch M + j needs the slot of
  // M + j − prefetch, consumed in this step when j < prefetch.
  const int m = microbatches;
  (void)ready_at(m - 1);
  consumed_.resize(static_cast<std::size_t>(m + prefetch_), 0);
  for (int j = 0; j < prefetch_; ++j) {
    const int k = m + j;
    const SimTime previous = produced_[static_cast<std::size_t>(k - 1)];
    const SimTime slot = k - prefetch_ < m ? consumed_[static_cast<std::size_t>(k - prefetch_)] : step_ps;
    const SimTime ready = std::max(previous, slot) + period_ps_;
    produced_.push_back(ready);
    next[static_cast<std::size_t>(j)] = std::max(-kMaxStepPs, ready - step_ps);
  }
  return next;
}

}  // namespace podsim::runtime
