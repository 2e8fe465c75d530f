#include "runtime/input_pipeline.hpp"

#include <algorithm>

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
    produced_.push_back(std::max(previous, slot) + period_ps_);
  }
  return produced_[static_cast<std::size_t>(i)];
}

void InputPipeline::consumed(int i, SimTime time) {
  if (static_cast<int>(consumed_.size()) <= i) consumed_.resize(static_cast<std::size_t>(i) + 1, 0);
  consumed_[static_cast<std::size_t>(i)] = time;
}

}  // namespace podsim::runtime
