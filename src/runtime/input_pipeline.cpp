#include "runtime/input_pipeline.hpp"

#include <algorithm>
#include <string>

#include "util/error.hpp"

namespace podsim::runtime {

InputPipeline::InputPipeline(const parallelism::InputPipelineSpec& spec, int micro_batch)
    : prefetch_(std::max(1, spec.prefetch)) {
  if (spec.samples_per_s > 0) period_ps_ = from_seconds(micro_batch / spec.samples_per_s);
}

SimTime InputPipeline::ready_at(int i) {
  if (period_ps_ == 0) return 0;
  while (static_cast<int>(produced_.size()) <= i) {
    const int k = static_cast<int>(produced_.size());
    if (k < prefetch_) {
      produced_.push_back(0);
      continue;
    }
    // Starts when the previous one is done and a slot is free (microbatch k − prefetch left).
    const SimTime previous = produced_.back();
    const SimTime slot = consumed_[static_cast<std::size_t>(k - prefetch_)];
    // Both terms are at most kMaxStepPs (the simulator's horizon and from_seconds), so the
    // sum cannot overflow; beyond the horizon the host can never deliver within the step.
    const SimTime ready = std::max(previous, slot) + period_ps_;
    if (ready > kMaxStepPs) throw SimulationError("the host input pipeline would deliver microbatch " + std::to_string(k) +
                                                  " after 2^60 ps (13 simulated days)");
    produced_.push_back(ready);
  }
  return produced_[static_cast<std::size_t>(i)];
}

void InputPipeline::consumed(int i, SimTime time) {
  if (static_cast<int>(consumed_.size()) <= i) consumed_.resize(static_cast<std::size_t>(i) + 1, 0);
  consumed_[static_cast<std::size_t>(i)] = time;
}

}  // namespace podsim::runtime
