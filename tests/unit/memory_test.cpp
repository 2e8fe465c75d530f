// Per-chip memory (memory/memory_model.hpp): model state under ZeRO with a working copy,
// remat policies, uneven stages, the allocator reserve, and two runs that trained in
// production and so must fit (DESIGN.md §3: "A layout that ran must fit").
#include <gtest/gtest.h>

#include "config/scenario_config.hpp"
#include "memory/memory_model.hpp"
#include "parallelism/program_builder.hpp"
#include "parallelism/stage_layers.hpp"

namespace podsim::memory {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

hardware::ChipSpec chip() {
  hardware::ChipSpec c;
  c.name = "memory-test-chip";
  c.peak_flops = {{hardware::DType::kBf16, 1e15}, {hardware::DType::kFp8, 2e15}};
  c.hbm_capacity_bytes = 80 * kGiB;
  c.hbm_reserved_bytes = 2 * kGiB;
  c.hbm_bandwidth_Bps = 3e12;
  return c;
}

workload::ModelSpec gpt(int layers) {
  return workload::ModelSpec{"gpt", layers, 4096, 16384, 32, 32, 128, 51200, 2048, workload::MlpKind::kGelu,
                             false, true, workload::PositionEmbedding::kLearned, workload::NormKind::kLayerNorm,
                             true};
}

TEST(ModelState, DistributedOptimizerShardsTheMasterAndKeepsA16BitWorkingCopy) {
  // fp32 stored weights, bf16 compute, ZeRO-1 over d = 8 (Megatron's distributed optimizer,
  // DeepSpeed ZeRO-1): per parameter 2 (bf16 working copy) + 2 (bf16 gradients) replicated,
  // and (4 master + 8 Adam) / d sharded.
  const auto m = gpt(4);
  parallelism::ParallelSpec p;
  p.dp = 8;
  p.zero = 1;
  parallelism::TrainingSpec t;
  t.global_batch = 8;
  const double psi = parallelism::stage_param_count(m, p, 0);
  auto state = [&](const MemoryBreakdown& b) { return b.weights + b.gradients + b.optimizer; };
  EXPECT_NEAR(state(stage_memory(m, chip(), p, t)[0]) / (psi * (4 + 12.0 / 8)), 1.0, 1e-12);
  // Without ZeRO the fp32 weights stay as they are (PyTorch AMP): 4 + 2 + 8.
  p.zero = 0;
  EXPECT_NEAR(state(stage_memory(m, chip(), p, t)[0]) / (psi * 14), 1.0, 1e-12);
  // ZeRO-3 shards everything: (4 + 2 + 8) / d.
  p.zero = 3;
  EXPECT_NEAR(state(stage_memory(m, chip(), p, t)[0]) / (psi * 14 / 8), 1.0, 1e-12);
}

TEST(ModelState, TorchtitansZeroThreePipelineKeepsItsStageGatheredAndItsGradientsWhole) {
  // ZeRO-3 over d = 8 with pp 2 under torchtitan: the stage's parameters stay gathered from
  // their first forward to the step's end (2 bytes, bf16) beside the fp32 shard (4 / d), the
  // gradients accumulate whole in the reduction's dtype (fp32 here: 4), Adam stays sharded
  // (8 / d); no gather buffer on top. MaxText's pipeline gathers per microbatch: (4 + 2 + 8) / d
  // and the layers gathered ahead.
  const auto m = gpt(4);
  parallelism::ParallelSpec p;
  p.dp = 8;
  p.pp = 2;
  p.zero = 3;
  parallelism::TrainingSpec t;
  t.global_batch = 32;
  t.precision.reduce = hardware::DType::kFp32;
  t.stack = workload::Stack::kTorchtitan;
  const double psi = parallelism::stage_param_count(m, p, 0);
  const MemoryBreakdown titan = stage_memory(m, chip(), p, t)[0];
  EXPECT_NEAR(titan.weights / (psi * (2 + 4.0 / 8)), 1.0, 1e-12);
  EXPECT_NEAR(titan.gradients / (psi * 4), 1.0, 1e-12);
  EXPECT_NEAR(titan.optimizer / (psi * 8.0 / 8), 1.0, 1e-12);
  // ZeRO-2 (SHARD_GRAD_OP) under the pipeline: its bf16 working copy whole (the master and Adam
  // sharded), and its gradients whole too.
  p.zero = 2;
  const MemoryBreakdown grad_op = stage_memory(m, chip(), p, t)[0];
  EXPECT_NEAR(grad_op.gradients / (psi * 4), 1.0, 1e-12);
  p.zero = 3;
  t.stack = workload::Stack::kMaxText;
  const MemoryBreakdown maxtext = stage_memory(m, chip(), p, t)[0];
  EXPECT_NEAR((maxtext.weights + maxtext.gradients + maxtext.optimizer) / (psi * 14 / 8), 1.0, 1e-12);
  EXPECT_GT(maxtext.temporary, titan.temporary);
}

TEST(ModelState, HybridShardingShardsOverTheGroupOnly) {
  // dp = 32 replicas in groups of 8 (FSDP HYBRID_SHARD, MaxText ici_fsdp × dcn_data): the
  // model state is sharded over the 8 only, so each chip holds what dp = 8 would.
  const auto m = gpt(4);
  parallelism::TrainingSpec t;
  t.global_batch = 32;
  parallelism::ParallelSpec p;
  p.dp = 32;
  p.zero_group = 8;
  parallelism::ParallelSpec group = p;
  group.dp = 8;
  group.zero_group = 0;
  parallelism::TrainingSpec t_group = t;
  t_group.global_batch = 8;
  const double psi = parallelism::stage_param_count(m, p, 0);
  auto state = [&](const MemoryBreakdown& b) { return b.weights + b.gradients + b.optimizer; };
  for (int zero : {1, 2, 3}) {
    p.zero = group.zero = zero;
    EXPECT_DOUBLE_EQ(state(stage_memory(m, chip(), p, t)[0]), state(stage_memory(m, chip(), group, t_group)[0]))
        << "ZeRO-" << zero;
  }
  EXPECT_NEAR(state(stage_memory(m, chip(), p, t)[0]) / (psi * 14 / 8), 1.0, 1e-12);
}

TEST(Temporary, TheLogitsAndTheirGradientAreKeptInTheLossDtype) {
  // One stage, no data parallelism: the temporary memory is the logits and their gradient,
  // 2 × b·s·V values in the loss dtype (fp32 by default; bf16 in pure 16-bit training).
  const auto m = gpt(2);
  parallelism::ParallelSpec p;
  parallelism::TrainingSpec t;
  t.global_batch = 4;
  t.micro_batch = 4;
  const double values = 4.0 * 2048 * 51200;
  EXPECT_DOUBLE_EQ(stage_memory(m, chip(), p, t)[0].temporary, 2 * 4 * values);
  t.precision.loss = hardware::DType::kBf16;
  EXPECT_DOUBLE_EQ(stage_memory(m, chip(), p, t)[0].temporary, 2 * 2 * values);
  p.tp = 4;  // the vocabulary-parallel head holds V / tp of them
  EXPECT_DOUBLE_EQ(stage_memory(m, chip(), p, t)[0].temporary, 2 * 2 * values / 4);
}

TEST(Activations, PoliciesOrderAsTheyKeep) {
  auto m = gpt(4);
  m.dropout = false;
  workload::Slicing s;
  s.micro_batch = 1;
  s.seq_len = 2048;
  s.tp = 8;
  s.sequence_parallel = true;
  s.flash_attention = true;
  using R = parallelism::Recompute;
  const double none = layer_activation_bytes(m, s, R::kNone);
  const double minimal = layer_activation_bytes(m, s, R::kMinimal);
  const double dots_no_mlp = layer_activation_bytes(m, s, R::kSaveDotExceptMlp);
  const double qkv = layer_activation_bytes(m, s, R::kSaveQkvProj);
  const double nothing = layer_activation_bytes(m, s, R::kNothingSaveable);
  EXPECT_GT(none, minimal);
  EXPECT_GT(minimal, dots_no_mlp);
  EXPECT_GT(dots_no_mlp, qkv);
  EXPECT_GT(qkv, nothing);
  // nothing_saveable and Megatron's full keep the layer input alone: 2·s·b·h/t bytes.
  EXPECT_DOUBLE_EQ(nothing, 2.0 * 2048 * 4096 / 8);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, s, R::kFull), nothing);
  // Offloading Q, K, V keeps HBM at nothing_saveable's and puts Q, K, V in host memory.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, s, R::kQkvProjOffloaded), nothing);
  EXPECT_DOUBLE_EQ(layer_host_bytes(m, s, R::kQkvProjOffloaded), qkv - nothing);
  // Recompute brings one layer's worth back before its backward: none needs none of it.
  EXPECT_EQ(layer_recompute_bytes(m, s, R::kNone), 0);
  EXPECT_DOUBLE_EQ(layer_recompute_bytes(m, s, R::kFull), none - nothing);
}

TEST(Activations, UnevenStagesHoldTheirOwnLayers) {
  // 11 layers on 4 stages split 2, 4, 3, 2; under 1F1B stage k holds pp − k microbatches:
  // activations 4·2, 3·4, 2·3, 1·2 layers' worth.
  const auto m = gpt(11);
  parallelism::ParallelSpec p;
  p.pp = 4;
  parallelism::TrainingSpec t;
  t.global_batch = 16;
  t.recompute = parallelism::Recompute::kFull;
  const double layer = layer_activation_bytes(m, parallelism::slicing_of(p, t), t.recompute);
  const auto mem = stage_memory(m, chip(), p, t);
  const double expected[] = {8, 12, 6, 2};
  for (int s = 0; s < 4; ++s) EXPECT_NEAR(mem[s].activations / layer, expected[s], 1e-9) << "stage " << s;
}

TEST(Capacity, TheReserveIsNotUsable) {
  const auto mem = stage_memory(gpt(2), chip(), parallelism::ParallelSpec{}, parallelism::TrainingSpec{});
  EXPECT_DOUBLE_EQ(mem[0].capacity, 78 * kGiB);
}

// Megatron-LM's own estimator, megatron/training/theoretical_memory_usage.py (NVIDIA/Megatron-LM
// at 00caa53a; printed by --log-memory-to-tensorboard's report_theoretical_memory):
//   weights and optimizer = the most loaded shard's parameters ((transformer block / pp +
//     embedding) / tp) × (18, or 6 + 12 / dp with --use-distributed-optimizer): bf16 weights,
//     fp32 main gradients, fp32 master and Adam moments;
//   activations, with sequence parallelism and selective recompute (Korthikanti et al. Table 2)
//     = s·b·h·(18 + 4·ffn/h) per layer × all layers (1F1B's first stage holds pp microbatches of
//     L/pp layers) + 8·s·b·pp (token ids) + s·b·h·pp (embedding dropout mask), ÷ tp.
// Megatron's estimator leaves out the learned position embedding, which Megatron keeps whole on
// every tp rank of the first stage (a plain torch.nn.Embedding, not vocab-parallel): added here.
// podsim does not count the embedding's token ids and dropout mask (as Korthikanti's Fig. 1 does
// not; 0.25 % here): taken out of Megatron's activations here. Megatron counts no biases (< 0.1 %).
TEST(AgainstMegatronsEstimator, Gpt3On1024GpusMatchesItsWeightsOptimizerAndActivations) {
  const workload::ModelSpec m{"gpt3-175b", 96, 12288, 49152, 96, 96, 128, 51200, 2048, workload::MlpKind::kGelu,
                              false, true, workload::PositionEmbedding::kLearned, workload::NormKind::kLayerNorm,
                              true, true};
  parallelism::ParallelSpec p;
  p.dp = 16;
  p.tp = 8;
  p.pp = 8;
  p.zero = 1;  // --use-distributed-optimizer
  p.sequence_parallel = true;
  parallelism::TrainingSpec t;
  t.global_batch = 1536;
  t.micro_batch = 1;
  t.seq_len = 2048;
  t.recompute = parallelism::Recompute::kSelective;
  t.precision.params = hardware::DType::kBf16;  // --bf16: the model in bf16, the fp32 master in the optimizer
  t.precision.grads = hardware::DType::kFp32;   // Megatron's fp32 main_grad buffer
  const MemoryBreakdown stage0 = stage_memory(m, chip(), p, t)[0];

  const double s = 2048, b = 1, h = 12288, ffn = 49152, L = 96, vocab = 51200, tp = 8, pp = 8, dp = 16;
  const double layer = 2 * h * (ffn + 2) + 2 * h * h * 2;  // its num_parameters_in_transformer_layer_dense
  const double shard = (layer * L / pp + h * vocab) / tp + s * h;  // + the positions, whole
  const double weights_and_optimizer = shard * (6 + 12 / dp);
  EXPECT_NEAR((stage0.weights + stage0.gradients + stage0.optimizer) / weights_and_optimizer, 1.0, 0.001);
  const double embedding = (8 * s * b * pp + s * b * h * pp) / tp;
  const double activations = s * b * h * (18 + 4 * ffn / h) * L / tp + embedding;
  EXPECT_NEAR(stage0.activations / (activations - embedding), 1.0, 1e-9);
  EXPECT_NEAR(embedding / activations, 0.0025, 0.0001);
  // Without the distributed optimizer: 18 bytes per parameter.
  p.zero = 0;
  const MemoryBreakdown plain = stage_memory(m, chip(), p, t)[0];
  EXPECT_NEAR((plain.weights + plain.gradients + plain.optimizer) / (shard * 18), 1.0, 0.001);
}

/// Loads a scenario of configs/validation/scenarios.
runtime::Scenario scenario(const char* name) {
  return config::load_scenario(std::filesystem::path(PODSIM_SOURCE_DIR) / "configs" / "validation" / "scenarios" / name)
      .scenario;
}

TEST(RunsThatTrained, PaLM540BOn6144TpuV4Fits) {
  // Chowdhery et al. 2022: tp 12 × 256-way FSDP per pod × 2 pods, batch 2048, rematerialisation.
  const auto s = scenario("palm-540b-tpu-v4-6144.yaml");
  const auto mem = stage_memory(s.model, s.chip, s.parallel, s.training);
  EXPECT_FALSE(does_not_fit(mem).has_value()) << *does_not_fit(mem);
  EXPECT_LT(mem[0].total / kGiB, 31.0);
}

TEST(RunsThatTrained, Llama3405BOn16kH100Fits) {
  // Dubey et al. 2024: TP 8, PP 16 (7, 14 × 8, 7 layers), DP 128, 8K sequences, 16M tokens.
  const auto s = scenario("llama3-405b-h100-16k.yaml");
  EXPECT_EQ(parallelism::pipeline_stage_layers(s.model, s.parallel).front(), 7);
  const auto mem = stage_memory(s.model, s.chip, s.parallel, s.training);
  EXPECT_FALSE(does_not_fit(mem).has_value()) << *does_not_fit(mem);
}

}  // namespace
}  // namespace podsim::memory
