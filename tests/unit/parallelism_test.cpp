// Pipeline stages as Megatron-LM splits them (parallelism/stage_layers.hpp), and what the
// program builder does with them. Expected counts are derived next to each assertion.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "parallelism/layer_segments.hpp"
#include "parallelism/layer_times.hpp"
#include "parallelism/pipeline_schedule.hpp"
#include "parallelism/plan_digest.hpp"
#include "parallelism/program_builder.hpp"
#include "parallelism/stage_layers.hpp"
#include "parallelism/step_bound.hpp"
#include "parallelism/zero3_collectives.hpp"

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

TEST(Schedules, InterleavedGroupsRunAsMegatronCoreDocumentsThem) {
  // ModelParallelConfig.microbatch_group_size_per_vp_stage's docstring, PP = 2, VP = 2: with N = 2
  // and 4 microbatches, "rank 0 | 0 1 0 1 2 3 2 3"; with N = 3 and 5, "rank 0 | 0 1 2 0 1 2 3 4 3 4".
  const auto forwards = [](int m, int n, int stage) {
    std::vector<std::pair<int, int>> out;  // (microbatch, chunk)
    for (const auto& a : stage_schedule(PipelineSchedule::kInterleaved, 2, 2, m, stage, n)) {
      if (a.forward) out.emplace_back(a.microbatch, a.chunk);
    }
    return out;
  };
  using P = std::vector<std::pair<int, int>>;
  EXPECT_EQ(forwards(4, 2, 0), (P{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {2, 0}, {3, 0}, {2, 1}, {3, 1}}));
  EXPECT_EQ(forwards(5, 3, 0), (P{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 0}, {4, 0}, {3, 1}, {4, 1}}));
  EXPECT_EQ(forwards(5, 3, 1), forwards(5, 3, 0));  // every rank runs the table in the same order
  // Backwards follow the same table with the chunks reversed; warm-up (pp − rank − 1)·2 + (v − 1)·N.
  const auto order = stage_schedule(PipelineSchedule::kInterleaved, 2, 2, 5, 0, 3);
  const auto first_backward = std::find_if(order.begin(), order.end(), [](const PipelineAction& a) { return !a.forward; });
  EXPECT_EQ(first_backward - order.begin(), (2 - 0 - 1) * 2 + (2 - 1) * 3 + 1);
  EXPECT_EQ(first_backward->microbatch, 0);
  EXPECT_EQ(first_backward->chunk, 1);
}

TEST(Schedules, AGroupOfPpIsMegatronLmsInterleaving) {
  // Group 0 (not given) and a group of pp are Megatron-LM's fixed grouping: the k-th forward runs
  // microbatch ⌊k / (pp·v)⌋·pp + k mod pp through chunk ⌊(k mod pp·v) / pp⌋.
  for (int pp : {2, 4, 8}) {
    for (int v : {2, 3, 4}) {
      for (int m = pp; m <= 4 * pp; m += pp) {
        for (int stage = 0; stage < pp; ++stage) {
          const auto given = stage_schedule(PipelineSchedule::kInterleaved, pp, v, m, stage, pp);
          const auto order = stage_schedule(PipelineSchedule::kInterleaved, pp, v, m, stage, 0);
          ASSERT_EQ(given.size(), order.size());
          int f = 0;
          for (std::size_t i = 0; i < order.size(); ++i) {
            EXPECT_EQ(order[i].forward, given[i].forward);
            EXPECT_EQ(order[i].microbatch, given[i].microbatch);
            EXPECT_EQ(order[i].chunk, given[i].chunk);
            if (!order[i].forward) continue;
            const int in_group = f % (pp * v);
            EXPECT_EQ(order[i].microbatch, f / (pp * v) * pp + in_group % pp) << "pp " << pp << " v " << v << " k " << f;
            EXPECT_EQ(order[i].chunk, in_group / pp);
            ++f;
          }
        }
      }
    }
  }
}

TEST(Schedules, PeakLiveWeighsChunks) {
  // Interleaved 1F1B, pp 2, v 2, 4 microbatches: stage 0 holds up to (v + 1)·p − 1 = 5
  // microbatch-chunks at once; with chunk weights 1 and 10, the peak mixes them.
  const auto order = stage_schedule(PipelineSchedule::kInterleaved, 2, 2, 4, 0, 0);
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

/// A chip with a bf16 peak, 100 GB of HBM and 1 TB/s: enough to build any small step.
hardware::ChipSpec small_chip() {
  hardware::ChipSpec chip;
  chip.peak_flops = {{hardware::DType::kBf16, 1e14}};
  chip.hbm_capacity_bytes = 1e11;
  chip.hbm_bandwidth_Bps = 1e12;
  return chip;
}

/// check_layout refuses the layout on 4 chips under `stack`, naming `key`, with `words` in its message.
void expect_refused(const workload::ModelSpec& m, const ParallelSpec& p, TrainingSpec t, workload::Stack stack,
                    const std::string& key, const std::string& words) {
  t.stack = stack;
  try {
    check_layout(m, small_chip(), p, t, 4);
    ADD_FAILURE() << "accepted on " << workload::stack_name(stack) << ", expected a refusal naming " << key;
  } catch (const LayoutError& e) {
    EXPECT_EQ(e.key(), key) << workload::stack_name(stack);
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(ZeroStages, ZeroTwoReduceScattersEveryMicrobatchZeroOneOnlyTheLast) {
  // dp 4, no pipeline, 8 sequences of micro batch 1 per step: 2 microbatches per replica.
  // ZeRO-1 (and plain data parallelism) accumulate gradients locally and reduce once; ZeRO-2
  // keeps only its shard, so each microbatch's gradients are reduce-scattered (DeepSpeed's
  // partition_gradients): twice the bytes, in twice the calls.
  const auto m = model(4);
  const hardware::ChipSpec chip = small_chip();
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

TEST(ZeroStages, FsdpsZeroTwoGathersInEveryForwardAndNothingAfterTheOptimizer) {
  // FSDP's SHARD_GRAD_OP (pytorch-fsdp, torchtitan): per microbatch one all-gather per block
  // (layers, embedding, head) in the forward, none in the backward, one reduce-scatter per block
  // in the backward; nothing gathered after the optimizer. DeepSpeed's ZeRO-2 (megatron-lm's
  // stack here): no gather before the optimizer and one of the whole stage after it.
  const auto m = model(4);
  const hardware::ChipSpec chip = small_chip();
  ParallelSpec p;
  p.dp = 4;
  p.zero = 2;
  TrainingSpec t;
  t.global_batch = 12;  // three microbatches per replica
  const int blocks = m.layers + 2;
  struct Count {
    int forward_gathers = 0, other_gathers = 0, scatters = 0, after_optimizer = 0;
  };
  const auto count = [&](workload::Stack stack) {
    t.stack = stack;
    Count c;
    const StageProgram program = build_step(m, chip, p, t).stages.front();
    // A gather serves the compute that follows it in the program.
    const auto next_compute = [&](std::size_t i) {
      while (i < program.tasks.size() && program.tasks[i].kind != TaskKind::kCompute) ++i;
      return i < program.tasks.size() ? program.tasks[i].category : ComputeCategory::kOptimizer;
    };
    bool optimizer = false;
    for (std::size_t i = 0; i < program.tasks.size(); ++i) {
      const Task& task = program.tasks[i];
      optimizer = optimizer || (task.kind == TaskKind::kCompute && task.category == ComputeCategory::kOptimizer);
      if (task.kind != TaskKind::kCollective || task.axis != CommAxis::kDp) continue;
      if (optimizer) {
        ++c.after_optimizer;
      } else if (task.op == CommOp::kAllGather) {
        ++(next_compute(i) == ComputeCategory::kForward ? c.forward_gathers : c.other_gathers);
      } else if (task.op == CommOp::kReduceScatter) {
        ++c.scatters;
      }
    }
    return c;
  };
  for (workload::Stack fsdp : {workload::Stack::kPytorchFsdp, workload::Stack::kTorchtitan}) {
    const Count c = count(fsdp);
    EXPECT_EQ(c.forward_gathers, 3 * blocks) << workload::stack_name(fsdp);
    EXPECT_EQ(c.other_gathers, 0) << workload::stack_name(fsdp);
    EXPECT_EQ(c.scatters, 3 * blocks) << workload::stack_name(fsdp);
    EXPECT_EQ(c.after_optimizer, 0) << workload::stack_name(fsdp);
  }
  const Count deepspeed = count(workload::Stack::kMegatronLm);
  EXPECT_EQ(deepspeed.forward_gathers + deepspeed.other_gathers, 0);
  EXPECT_EQ(deepspeed.after_optimizer, 1);
  EXPECT_GE(deepspeed.scatters, 3);  // buckets, every microbatch
}

TEST(StackProfiles, CollectiveMatmulRunsOnlyWhereTheStackCanOverlapTpCollectives) {
  // Megatron-LM (2021), Megatron-DeepSpeed and Composer's FSDP have no way to overlap TP
  // collectives with their matmuls; Megatron-Core (--tp-comm-overlap), torchtitan (async TP) and
  // XLA (windowed einsum) do. Without tensor parallelism there is nothing to overlap.
  const auto m = model(4);
  const hardware::ChipSpec chip = small_chip();
  ParallelSpec p;
  p.dp = 2;
  p.tp = 2;
  p.sequence_parallel = true;
  TrainingSpec t;
  t.global_batch = 8;
  t.overlap.tp = TpOverlap::kCollectiveMatmul;
  for (workload::Stack refuses : {workload::Stack::kMegatronLm, workload::Stack::kDeepSpeed, workload::Stack::kPytorchFsdp}) {
    expect_refused(m, p, t, refuses, "training.overlap.tp", "collective matmul does not run on");
  }
  for (workload::Stack runs_it : {workload::Stack::kMegatronCore, workload::Stack::kTorchtitan, workload::Stack::kMaxText}) {
    t.stack = runs_it;
    EXPECT_NO_THROW(check_layout(m, chip, p, t, 4)) << workload::stack_name(runs_it);
  }
  t.stack = workload::Stack::kMegatronLm;
  p.tp = 1;
  p.dp = 4;
  EXPECT_NO_THROW(check_layout(m, chip, p, t, 4));
}

TEST(ZeroStages, ZeroTwoAndThreeWithAPipelineAreRefusedWhereTheStackRefusesThem) {
  // DeepSpeed's PipelineEngine asserts ZeRO < 2; Megatron-LM has neither ZeRO-2 nor ZeRO-3
  // (megatron-lm stands for Megatron-LM and Megatron-DeepSpeed); Megatron-Core has no ZeRO-2.
  // dp 2 × pp 2 is refused there, naming parallelism.zero; ZeRO-1 runs, and so does each stage
  // without a pipeline, or under torchtitan (FSDP2 under torch.distributed.pipelining) and maxtext.
  const auto m = model(4);
  ParallelSpec p;
  p.dp = 2;
  p.pp = 2;
  TrainingSpec t;
  t.global_batch = 8;
  using workload::Stack;
  const std::map<int, std::vector<Stack>> refusing{{2, {Stack::kMegatronLm, Stack::kMegatronCore, Stack::kDeepSpeed}},
                                                   {3, {Stack::kMegatronLm, Stack::kDeepSpeed}}};
  for (const auto& [zero, stacks] : refusing) {
    p.zero = zero;
    const std::string words = "ZeRO-" + std::to_string(zero) + " with pipeline parallelism does not run on";
    for (const Stack refuses : stacks) {
      p.pp = 2;
      p.dp = 2;
      expect_refused(m, p, t, refuses, "parallelism.zero", words);
      t.stack = refuses;
      p.pp = 1;
      p.dp = 4;
      EXPECT_NO_THROW(check_layout(m, small_chip(), p, t, 4)) << "ZeRO-" << zero << " without a pipeline";
    }
    p.pp = 2;
    p.dp = 2;
    for (const Stack runs_it : {Stack::kTorchtitan, Stack::kMaxText}) {
      t.stack = runs_it;
      EXPECT_NO_THROW(check_layout(m, small_chip(), p, t, 4)) << workload::stack_name(runs_it) << " ZeRO-" << zero;
    }
  }
  p.zero = 1;
  for (const Stack any : workload::kStacks) {
    t.stack = any;
    EXPECT_NO_THROW(check_layout(m, small_chip(), p, t, 4)) << workload::stack_name(any);
  }
}

TEST(ZeroStages, ZeroThreeWithAPipelineGathersOnceAStepUnderTorchtitanAndEveryMicrobatchUnderMaxText) {
  // dp 2 × pp 2, ZeRO-3, 12 sequences of micro batch 1: 6 microbatches per replica. Stage 0
  // holds the embedding and 2 layers: 3 blocks. MaxText's pipeline gathers every block before
  // its forward and its backward and reduce-scatters it after its backward, in every
  // microbatch: 2·6·3 gathers, 6·3 reduce-scatters. torchtitan (FSDP2 under
  // torch.distributed.pipelining) gathers each block in its first forward only and
  // reduce-scatters each once, after the stage's last backward: 3 and 3, the gathers moving
  // the stage's parameters once in the communication dtype and the reductions its gradients
  // once in the reduction's.
  const auto m = model(4);
  const hardware::ChipSpec chip = small_chip();
  ParallelSpec p;
  p.dp = 2;
  p.pp = 2;
  p.zero = 3;
  TrainingSpec t;
  t.global_batch = 12;
  const int blocks = 3;
  const double params = stage_param_count(m, p, 0);
  struct Count {
    int gathers = 0, scatters = 0;
    double gathered = 0, scattered = 0;
    bool scatters_after_backward = true;
  };
  const auto count = [&](workload::Stack stack) {
    t.stack = stack;
    const StageProgram program = build_step(m, chip, p, t).stages.front();
    std::size_t last_backward = 0;
    for (std::size_t i = 0; i < program.tasks.size(); ++i) {
      const Task& task = program.tasks[i];
      if (task.kind == TaskKind::kCompute && task.category == ComputeCategory::kBackward) last_backward = i;
    }
    Count c;
    for (std::size_t i = 0; i < program.tasks.size(); ++i) {
      const Task& task = program.tasks[i];
      if (task.kind != TaskKind::kCollective || task.axis != CommAxis::kDp) continue;
      if (task.op == CommOp::kAllGather) {
        ++c.gathers;
        c.gathered += task.bytes;
      } else if (task.op == CommOp::kReduceScatter) {
        ++c.scatters;
        c.scattered += task.bytes;
        // Every one waits for the stage's last backward compute (or something after it).
        bool after = false;
        for (std::uint32_t d = task.deps_begin; d < task.deps_end; ++d)
          after = after || program.deps[d] >= last_backward;
        c.scatters_after_backward = c.scatters_after_backward && after;
      }
    }
    return c;
  };
  EXPECT_TRUE(fsdp_gathers_once(p, [&] {
    TrainingSpec tt = t;
    tt.stack = workload::Stack::kTorchtitan;
    return tt;
  }()));
  const Count titan = count(workload::Stack::kTorchtitan);
  EXPECT_EQ(titan.gathers, blocks);
  EXPECT_EQ(titan.scatters, blocks);
  EXPECT_NEAR(titan.gathered, params * hardware::dtype_bytes(t.precision.comm), 1.0);
  EXPECT_NEAR(titan.scattered, params * hardware::dtype_bytes(reduce_dtype(t.precision)), 1.0);
  EXPECT_TRUE(titan.scatters_after_backward);
  const Count maxtext = count(workload::Stack::kMaxText);
  EXPECT_FALSE(fsdp_gathers_once(p, t));
  EXPECT_EQ(maxtext.gathers, 2 * 6 * blocks);
  EXPECT_EQ(maxtext.scatters, 6 * blocks);
  EXPECT_FALSE(maxtext.scatters_after_backward);
  // FSDP2 without resharding after the forward (ZeRO-2, SHARD_GRAD_OP) runs the same way under
  // the pipeline, which keeps the parameters and defers the reductions whatever it wraps.
  p.zero = 2;
  const Count grad_op = count(workload::Stack::kTorchtitan);
  EXPECT_EQ(grad_op.gathers, blocks);
  EXPECT_EQ(grad_op.scatters, blocks);
  EXPECT_TRUE(grad_op.scatters_after_backward);
  p.zero = 3;
  // Without a pipeline torchtitan reshards after the forward and reduces every microbatch.
  p.pp = 1;
  p.dp = 4;
  t.stack = workload::Stack::kTorchtitan;
  EXPECT_FALSE(fsdp_gathers_once(p, t));
}

TEST(HostPacing, ARunLastsTheLongerOfItsKernelsAndTheirIssue) {
  // Three element-wise items of 1 MB on a chip with 1 TB/s and no per-op overhead: 1 µs of GPU
  // each. The first two form a run before a tensor-parallel all-reduce, the third a run after it.
  hardware::ChipSpec chip;
  chip.hbm_bandwidth_Bps = 1e12;
  chip.efficiency.memory = 1.0;
  chip.peak_flops[hardware::DType::kBf16] = 1e15;
  auto op = [](double calls, double kernels) {
    workload::WorkItem w{"op", hardware::OpCost{0, 0, 0, 0, 1e6}};
    w.host_calls = calls;
    w.kernels = kernels;
    return w;
  };
  workload::WorkItem reduce{"tp", {}, workload::TpSync::kAllReduce};
  reduce.host_calls = 0;
  const std::vector<workload::WorkItem> items{op(3, 1), op(1, 1), reduce, op(0, 0)};
  const Precision prec;
  // Host: 1 µs per call, 0.5 µs per kernel. Run 1: host 3 + 0.5 + 1 + 0.5 = 5 µs against 2 µs
  // of kernels; run 2: nothing to issue, 1 µs.
  const auto paced = time_segments(items, chip, prec, TpOverlap::kNone, workload::HostCost{1'000'000, 500'000});
  ASSERT_EQ(paced.size(), 3u);
  EXPECT_EQ(paced[0].duration_ps, 5'000'000);
  EXPECT_EQ(paced[0].host_ps, 5'000'000);
  EXPECT_EQ(paced[0].host_bound_ps, 3'000'000);
  EXPECT_EQ(paced[0].memory_ps, 2'000'000);  // the kernels' own time is still HBM-bound
  EXPECT_TRUE(paced[1].collective);
  EXPECT_EQ(paced[2].duration_ps, 1'000'000);
  EXPECT_EQ(paced[2].host_bound_ps, 0);
  // A host faster than the kernels changes nothing; no host cost (XLA, CUDA graphs) neither.
  const auto fast = time_segments(items, chip, prec, TpOverlap::kNone, workload::HostCost{100'000, 100'000});
  const auto none = time_segments(items, chip, prec, TpOverlap::kNone);
  for (const auto* run : {&fast, &none}) {
    EXPECT_EQ((*run)[0].duration_ps, 2'000'000);
    EXPECT_EQ((*run)[0].host_bound_ps, 0);
  }
}

TEST(HostPacing, SmallMicroBatchesOfASmallGptWaitForTheHost) {
  // A 1024-wide GPT layer (GPT-2 medium's shape) on A100-like figures, tp 8, micro batch 1 of
  // 1024 tokens: each run's kernels take less than Megatron's calls to issue them, so the layer
  // takes the host's time; at micro batch 8 the kernels are long enough to hide it.
  workload::ModelSpec gpt{"gpt", 24, 1024, 4096, 16, 16, 64, 50304, 1024, workload::MlpKind::kGelu,
                          false, true, workload::PositionEmbedding::kLearned, workload::NormKind::kLayerNorm};
  gpt.dropout = true;
  hardware::ChipSpec a100;
  a100.peak_flops[hardware::DType::kFp16] = 312e12;
  a100.hbm_bandwidth_Bps = 1555e9;
  a100.matmul_tile = 64;
  a100.efficiency.matmul = 0.7;
  a100.efficiency.memory = 0.834;
  a100.efficiency.op_overhead_ps = 10'000'000;
  Precision prec;
  prec.compute = hardware::DType::kFp16;
  auto per_token_ps = [&](int micro_batch, const workload::HostCost& host) {
    workload::Slicing s;
    s.micro_batch = micro_batch;
    s.seq_len = 1024;
    s.tp = 8;
    const workload::LayerWork layer = workload::transformer_layer(gpt, s);
    SimTime total = 0, bound = 0;
    for (const auto* items : {&layer.forward, &layer.backward}) {
      for (const Segment& seg : time_segments(*items, a100, prec, TpOverlap::kNone, host)) {
        total += seg.duration_ps;
        bound += seg.host_bound_ps;
      }
    }
    return std::pair{static_cast<double>(total) / (micro_batch * 1024.0), bound};
  };
  const auto [mb1, mb1_bound] = per_token_ps(1, workload::kEagerPytorch);
  const auto [mb8, mb8_bound] = per_token_ps(8, workload::kEagerPytorch);
  const auto [mb1_gpu, none] = per_token_ps(1, {});
  EXPECT_GT(mb1_bound, 0);
  EXPECT_EQ(none, 0);
  EXPECT_GT(mb1, mb1_gpu);
  // Per token, micro batch 1 costs more than micro batch 8, and more than its kernels alone say.
  EXPECT_GT(mb1 / mb8, mb1_gpu / mb8);
  EXPECT_GT(mb1 / mb8, 1.5) << mb1 << " vs " << mb8 << " ps per token";
  EXPECT_LT(static_cast<double>(mb8_bound), 0.01 * mb8 * 8 * 1024);
}

TEST(Schedules, EveryStageStartsWithItsFirstChunksForwardAndEndsWithItsBackward) {
  // What the step's lower bound (step_bound.hpp) takes for granted of every schedule: a stage's
  // first action is chunk 0's forward of microbatch 0, its last backward is chunk 0's of the last
  // microbatch, and it runs each chunk's forward and backward of each microbatch once.
  for (auto [schedule, v] : {std::pair{PipelineSchedule::kGPipe, 1}, std::pair{PipelineSchedule::kOneFOneB, 1},
                             std::pair{PipelineSchedule::kInterleaved, 2}, std::pair{PipelineSchedule::kInterleaved, 4}}) {
    for (int pp : {1, 2, 4, 8}) {
      for (int m : {8, 16, 32}) {
        for (int stage = 0; stage < pp; ++stage) {
          // Megatron-LM's grouping, and (interleaved) Megatron-Core's smallest group above it.
          for (int group : {0, schedule == PipelineSchedule::kInterleaved ? smallest_microbatch_group(pp, m - pp / 2) : 0}) {
            const int microbatches = group == 0 ? m : m - pp / 2;  // also a step no multiple of pp
            const auto order = stage_schedule(schedule, pp, v, microbatches, stage, group);
            ASSERT_FALSE(order.empty());
            EXPECT_TRUE(order.front().forward && order.front().chunk == 0 && order.front().microbatch == 0);
            const auto last = std::find_if(order.rbegin(), order.rend(), [](const PipelineAction& a) { return !a.forward; });
            ASSERT_NE(last, order.rend());
            EXPECT_EQ(last->chunk, 0);
            EXPECT_EQ(last->microbatch, microbatches - 1);
            EXPECT_EQ(order.size(), static_cast<std::size_t>(2 * v * microbatches));
            std::set<std::tuple<bool, int, int>> each;
            for (const auto& a : order) each.insert({a.forward, a.microbatch, a.chunk});
            EXPECT_EQ(each.size(), order.size()) << "an action twice, group " << group;
          }
        }
      }
    }
  }
}

TEST(StepBound, APipelinesBoundIsItsLastStageWithTheFillAndTheDrain) {
  // 1F1B over p stages of L layers (f and b per layer and microbatch), m microbatches; the
  // first stage also runs the embedding (e_f, e_b), the last the head (h_f, h_b). The last stage
  // binds: the first microbatch's forward through the p − 1 stages before it, its own m forwards
  // and backwards, the last microbatch's backward back through them, and stage 0's optimizer:
  // (p − 1)·L·f + e_f + m·(L·(f + b) + h_f + h_b) + (p − 1)·L·b + e_b + opt_0, the bubble's
  // closed form (m + p − 1)·L·(f + b) with the edges on top.
  const auto m = model(32);
  const hardware::ChipSpec chip = small_chip();
  TrainingSpec t;
  t.global_batch = 16;
  // The layers run on the chip as the step does: with its fused attention kernel.
  const LayerTimes times = layer_times(m, hardware::with_flash_kernel(chip, t.flash_kernel), ParallelSpec{}, t);
  const SimTime f = compute_ps(times.layer_forward), b = compute_ps(times.layer_backward);
  const SimTime ef = compute_ps(times.embedding_forward), eb = compute_ps(times.embedding_backward);
  const SimTime hf = compute_ps(times.head_forward), hb = compute_ps(times.head_backward);
  for (int pp : {1, 2, 4, 8}) {
    const ParallelSpec p = pipeline(pp);
    const SimTime layers = 32 / pp;
    const SimTime opt0 = optimizer_time(m, chip, p, t, 0).time_ps;
    SimTime expected = 16 * (layers * (f + b) + hf + hb) + ef + eb + opt0;
    if (pp == 1) {  // one stage runs the embedding for every microbatch too
      EXPECT_EQ(step_lower_bound_ps(m, chip, p, t), expected + 15 * (ef + eb));
      continue;
    }
    expected += (pp - 1) * layers * (f + b);
    EXPECT_EQ(step_lower_bound_ps(m, chip, p, t), expected) << "pp " << pp;
    EXPECT_GE(double(expected), double(16 + pp - 1) * double(layers * (f + b)));
  }
}


}  // namespace
}  // namespace podsim::parallelism

namespace podsim::parallelism {
namespace {

TEST(PlanDigest, EveryFieldOfThePlanChangesIt) {
  // The step memo (runtime/step_memo.hpp) reuses an execution for a plan with the same digest:
  // a field left out of it would hand one layout another's result. Each field, changed alone,
  // must change the digest; the plan and its copy must not differ.
  StepPlan plan;
  plan.stages.resize(2);
  for (auto& stage : plan.stages) {
    Task t;
    t.bytes = 1;
    stage.add(t);
    stage.add(t, {0});
  }
  const PlanDigest base = digest(plan);
  EXPECT_EQ(digest(StepPlan(plan)), base);
  const std::vector<std::pair<const char*, std::function<void(StepPlan&)>>> changes{
      {"stages", [](StepPlan& p) { p.stages.pop_back(); }},
      {"stage", [](StepPlan& p) { p.stages[1].stage = 7; }},
      {"host_bound_ps", [](StepPlan& p) { p.stages[0].host_bound_ps = 1; }},
      {"tasks", [](StepPlan& p) { p.stages[0].tasks.pop_back(); }},
      {"deps", [](StepPlan& p) { p.stages[0].deps[0] = 1; }},
      {"kind", [](StepPlan& p) { p.stages[0].tasks[0].kind = TaskKind::kCollective; }},
      {"stream", [](StepPlan& p) { p.stages[0].tasks[0].stream = Stream::kDpReduce; }},
      {"category", [](StepPlan& p) { p.stages[0].tasks[0].category = ComputeCategory::kBackward; }},
      {"axis", [](StepPlan& p) { p.stages[0].tasks[0].axis = CommAxis::kDp; }},
      {"op", [](StepPlan& p) { p.stages[0].tasks[0].op = CommOp::kAllGather; }},
      {"gemm_share", [](StepPlan& p) { p.stages[0].tasks[0].gemm_share = 1; }},
      {"memory_share", [](StepPlan& p) { p.stages[0].tasks[0].memory_share = 1; }},
      {"duration_ps", [](StepPlan& p) { p.stages[0].tasks[0].duration_ps = 1; }},
      {"bytes", [](StepPlan& p) { p.stages[0].tasks[0].bytes = 2; }},
      {"flops", [](StepPlan& p) { p.stages[0].tasks[0].flops = 1; }},
      {"padded_flops", [](StepPlan& p) { p.stages[0].tasks[0].padded_flops = 1; }},
      {"peer", [](StepPlan& p) { p.stages[0].tasks[0].peer = 0; }},
      {"message", [](StepPlan& p) { p.stages[0].tasks[0].message = 1; }},
      {"deps_begin", [](StepPlan& p) { p.stages[0].tasks[1].deps_begin = 1; }},
      {"deps_end", [](StepPlan& p) { p.stages[0].tasks[1].deps_end = 0; }},
      {"the same task in the other stage", [](StepPlan& p) { p.stages[1].tasks[1].duration_ps = 1; }},
      {"microbatches", [](StepPlan& p) { p.microbatches = 3; }},
      {"replicas_per_stage", [](StepPlan& p) { p.replicas_per_stage = 2; }},
      {"tasks_built", [](StepPlan& p) { p.tasks_built = 9; }},
      {"tokens_per_step", [](StepPlan& p) { p.tokens_per_step = 1; }},
      {"model_flops_per_step", [](StepPlan& p) { p.model_flops_per_step = 1; }},
      {"compute_units", [](StepPlan& p) { p.compute_units = 132; }},
      {"hbm_Bps", [](StepPlan& p) { p.hbm_Bps = 1e12; }},
      {"dp_serial", [](StepPlan& p) { p.dp_serial = true; }},
      {"gemm_waves", [](StepPlan& p) { p.gemm_waves = true; }},
  };
  std::vector<PlanDigest> seen{base};
  for (const auto& [field, change] : changes) {
    StepPlan changed = plan;
    change(changed);
    const PlanDigest d = digest(changed);
    for (const PlanDigest& other : seen) EXPECT_NE(d, other) << field;
    seen.push_back(d);
  }
}

}  // namespace
}  // namespace podsim::parallelism
