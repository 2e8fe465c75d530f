// Closed forms of a training step (docs/reference/formulas.md §1, §3, §4, §5), each checked
// against the simulated step. Derivations next to the assertions.
#include <gtest/gtest.h>

#include <cmath>

#include "memory/memory_model.hpp"
#include "parallelism/pipeline_schedule.hpp"
#include "parallelism/program_builder.hpp"
#include "parallelism/work_bounds.hpp"
#include "runtime/step_executor.hpp"
#include "closed_form_support.hpp"

namespace podsim {
namespace {

using parallelism::ParallelSpec;
using parallelism::PipelineSchedule;
using parallelism::Recompute;
using parallelism::TrainingSpec;
using runtime::TimeCategory;
using namespace closed_form;  // NOLINT(google-build-using-namespace): the shared fixtures

TEST(PipelineClosedForm, OneFOneBBubbleIsPMinusOneOverM) {
  // [SC21] §2.2.1: with p stages of equal t_f + t_b per microbatch, the step is
  // (m + p − 1)·(t_f + t_b) and the bubble (p − 1)·(t_f + t_b): fraction (p − 1)/m of the
  // ideal m·(t_f + t_b).
  ClosedFormComm free(0, 0);
  for (auto [p, m] : {std::pair{4, 16}, std::pair{8, 32}, std::pair{4, 4}}) {
    ParallelSpec par;
    par.pp = p;
    TrainingSpec t;
    t.global_batch = m;
    const auto r = run(uniform_model(2 * p), par, t, free);
    expect_exact_partition(r);
    const auto& s = busiest(r);
    const double bubble = double(category(s, TimeCategory::kBubble)) / double(compute(s));
    EXPECT_NEAR(bubble, double(p - 1) / m, 0.01 * double(p - 1) / m) << "p=" << p << " m=" << m;
  }
}

/// The bubble, as a share of the busiest stage's compute, of an interleaved pipeline of p stages
/// of v chunks (two layers each) over m microbatches in groups of `group` (0: p), with free
/// communication; the step's categories must add up.
double interleaved_bubble(int p, int v, int m, int group) {
  ClosedFormComm free(0, 0);
  ParallelSpec par;
  par.pp = p;
  par.schedule = PipelineSchedule::kInterleaved;
  par.virtual_stages = v;
  par.microbatch_group = group;
  TrainingSpec t;
  t.global_batch = m;
  const auto r = run(uniform_model(p * v * 2), par, t, free);
  expect_exact_partition(r);
  const auto& s = busiest(r);
  return double(category(s, TimeCategory::kBubble)) / double(compute(s));
}

TEST(PipelineClosedForm, InterleavingDividesTheBubbleByV) {
  // [SC21] §2.2.2: v model chunks per stage shrink the bubble to (1/v)·(p − 1)/m.
  const int p = 4;
  const int m = 16;
  for (int v : {2, 4}) {
    EXPECT_NEAR(interleaved_bubble(p, v, m, 0), double(p - 1) / (v * m), 0.01 * double(p - 1) / (v * m)) << "v=" << v;
  }
}

TEST(PipelineClosedForm, InterleavingDividesTheBubbleByVInMicrobatchGroups) {
  // Megatron-Core's microbatch groups (--microbatch-group-size-per-virtual-pipeline-stage, N in
  // [p, m], the last group empty or at least p long): a group of N runs through chunk 0, then
  // chunk 1, …, so each chunk's input from the stage before is ready when asked for, and the
  // bubble stays (1/v)·(p − 1)/m — also for an m that is no multiple of p (10 in groups of 5 or 6).
  // One group of all 16 is the exception: (p − rank − 1)·2 warm-up forwards are then one short of
  // the last stage's round trip at the chunk boundary, and stage 2 waits a forward's time for its
  // first backward's gradient; that adds, never removes, bubble.
  const int p = 4;
  const int v = 2;
  EXPECT_GT(interleaved_bubble(p, v, 16, 16), double(p - 1) / (v * 16));
  for (auto [m, n] : {std::pair{16, 4}, std::pair{16, 8}, std::pair{16, 12}, std::pair{10, 5}, std::pair{10, 6},
                      std::pair{10, 10}}) {
    EXPECT_NEAR(interleaved_bubble(p, v, m, n), double(p - 1) / (v * m), 0.01 * double(p - 1) / (v * m))
        << "m=" << m << " N=" << n;
  }
}

TEST(PipelineClosedForm, GPipeTakesAsLongAsOneFOneBButHoldsMoreActivations) {
  // Same bubble (p − 1)·(t_f + t_b) for both ([SC21]); GPipe stashes m microbatches,
  // 1F1B at most p on the first stage.
  ClosedFormComm free(0, 0);
  const int p = 4;
  const int m = 16;
  ParallelSpec one_f_one_b;
  one_f_one_b.pp = p;
  ParallelSpec gpipe = one_f_one_b;
  gpipe.schedule = PipelineSchedule::kGPipe;
  TrainingSpec t;
  t.global_batch = m;
  const auto model = uniform_model(8);
  const auto a = run(model, one_f_one_b, t, free);
  const auto b = run(model, gpipe, t, free);
  EXPECT_NEAR(double(b.step_ps) / double(a.step_ps), 1.0, 1e-3);
  EXPECT_EQ(parallelism::peak_in_flight(parallelism::stage_schedule(PipelineSchedule::kGPipe, p, 1, m, 0, 0)), m);
  EXPECT_EQ(parallelism::peak_in_flight(parallelism::stage_schedule(PipelineSchedule::kOneFOneB, p, 1, m, 0, 0)), p);
  const auto mem_a = memory::stage_memory(model, chip(), one_f_one_b, t);
  const auto mem_b = memory::stage_memory(model, chip(), gpipe, t);
  EXPECT_NEAR(mem_b[0].activations / mem_a[0].activations, double(m) / p, 1e-9);
}

TEST(DataParallelClosedForm, StepIsMicrobatchesTimesForwardBackwardPlusExposedAllReduce) {
  // Pure DP, reduction not overlapped, one bucket: step = m·(t_f + t_b) + T_allreduce(S) +
  // t_optimizer, with S the gradient bytes of the whole model.
  ClosedFormComm comm(5'000'000, 50e9);
  ParallelSpec par;
  par.dp = 8;
  TrainingSpec t;
  t.global_batch = 8 * 4;  // 4 microbatches per replica
  t.overlap.dp_reduce = false;
  t.dp_bucket_bytes = 1e15;
  const auto model = uniform_model(4);
  const auto r = run(model, par, t, comm);
  expect_exact_partition(r);
  const auto& s = r.stages.front();
  const double grad_bytes = parallelism::stage_param_count(model, par, 0) * 2;  // bf16 comm
  const SimTime allreduce = comm.cost(grad_bytes);
  EXPECT_EQ(category(s, TimeCategory::kCommDp), allreduce);
  EXPECT_EQ(r.step_ps, compute(s) + allreduce + category(s, TimeCategory::kOptimizer));
  EXPECT_EQ(category(s, TimeCategory::kBubble) + category(s, TimeCategory::kIdle), 0);
  // Gradients reduced in fp32 (precision.reduce, as Megatron-LM does with bf16): the same step
  // with twice the all-reduce's bytes.
  t.precision.reduce = hardware::DType::kFp32;
  const auto fp32 = run(model, par, t, comm);
  const SimTime allreduce32 = comm.cost(grad_bytes * 2);
  EXPECT_EQ(category(fp32.stages.front(), TimeCategory::kCommDp), allreduce32);
  EXPECT_EQ(fp32.step_ps - r.step_ps, allreduce32 - allreduce);
}

TEST(DataParallelClosedForm, Fp32ReductionsDoubleOnlyTheGradientCollectives) {
  // ZeRO-3: the weights' all-gathers stay in `comm` (bf16), the gradients' reduce-scatters
  // move `reduce` (fp32): each twice the bytes of the gather for the same parameters.
  ParallelSpec par;
  par.dp = 4;
  par.zero = 3;
  TrainingSpec t;
  t.global_batch = 4;
  t.precision.reduce = hardware::DType::kFp32;
  const auto plan = parallelism::build_step(uniform_model(2), chip(), par, t);
  double gathered = 0, reduced = 0;
  for (const auto& task : plan.stages[0].tasks) {
    if (task.kind != parallelism::TaskKind::kCollective) continue;
    (task.op == parallelism::CommOp::kAllGather ? gathered : reduced) += task.bytes;
  }
  ASSERT_GT(reduced, 0);
  EXPECT_DOUBLE_EQ(reduced, gathered);  // one pass of 4-byte values against two of 2-byte ones
}

TEST(DataParallelClosedForm, OverlapHidesTheReductionBehindTheBackward) {
  ClosedFormComm comm(5'000'000, 500e9);
  ParallelSpec par;
  par.dp = 8;
  TrainingSpec t;
  t.global_batch = 8 * 4;
  t.dp_bucket_bytes = 25e6;
  const auto model = uniform_model(8);
  t.overlap.dp_reduce = false;
  const auto exposed = run(model, par, t, comm);
  t.overlap.dp_reduce = true;
  const auto overlapped = run(model, par, t, comm);
  EXPECT_LT(overlapped.step_ps, exposed.step_ps);
  EXPECT_LT(category(overlapped.stages[0], TimeCategory::kCommDp), category(exposed.stages[0], TimeCategory::kCommDp));
}

TEST(FlopsClosedForm, MatchMegatronFormulas) {
  // GPT with learned positions and tied embeddings, MHA, ffn = 4h (Megatron-LM):
  //   model FLOPs per step ([KOR22] Eq. 7): 72·B·L·s·h²·(1 + s/(6h) + V/(12·h·L))
  //   executed with full recompute ([SC21] Eq. 3): 96·B·L·s·h²·(1 + s/(6h) + V/(16·h·L))
  //   executed without recompute: Eq. 7 (no extra pass).
  const workload::ModelSpec m{"gpt", 8, 4096, 16384, 32, 32, 128, 51200, 2048, workload::MlpKind::kGelu,
                              false, true, workload::PositionEmbedding::kLearned, workload::NormKind::kLayerNorm};
  const double B = 16, L = m.layers, s = m.seq_len, h = m.hidden, V = m.vocab;
  const double eq7 = 72 * B * L * s * h * h * (1 + s / (6 * h) + V / (12 * h * L));
  const double eq3 = 96 * B * L * s * h * h * (1 + s / (6 * h) + V / (16 * h * L));
  ClosedFormComm free(0, 0);
  for (auto [tp, pp] : {std::pair{1, 1}, std::pair{4, 2}}) {
    ParallelSpec par;
    par.tp = tp;
    par.pp = pp;
    par.dp = 2;
    TrainingSpec t;
    t.global_batch = static_cast<int>(B);
    const auto plan = parallelism::build_step(m, chip(), par, t);
    EXPECT_NEAR(plan.model_flops_per_step / eq7, 1.0, 1e-12);
    auto executed = [&](Recompute r) {
      t.recompute = r;
      const auto result = run(m, par, t, free);
      double flops = 0;
      for (const auto& st : result.stages) flops += st.flops * st.multiplicity;
      return flops;
    };
    EXPECT_NEAR(executed(Recompute::kNone) / eq7, 1.0, 1e-12) << "tp " << tp << " pp " << pp;
    EXPECT_NEAR(executed(Recompute::kFull) / eq3, 1.0, 1e-12);
    // Selective recompute re-runs the attention core forward, 4·B·L·s²·h more than Eq. 7.
    // (Korthikanti's Eq. 8 charges 12·B·L·s²·h; see docs/runtime.md.)
    EXPECT_NEAR(executed(Recompute::kSelective) / (eq7 + 4 * B * L * s * s * h), 1.0, 1e-12);
  }
}

TEST(MemoryClosedForm, ModelStateMatchesTheZeroTable) {
  // [ZeRO] Fig. 1, Ψ parameters, N_d = 64, mixed-precision Adam (K = 12):
  //   DP 16Ψ; ZeRO-1 4Ψ + 12Ψ/N_d; ZeRO-2 2Ψ + 14Ψ/N_d; ZeRO-3 16Ψ/N_d.
  const workload::ModelSpec m{"gpt-7.5b", 36, 4096, 16384, 32, 32, 128, 51200, 2048, workload::MlpKind::kGelu,
                              false, true, workload::PositionEmbedding::kLearned, workload::NormKind::kLayerNorm};
  const double psi = workload::count_params(m).total;
  const double nd = 64;
  ParallelSpec par;
  par.dp = 64;
  TrainingSpec t;
  t.global_batch = 64;
  t.precision = {hardware::DType::kFp16, hardware::DType::kFp16, hardware::DType::kFp16, hardware::DType::kFp32,
                 hardware::DType::kFp16, std::nullopt, false, std::nullopt};
  const double expected[] = {16 * psi, 4 * psi + 12 * psi / nd, 2 * psi + 14 * psi / nd, 16 * psi / nd};
  for (int zero = 0; zero <= 3; ++zero) {
    par.zero = zero;
    const auto mem = memory::stage_memory(m, chip(), par, t)[0];
    EXPECT_NEAR((mem.weights + mem.gradients + mem.optimizer) / expected[zero], 1.0, 1e-12) << "ZeRO-" << zero;
  }
  // The worked example of the table: Ψ = 7.5B → 120 GB, 31.4 GB, 16.6 GB, 1.9 GB.
  par.zero = 1;
  EXPECT_NEAR((4 * psi + 12 * psi / nd) / 1e9, 31.4, 0.4);
}

TEST(MemoryClosedForm, ActivationsMatchKorthikanti) {
  // [KOR22] Table 2, bytes per layer per microbatch (16-bit activations, GPT-3 175B shapes,
  // dropout on the attention probabilities and both branches as the paper assumes).
  const workload::ModelSpec m{"gpt3", 96, 12288, 49152, 96, 96, 128, 51200, 2048, workload::MlpKind::kGelu,
                              false, true, workload::PositionEmbedding::kLearned, workload::NormKind::kLayerNorm,
                              true};
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
  workload::Slicing sl;
  sl.micro_batch = 1;
  sl.seq_len = 2048;
  auto bytes = [&](int tp, bool sp, Recompute r) {
    sl.tp = tp;
    sl.sequence_parallel = sp;
    return memory::layer_activation_bytes(m, sl, r);
  };
  EXPECT_NEAR(bytes(1, false, Recompute::kNone), s * b * h * (34 + 5 * a * s / h), 1);
  EXPECT_NEAR(bytes(8, false, Recompute::kNone), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)), 1);
  EXPECT_NEAR(bytes(8, true, Recompute::kNone), s * b * h / t * (34 + 5 * a * s / h), 1);
  EXPECT_NEAR(bytes(8, false, Recompute::kSelective), s * b * h * (10 + 24 / t), 1);
  EXPECT_NEAR(bytes(8, true, Recompute::kSelective), 34 * s * b * h / t, 1);
  EXPECT_NEAR(bytes(1, false, Recompute::kFull), 2 * s * b * h, 1);
  // Without dropout the two 1-byte masks go, and the scores keep only the softmax output
  // (2·a·s²·b instead of 5): s·b·h·(8 + 24/t + 2·a·s/(h·t)).
  auto no_dropout = m;
  no_dropout.dropout = false;
  sl.tp = 8;
  sl.sequence_parallel = false;
  EXPECT_NEAR(memory::layer_activation_bytes(no_dropout, sl, Recompute::kNone),
              s * b * h * (8 + 24 / t + 2 * a * s / (h * t)), 1);
}

TEST(Accounting, CategoriesPartitionTheStepExactlyEverywhere) {
  ClosedFormComm comm(2'000'000, 40e9);
  const auto model = uniform_model(8);
  for (auto schedule : {PipelineSchedule::kGPipe, PipelineSchedule::kOneFOneB, PipelineSchedule::kInterleaved}) {
    for (int zero : {0, 1, 3}) {
      ParallelSpec par;
      par.dp = 2;
      par.tp = 2;
      par.pp = 2;
      par.schedule = schedule;
      par.virtual_stages = schedule == PipelineSchedule::kInterleaved ? 2 : 1;
      par.zero = zero;
      par.sequence_parallel = zero == 1;
      TrainingSpec t;
      t.global_batch = 8;
      t.recompute = zero == 3 ? Recompute::kFull : Recompute::kSelective;
      t.input.samples_per_s = 200;  // slow enough to stall
      const auto r = run(model, par, t, comm);
      expect_exact_partition(r);
      EXPECT_GT(category(r.stages[0], TimeCategory::kCommTp), 0);
    }
  }
}

TEST(Accounting, ASlowInputPipelineShowsAsInputStall) {
  ClosedFormComm free(0, 0);
  ParallelSpec par;
  TrainingSpec t;
  t.global_batch = 8;
  const auto model = uniform_model(2);
  const auto fast = run(model, par, t, free);
  EXPECT_EQ(category(fast.stages[0], TimeCategory::kInputStall), 0);
  // One sample every P = 100 ms, 2 buffered and ready at the start; each microbatch costs
  // c = t_f + t_b < P. Microbatch k >= 2 is produced at (k − 1)·P (production is the
  // bottleneck), so the chip waits P − 2c before microbatch 2 and P − c before each of the
  // m − 3 others: (m − 2)·P − (m − 1)·c in all.
  t.input.samples_per_s = 10;
  const auto slow = run(model, par, t, free);
  const SimTime P = from_seconds(0.1);
  const SimTime c = compute(fast.stages[0]) / 8;
  EXPECT_EQ(category(slow.stages[0], TimeCategory::kInputStall), 6 * P - 7 * c);
  expect_exact_partition(slow);
}

TEST(WorkEstimate, CountsTheTasksTheBuilderMakes) {
  // The budget check refuses a step before it is built, so its estimate must be the real
  // count: within 10 % over pipelines, ZeRO stages, recompute levels and tensor parallelism.
  const auto m = uniform_model(16);
  for (const SmallLayout& l : small_layouts(64)) {
    const auto plan = parallelism::build_step(m, chip(), l.parallel, l.training);
    const auto tasks = static_cast<double>(plan.tasks_built);
    double fused = 0;
    for (const auto& stage : plan.stages) fused += static_cast<double>(stage.tasks.size());
    EXPECT_LE(fused, tasks) << l.name;
    const double estimate = parallelism::estimate_work(m, l.parallel, l.training).tasks;
    EXPECT_NEAR(estimate / tasks, 1.0, 0.10) << l.name << ": " << estimate << " vs " << tasks;
  }
}

TEST(WorkEstimate, RefusesWhatTheClockCannotHold) {
  const auto m = uniform_model(16);
  ParallelSpec p;
  p.dp = 8;
  TrainingSpec t;
  t.global_batch = 1 << 30;  // 2^31 · 2048 tokens × ~2.4e9 FLOP per token / 8 chips at 275 TFLOP/s ≈ 4.6e6 s > 13.3 days
  try {
    parallelism::check_representable(m, chip(), p, t, 8);
    ADD_FAILURE() << "accepted";
  } catch (const parallelism::LayoutError& e) {
    EXPECT_EQ(e.key(), "training.global_batch");
  }
  t.global_batch = 64;
  t.input.samples_per_s = 1e-6;  // 8 samples per replica: 8e6 s
  try {
    parallelism::check_representable(m, chip(), p, t, 8);
    ADD_FAILURE() << "accepted";
  } catch (const parallelism::LayoutError& e) {
    EXPECT_EQ(e.key(), "training.input.samples_per_s");
  }
  t.input.samples_per_s = 1;
  EXPECT_NO_THROW(parallelism::check_representable(m, chip(), p, t, 8));
}

}  // namespace
}  // namespace podsim
