// Pipeline stages as Megatron-LM splits them (parallelism/stage_layers.hpp), and what the
// program builder does with them. Expected counts are derived next to each assertion.
#include <gtest/gtest.h>

#include <map>
#include <numeric>

#include "parallelism/pipeline_schedule.hpp"
#include "parallelism/program_builder.hpp"
#include "parallelism/stage_layers.hpp"

namespace podsim::parallelism {
namespace {

workload::ModelSpec model(int layers) {
  // Rotary positions: no position parameters on the first stage.
  return workload::ModelSpec{"stages", layers, 1024, 4096, 8, 8, 128, 32000, 1024, workload::MlpKind::kGelu,
                             false, true, workload::PositionEmbedding::kRotary, workload::NormKind::kLayerNorm};
}

ParallelSpec pipeline(int pp, int v = 1) {
  ParallelSpec p;
  p.pp = pp;
  p.virtual_stages = v;
  p.schedule = v > 1 ? PipelineSchedule::kInterleaved : PipelineSchedule::kOneFOneB;
  return p;
}

TEST(StageLayers, EvenWhenTheStagesDivideTheLayers) {
  EXPECT_EQ(virtual_stage_layers(model(24), pipeline(4)), (std::vector<int>{6, 6, 6, 6}));
  // Interleaved: virtual stage chunk × pp + stage, each 24 / 8 = 3 layers.
  EXPECT_EQ(virtual_stage_layers(model(24), pipeline(4, 2)), std::vector<int>(8, 3));
  EXPECT_TRUE(uniform_stages(virtual_stage_layers(model(24), pipeline(4))));
}

TEST(StageLayers, Llama3AndBloomAsTheyRan) {
  // Llama 3 405B: 126 layers on 16 stages. 126 + 2 (embedding, loss) = 128 = 16 × 8; the first
  // and last stages give one layer each to the embedding and the loss: 7, 14 × 8, 7.
  std::vector<int> llama(16, 8);
  llama.front() = llama.back() = 7;
  EXPECT_EQ(virtual_stage_layers(model(126), pipeline(16)), llama);
  // BLOOM 176B: 70 layers on 12 stages, embeddings on the first and last: 72 / 12 = 6 → 5, 10 × 6, 5.
  std::vector<int> bloom(12, 6);
  bloom.front() = bloom.back() = 5;
  EXPECT_EQ(virtual_stage_layers(model(70), pipeline(12)), bloom);
  EXPECT_FALSE(uniform_stages(bloom));
}

TEST(StageLayers, BalancedWhenEvenMegatronsSplitDoesNotDivide) {
  // 11 layers on 4 stages: 13 units = 3 each + 1 extra, which goes to the first middle stage;
  // the first and last then give one back: 2, 4, 3, 2.
  EXPECT_EQ(virtual_stage_layers(model(11), pipeline(4)), (std::vector<int>{2, 4, 3, 2}));
  // Two stages, no middle: the extra unit goes to the first (the embedding is lighter than the head).
  EXPECT_EQ(virtual_stage_layers(model(5), pipeline(2)), (std::vector<int>{3, 2}));
  // Too many stages for the layers: refused, naming the key.
  try {
    virtual_stage_layers(model(4), pipeline(8));
    FAIL();
  } catch (const LayoutError& e) {
    EXPECT_EQ(e.key(), "parallelism.pp");
  }
}

TEST(StageLayers, MegatronsOptionsAndExplicitCounts) {
  // --decoder-first/last-pipeline-num-layers 5/3 with 24 layers on 4 stages: 16 left for 2 middle.
  auto p = pipeline(4);
  p.first_stage_layers = 5;
  p.last_stage_layers = 3;
  EXPECT_EQ(virtual_stage_layers(model(24), p), (std::vector<int>{5, 8, 8, 3}));
  p.last_stage_layers = 4;  // 15 left for 2 middle stages: Megatron asserts they divide
  EXPECT_THROW(virtual_stage_layers(model(24), p), LayoutError);
  // --account-for-embedding-in-pipeline-split only: 25 units do not divide by 4 …
  p = pipeline(4);
  p.account_for_embedding = true;
  EXPECT_THROW(virtual_stage_layers(model(24), p), LayoutError);
  // … but 27 + 1 = 28 = 4 × 7 does: the first stage builds 6.
  EXPECT_EQ(virtual_stage_layers(model(27), p), (std::vector<int>{6, 7, 7, 7}));
  // Given per pipeline stage with 2 chunks each: split evenly over the chunks.
  p = pipeline(2, 2);
  p.stage_layers = {4, 8};
  EXPECT_EQ(virtual_stage_layers(model(12), p), (std::vector<int>{2, 4, 2, 4}));
  p.stage_layers = {3, 9};  // 3 layers cannot be shared by 2 chunks
  EXPECT_THROW(virtual_stage_layers(model(12), p), LayoutError);
  EXPECT_EQ(pipeline_stage_layers(model(12), pipeline(3)), (std::vector<int>{4, 4, 4}));
}

TEST(StageLayers, ProgramsParametersAndTheBubbleFollowTheCounts) {
  const auto m = model(11);
  const auto p = pipeline(4);
  TrainingSpec t;
  t.global_batch = 8;
  hardware::ChipSpec chip;
  chip.peak_flops = {{hardware::DType::kBf16, 1e14}};
  chip.hbm_capacity_bytes = 1e11;
  chip.hbm_bandwidth_Bps = 1e12;
  const StepPlan plan = build_step(m, chip, p, t);
  // Forward compute per stage is proportional to its layers (2, 4, 3, 2) once the embedding and
  // head are set aside: count the compute tasks of category forward per stage and microbatch.
  const double layer = workload::count_params(m).per_layer;
  const std::vector<int> layers{2, 4, 3, 2};
  for (int s = 0; s < 4; ++s) {
    double expected = layers[static_cast<std::size_t>(s)] * layer;
    if (s == 0) expected += double(m.vocab) * m.hidden;  // the embedding (tied: counted once here)
    if (s == 3) expected += double(m.vocab) * m.hidden + 2.0 * m.hidden;  // the tied head's copy, final norm
    EXPECT_NEAR(stage_param_count(m, p, s), expected, 1.0) << "stage " << s;
  }
  EXPECT_EQ(plan.stages.size(), 4u);
}

TEST(Schedules, PeakLiveWeighsChunks) {
  // Interleaved 1F1B, pp 2, v 2, 4 microbatches: stage 0 holds up to (v + 1)·p − 1 = 5
  // microbatch-chunks at once; with chunk weights 1 and 10, the peak mixes them.
  const auto order = stage_schedule(PipelineSchedule::kInterleaved, 2, 2, 4, 0);
  EXPECT_EQ(peak_in_flight(order), 5);
  EXPECT_DOUBLE_EQ(peak_live(order, {1.0, 1.0}), 5.0);
  EXPECT_GT(peak_live(order, {1.0, 10.0}), 5.0);
}


/// Bytes of the data-parallel reduce-scatters and all-reduces of gradients in a stage program.
struct Reductions {
  double bytes = 0;
  int calls = 0;
};
Reductions gradient_reductions(const StageProgram& stage) {
  Reductions r;
  for (const Task& t : stage.tasks) {
    if (t.kind != TaskKind::kCollective || t.axis != CommAxis::kDp) continue;
    if (t.op != CommOp::kReduceScatter && t.op != CommOp::kAllReduce) continue;
    r.bytes += t.bytes;
    ++r.calls;
  }
  return r;
}

TEST(ZeroStages, ZeroTwoReduceScattersEveryMicrobatchZeroOneOnlyTheLast) {
  // dp 4, no pipeline, 8 sequences of micro batch 1 per step: 2 microbatches per replica.
  // ZeRO-1 (and plain data parallelism) accumulate gradients locally and reduce once; ZeRO-2
  // keeps only its shard, so each microbatch's gradients are reduce-scattered (DeepSpeed's
  // partition_gradients): twice the bytes, in twice the calls.
  const auto m = model(4);
  hardware::ChipSpec chip;
  chip.peak_flops = {{hardware::DType::kBf16, 1e14}};
  chip.hbm_capacity_bytes = 1e11;
  chip.hbm_bandwidth_Bps = 1e12;
  ParallelSpec p;
  p.dp = 4;
  TrainingSpec t;
  t.global_batch = 8;
  const double params = stage_param_count(m, p, 0);
  const double grad_bytes = params * hardware::dtype_bytes(reduce_dtype(t.precision));
  std::map<int, Reductions> by_stage;
  for (int zero : {0, 1, 2}) {
    p.zero = zero;
    by_stage[zero] = gradient_reductions(build_step(m, chip, p, t).stages.front());
  }
  EXPECT_NEAR(by_stage[0].bytes, grad_bytes, 1.0);
  EXPECT_NEAR(by_stage[1].bytes, grad_bytes, 1.0);
  EXPECT_NEAR(by_stage[2].bytes, 2 * grad_bytes, 2.0);
  EXPECT_EQ(by_stage[2].calls, 2 * by_stage[1].calls);
  // Four microbatches: four times.
  t.global_batch = 16;
  p.zero = 2;
  EXPECT_NEAR(gradient_reductions(build_step(m, chip, p, t).stages.front()).bytes, 4 * grad_bytes, 4.0);
}

}  // namespace
}  // namespace podsim::parallelism
