#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "parallelism/parallel_spec.hpp"

namespace podsim::parallelism {

/// One entry of a stage's schedule: the forward or backward of one microbatch through
/// one of the stage's model chunks.
struct PipelineAction {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;  ///< 0..virtual_stages-1; virtual stage = chunk × pp + stage
};

/// The order in which `stage` runs its actions.
///
/// GPipe: every forward, then every backward. 1F1B (PipeDream-flush): pp − stage − 1
/// warm-up forwards, then one forward and one backward alternately, then the remaining
/// backwards. Interleaved 1F1B (Megatron-Core): microbatches in groups of N (`group`; 0: pp,
/// Megatron-LM's fixed grouping), each group run through chunk 0, then chunk 1, …, the last
/// group holding what is left; (pp − stage − 1)·2 + (v − 1)·N warm-up forwards; backwards in
/// the same order with the chunks reversed (schedules.py: get_schedule_table and
/// get_pp_rank_microbatches, ModelParallelConfig.microbatch_group_size_per_vp_stage).
/// Nothing here says when an action runs: that comes out of the simulation.
std::vector<PipelineAction> stage_schedule(PipelineSchedule schedule, int pp, int virtual_stages,
                                           int microbatches, int stage, int group);

/// Whether Megatron-Core's interleaved schedule runs `microbatches` on `pp` stages in groups of
/// `group`: a group in [pp, microbatches] whose last group is empty or at least pp long.
bool runs_in_groups_of(int pp, int microbatches, int group);
/// The smallest such group; 0 if none.
int smallest_microbatch_group(int pp, int microbatches);

/// stage_schedule's orders, each built once: the planner's memory checks ask for the same few
/// pipelines for thousands of layouts.
class PipelineOrders {
 public:
  const std::vector<PipelineAction>& of(PipelineSchedule schedule, int pp, int virtual_stages, int microbatches,
                                        int stage, int group);

 private:
  std::map<std::tuple<PipelineSchedule, int, int, int, int, int>, std::vector<PipelineAction>> kept_;
};

/// Most microbatch-chunks whose forward has run and backward has not, at any point of the
/// stage's order: how many sets of activations the stage keeps at once.
int peak_in_flight(const std::vector<PipelineAction>& order);

/// The same, weighted: the most of Σ weight[chunk] over the microbatch-chunks alive at once
/// (a chunk's weight is, e.g., the activation bytes its layers keep).
double peak_live(const std::vector<PipelineAction>& order, const std::vector<double>& weight);

}  // namespace podsim::parallelism
