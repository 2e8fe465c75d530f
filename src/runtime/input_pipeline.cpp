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
    const auto slot_index = static_cast<std::size_t>(k - prefetch_);
    if (slot_index >= consumed_.size()) throw SimulationError("input pipeline: microbatch " + std::to_string(k) +
                                                             " asked for before microbatch " + std::to_string(k - prefetch_) + " was consumed");
    const SimTime slot = consumed_[slot_index];
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
  // x = M + j − prefetch. In steady state every step repeats this one, so a slot of an
  // earlier step (x < 0, prefetch deeper than the step's microbatches) was freed at this
  // step's consumption of x mod M, whole steps earlier; a slot of the next step (x ≥ M) is
  // freed at the step's end at the earliest.
  const int m = microbatches;
  (void)ready_at(m - 1);
  consumed_.resize(static_cast<std::size_t>(m), 0);
  const auto freed = [&](int x) -> SimTime {
    if (x >= m) return step_ps;
    const int steps_back = x >= 0 ? 0 : (-x + m - 1) / m;
    const int index = x + steps_back * m;
    if (step_ps > 0 && steps_back > kMaxStepPs / step_ps) return -kMaxStepPs;
    return std::max(-kMaxStepPs, consumed_[static_cast<std::size_t>(index)] - steps_back * step_ps);
  };
  for (int j = 0; j < prefetch_; ++j) {
    const int k = m + j;
    const SimTime previous = produced_[static_cast<std::size_t>(k - 1)];
    const SimTime slot = freed(k - prefetch_);
    const SimTime ready = std::max(previous, slot) + period_ps_;
    produced_.push_back(ready);
    next[static_cast<std::size_t>(j)] = std::max(-kMaxStepPs, ready - step_ps);
  }
  return next;
}

}  // namespace podsim::runtime
