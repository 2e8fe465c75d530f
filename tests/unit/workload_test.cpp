// Remat policies on a layer's ops (workload/remat_policy.hpp, layer_ops.hpp) and the tensor
// inventory (activation_sizes.hpp). Expected sets and sizes derived next to each assertion.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "util/error.hpp"
#include "workload/activation_sizes.hpp"
#include "workload/host_dispatch.hpp"
#include "workload/stack_profile.hpp"
#include "workload/layer_ops.hpp"
#include "workload/loss_kernels.hpp"
#include "workload/model_spec.hpp"

namespace podsim::workload {
namespace {

/// A LLaMA-style layer (SwiGLU, no dropout), as MaxText builds it.
ModelSpec llama() {
  ModelSpec m;
  m.name = "llama";
  m.layers = 2;
  m.hidden = 4096;
  m.ffn_hidden = 11008;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.vocab = 32000;
  m.seq_len = 2048;
  m.mlp = MlpKind::kSwiglu;
  m.position = PositionEmbedding::kRotary;
  m.norm = NormKind::kRmsNorm;
  m.tied_embeddings = false;
  return m;
}

Slicing slicing(int tp, bool flash) {
  Slicing s;
  s.micro_batch = 2;
  s.seq_len = 2048;
  s.tp = tp;
  s.sequence_parallel = tp > 1;
  s.flash_attention = flash;
  return s;
}

std::vector<std::string> names(const std::vector<WorkItem>& items) {
  std::vector<std::string> out;
  for (const auto& i : items) out.push_back(i.name);
  return out;
}

double flops(const std::vector<WorkItem>& items) {
  double f = 0;
  for (const auto& i : items) f += i.cost.flops();
  return f;
}

TEST(CausalFlashAttention, RunsTheBlocksOnOrBelowTheDiagonal) {
  // T×T blocks of 128, T = ⌈s/128⌉: the T(T+1)/2 on or below the diagonal run.
  EXPECT_DOUBLE_EQ(causal_block_share(2048), 17.0 / 32.0);  // T = 16: 136 of 256
  EXPECT_DOUBLE_EQ(causal_block_share(128), 1.0);           // one block: the diagonal
  EXPECT_DOUBLE_EQ(causal_block_share(256), 3.0 / 4.0);     // 3 of 4
  EXPECT_DOUBLE_EQ(causal_block_share(200), 3.0 / 4.0);     // a partial block is a block
  // The flash kernels' matmul FLOPs are that share of the full score matrix's: forward two
  // s×s×d matmuls per head, backward five; without flash the whole matrix is computed.
  const ModelSpec m = llama();
  const Slicing s = slicing(1, true);
  const LayerWork flash = transformer_layer(m, s);
  const double heads = s.micro_batch * m.heads;
  const double full = 2.0 * heads * s.seq_len * double(s.seq_len) * m.head_dim;
  for (const auto& [items, name, matmuls] :
       {std::tuple{&flash.forward, "attention.flash", 2.0}, std::tuple{&flash.backward, "attention.flash.backward", 5.0}}) {
    bool found = false;
    for (const auto& w : *items) {
      if (w.name != name) continue;
      found = true;
      EXPECT_DOUBLE_EQ(w.cost.flops(), matmuls * full * 17.0 / 32.0) << name;
      EXPECT_TRUE(w.cost.fused_attention) << name;
    }
    EXPECT_TRUE(found) << name;
  }
  const LayerWork plain = transformer_layer(m, slicing(1, false));
  double attention = 0;
  for (const auto& w : plain.forward) attention += w.math == MathClass::kAttention ? w.cost.flops() : 0;
  EXPECT_DOUBLE_EQ(attention, 2 * full);  // scores and values, the whole matrix
}

/// 1e15 bf16 FLOP/s, 1 TB/s of HBM, no tile padding, matmuls at 0.6 of peak.
hardware::ChipSpec attention_test_chip() {
  hardware::ChipSpec chip;
  chip.name = "test";
  chip.peak_flops = {{hardware::DType::kBf16, 1e15}};
  chip.hbm_bandwidth_Bps = 1e12;
  chip.matmul_tile = 1;
  chip.efficiency.matmul = 0.6;
  return chip;
}

TEST(CausalFlashAttention, RunsAtTheChipsFlashEfficiencyWhereItHasOne) {
  hardware::ChipSpec chip = attention_test_chip();
  const hardware::OpCost gemm{8, 4096, 4096, 128, 1e6};
  hardware::OpCost fused = gemm;
  fused.fused_attention = true;
  const SimTime at_matmul = hardware::op_time(chip, hardware::DType::kBf16, gemm).time_ps;
  EXPECT_EQ(hardware::op_time(chip, hardware::DType::kBf16, fused).time_ps, at_matmul);  // none given: as matmul
  chip.efficiency.flash_attention = 0.3;
  EXPECT_EQ(hardware::op_time(chip, hardware::DType::kBf16, gemm).time_ps, at_matmul);
  // 2·8·4096·4096·128 FLOPs at 0.3 of 1e15 FLOP/s (compute-bound: 1 MB over 1 TB/s is 1 µs).
  EXPECT_EQ(hardware::op_time(chip, hardware::DType::kBf16, fused).time_ps,
            from_seconds(2.0 * 8 * 4096 * 4096 * 128 / (0.3 * 1e15)));
}

TEST(CausalFlashAttention, TheTritonKernelRunsAtItsOwnRateAndOnlyWhereOneIsMeasured) {
  hardware::ChipSpec chip = attention_test_chip();
  chip.efficiency.flash_attention = 0.3;
  hardware::OpCost fused{8, 4096, 4096, 128, 1e6};
  fused.fused_attention = true;
  // The native kernel: the chip unchanged.
  const hardware::ChipSpec native = hardware::with_flash_kernel(chip, hardware::FlashKernel::kNative);
  EXPECT_EQ(hardware::op_time(native, hardware::DType::kBf16, fused).time_ps,
            hardware::op_time(chip, hardware::DType::kBf16, fused).time_ps);
  // No Triton rate measured on this chip: refused, not guessed.
  EXPECT_FALSE(hardware::has_flash_kernel(chip, hardware::FlashKernel::kTriton));
  EXPECT_THROW(hardware::with_flash_kernel(chip, hardware::FlashKernel::kTriton), podsim::InputError);
  chip.efficiency.triton_attention = 0.15;
  const hardware::ChipSpec triton = hardware::with_flash_kernel(chip, hardware::FlashKernel::kTriton);
  // 2·8·4096·4096·128 FLOPs at 0.15 of 1e15 FLOP/s: twice the native kernel's time.
  EXPECT_EQ(hardware::op_time(triton, hardware::DType::kBf16, fused).time_ps,
            from_seconds(2.0 * 8 * 4096 * 4096 * 128 / (0.15 * 1e15)));
  // Matmuls outside the fused kernel keep the matmul efficiency.
  const hardware::OpCost gemm{8, 4096, 4096, 128, 1e6};
  EXPECT_EQ(hardware::op_time(triton, hardware::DType::kBf16, gemm).time_ps,
            hardware::op_time(chip, hardware::DType::kBf16, gemm).time_ps);
}

TEST(Remat, MegatronLevelsReRunWhatKorthikantiSays) {
  const ModelSpec m = llama();
  const Slicing s = slicing(1, false);
  const LayerWork layer = transformer_layer(m, s);
  EXPECT_TRUE(recompute_work(m, layer, Recompute::kNone, s).empty());
  // Selective: the attention core (scores, softmax, values; no dropout here).
  EXPECT_EQ(names(recompute_work(m, layer, Recompute::kSelective, s)),
            (std::vector<std::string>{"attention.scores", "attention.softmax", "attention.values"}));
  // With flash attention its backward recomputes the scores itself: nothing to re-run.
  const Slicing sf = slicing(1, true);
  EXPECT_TRUE(recompute_work(m, transformer_layer(m, sf), Recompute::kSelective, sf).empty());
  // Full (Megatron): the whole forward again.
  EXPECT_EQ(names(recompute_work(m, layer, Recompute::kFull, s)), names(layer.forward));
}

TEST(Remat, JaxPoliciesReRunWhatTheyCannotKeep) {
  const ModelSpec m = llama();
  const Slicing s = slicing(4, true);
  const LayerWork layer = transformer_layer(m, s);
  // nothing_saveable (MaxText `full`): every op but the MLP down projection and the last
  // residual, whose outputs nothing in the backward reads (JAX dead-code-eliminates them);
  // the collectives of the re-run matmuls come with them.
  const auto all = recompute_work(m, layer, Recompute::kNothingSaveable, s);
  for (const auto& name : names(all)) {
    EXPECT_EQ(name.find("mlp.down"), std::string::npos) << name;
    EXPECT_NE(name, "residual2");
  }
  EXPECT_NE(std::find(names(all).begin(), names(all).end(), "tp.gather.attention"), names(all).end());
  double down = 0;
  for (const auto& i : layer.forward) down += i.name == "mlp.down" ? i.cost.flops() : 0;
  EXPECT_DOUBLE_EQ(flops(all), flops(layer.forward) - down);
  // minimal (dots without batch dimensions saved): the norms, the flash attention forward and
  // the activation function are re-run; no projection is.
  EXPECT_EQ(names(recompute_work(m, layer, Recompute::kMinimal, s)),
            (std::vector<std::string>{"norm1", "attention.flash", "residual1", "norm2", "mlp.activation"}));
  // minimal_flash also keeps the attention output: the flash forward is not re-run.
  const auto mf = names(recompute_work(m, layer, Recompute::kMinimalFlash, s));
  EXPECT_EQ(std::find(mf.begin(), mf.end(), "attention.flash"), mf.end());
  // Offloading Q, K, V re-runs exactly what keeping them would.
  EXPECT_EQ(names(recompute_work(m, layer, Recompute::kQkvProjOffloaded, s)),
            names(recompute_work(m, layer, Recompute::kSaveQkvProj, s)));
}

TEST(Remat, PyTorchEarlyStopEndsAtTheLastSavedTensor) {
  const ModelSpec m = llama();
  const Slicing s = slicing(4, true);
  const LayerWork layer = transformer_layer(m, s);
  // The MLP down projection saves its input before it runs; nothing after it saves anything
  // (the residual add needs none of its inputs): it, its reduce and the add are not re-run.
  std::vector<std::string> before_down;
  double down = 0;
  for (const auto& i : layer.forward) {
    if (i.name == "mlp.down") down = i.cost.flops();
    if (i.name != "mlp.down" && i.name != "tp.reduce.mlp" && i.name != "residual2") before_down.push_back(i.name);
  }
  const auto early = apply_remat(m, layer, Recompute::kEarlyStop, s);
  EXPECT_EQ(names(early.rerun), before_down);
  EXPECT_DOUBLE_EQ(flops(early.rerun), flops(layer.forward) - down);
  EXPECT_EQ(early.kept, bit(Tensor::kInput));
  // A dropout after the MLP saves its mask once it has run: the whole forward runs again.
  ModelSpec dropout = m;
  dropout.dropout = true;
  const LayerWork with_mask = transformer_layer(dropout, s);
  EXPECT_EQ(names(recompute_work(dropout, with_mask, Recompute::kEarlyStop, s)), names(with_mask.forward));
  // fp8 GEMMs are Transformer Engine's autograd Functions, which save once their forward has
  // returned: the down projection (and its cast) runs again, the residual add still does not.
  Slicing fp8 = s;
  fp8.linear_input_bytes = 1;
  const LayerWork te = transformer_layer(m, fp8);
  const auto te_rerun = names(recompute_work(m, te, Recompute::kEarlyStop, fp8));
  EXPECT_NE(std::find(te_rerun.begin(), te_rerun.end(), "mlp.down"), te_rerun.end());
  EXPECT_NE(std::find(te_rerun.begin(), te_rerun.end(), "mlp.down.fp8_cast"), te_rerun.end());
  EXPECT_EQ(std::find(te_rerun.begin(), te_rerun.end(), "residual2"), te_rerun.end());
  // In a parallel block the attention's output projection runs before the MLP, so PyTorch
  // re-runs it; JAX's dead-code elimination drops it (its output feeds only the residual add).
  ModelSpec parallel = m;
  parallel.parallel_block = true;
  const LayerWork pl = transformer_layer(parallel, s);
  const auto torch = names(recompute_work(parallel, pl, Recompute::kEarlyStop, s));
  const auto jax = names(recompute_work(parallel, pl, Recompute::kNothingSaveable, s));
  EXPECT_NE(std::find(torch.begin(), torch.end(), "attention.out"), torch.end());
  EXPECT_EQ(std::find(jax.begin(), jax.end(), "attention.out"), jax.end());
}

TEST(Remat, KeptTensorsAreResidualsOnly) {
  const ModelSpec m = llama();
  const Slicing s = slicing(4, true);
  const LayerWork layer = transformer_layer(m, s);
  // mlpwo feeds only the residual add: no policy keeps it, even one that names it.
  for (Recompute r : kRematPolicies) {
    EXPECT_FALSE(contains(apply_remat(m, layer, r, s).kept, Tensor::kMlpWo)) << recompute_name(r);
  }
  // out_proj is kept by save_dot_except_mlp: norm2's input is recomputed from it.
  const auto r = apply_remat(m, layer, Recompute::kSaveDotExceptMlp, s);
  EXPECT_TRUE(contains(r.kept, Tensor::kOutProj));
  EXPECT_TRUE(contains(r.kept, Tensor::kQ));
  // Offloaded Q, K, V are in host memory, not HBM.
  const auto o = apply_remat(m, layer, Recompute::kQkvProjOffloaded, s);
  EXPECT_EQ(o.host, bit(Tensor::kQ) | bit(Tensor::kK) | bit(Tensor::kV));
  EXPECT_EQ(o.kept, bit(Tensor::kInput));
}

TEST(Tensors, SizesFollowTheSlicing) {
  // b = 2, s = 2048, h = 4096, tp 4 with sequence parallelism: the layer input is
  // 2·2048·4096/4 values of 2 bytes = 8 MiB; Q holds 32/4 heads × 128, K 8/4 heads × 128.
  const ModelSpec m = llama();
  const Slicing s = slicing(4, true);
  EXPECT_DOUBLE_EQ(tensor_bytes(m, s, Tensor::kInput), 2.0 * 2048 * 4096 / 4 * 2);
  EXPECT_DOUBLE_EQ(tensor_bytes(m, s, Tensor::kQ), 2.0 * 2048 * 8 * 128 * 2);
  EXPECT_DOUBLE_EQ(tensor_bytes(m, s, Tensor::kK), 2.0 * 2048 * 2 * 128 * 2);
  // SwiGLU's up projection writes two ffn/tp tensors; no dropout, no masks; flash: no scores.
  EXPECT_DOUBLE_EQ(tensor_bytes(m, s, Tensor::kMlpWi), 2 * 2.0 * 2048 * 2752 * 2);
  EXPECT_EQ(tensor_bytes(m, s, Tensor::kAttnMask), 0);
  EXPECT_EQ(tensor_bytes(m, s, Tensor::kScores), 0);
  // fp8 GEMM inputs are saved in one byte (Transformer Engine).
  Slicing fp8 = s;
  fp8.linear_input_bytes = 1;
  EXPECT_DOUBLE_EQ(tensor_bytes(m, fp8, Tensor::kNorm1Out), tensor_bytes(m, s, Tensor::kNorm1Out) / 2);
  EXPECT_DOUBLE_EQ(tensor_bytes(m, fp8, Tensor::kQ), tensor_bytes(m, s, Tensor::kQ));
}

TEST(Precision, Fp8AddsTransformerEnginesCastsAroundEveryLinearGemm) {
  const ModelSpec m = llama();
  Slicing s = slicing(1, true);
  const auto bf16 = transformer_layer(m, s);
  s.linear_input_bytes = 1;
  const auto fp8 = transformer_layer(m, s);
  // 4 linear GEMMs forward (qkv, out, up, down), 4 dgrad/wgrad pairs backward: one cast each.
  EXPECT_EQ(fp8.forward.size(), bf16.forward.size() + 4);
  EXPECT_EQ(fp8.backward.size(), bf16.backward.size() + 4);
  int linear = 0;
  for (const auto& i : fp8.forward) linear += i.math == MathClass::kLinear;
  EXPECT_EQ(linear, 4);
}

/// The bytes an item named `name` of `items` moves; fails the test if there is none.
double bytes_of(const std::vector<WorkItem>& items, const std::string& name) {
  for (const auto& i : items) {
    if (i.name == name) return i.cost.bytes;
  }
  ADD_FAILURE() << "no item " << name;
  return 0;
}

TEST(Loss, EachKernelMovesTheBytesItsPassesRead) {
  // bf16 logits, fp32 loss. Megatron: cast 2+4, max 4, sub_ 8, exp 8, sum 4, div_ 8 = 38;
  // backward mul_ 8 and the cast back 4+2 = 14.
  EXPECT_DOUBLE_EQ(loss_traffic(LossKernel::kMegatron, 2, 4).forward, 38);
  EXPECT_DOUBLE_EQ(loss_traffic(LossKernel::kMegatron, 2, 4).backward, 14);
  // F.cross_entropy: cast 6, log_softmax 3 reads + 1 write of 4 = 16; backward the zero grad 4,
  // log_softmax_backward 16, the cast back 6.
  EXPECT_DOUBLE_EQ(loss_traffic(LossKernel::kPyTorch, 2, 4).forward, 22);
  EXPECT_DOUBLE_EQ(loss_traffic(LossKernel::kPyTorch, 2, 4).backward, 26);
  // Without autocast there is no cast: 4 and 5 passes of 2 bytes.
  EXPECT_DOUBLE_EQ(loss_traffic(LossKernel::kPyTorch, 2, 2).forward, 8);
  EXPECT_DOUBLE_EQ(loss_traffic(LossKernel::kPyTorch, 2, 2).backward, 10);
  // A fused kernel reads the bf16 logits twice, then reads them and writes their gradient.
  for (const double loss : {2.0, 4.0}) {
    EXPECT_DOUBLE_EQ(loss_traffic(LossKernel::kFused, 2, loss).forward, 4);
    EXPECT_DOUBLE_EQ(loss_traffic(LossKernel::kFused, 2, loss).backward, 4);
  }
  // What the loss holds: logits and gradient in the loss dtype, or in their own when fused.
  EXPECT_DOUBLE_EQ(loss_live_bytes(LossKernel::kMegatron, 2, 4), 8);
  EXPECT_DOUBLE_EQ(loss_live_bytes(LossKernel::kFused, 2, 4), 4);
  EXPECT_EQ(stack_profile(default_stack(hardware::SoftwareStack::kXla)).loss_kernel, LossKernel::kFused);
  EXPECT_EQ(stack_profile(default_stack(hardware::SoftwareStack::kMegatron)).loss_kernel, LossKernel::kMegatron);
}

TEST(Loss, TheHeadChargesItsKernelOnTheChipsShareOfTheLogits) {
  const ModelSpec m = llama();
  for (const int tp : {1, 4}) {
    Slicing s = slicing(tp, true);
    const double logits = 2.0 * 2048 * 32000 / tp;  // micro batch 2
    for (const LossKernel k : kLossKernels) {
      s.loss_kernel = k;
      const EdgeWork e = edge_layers(m, s);
      const LossTraffic t = loss_traffic(k, 2, 4);
      EXPECT_DOUBLE_EQ(bytes_of(e.head_forward, "loss"), logits * t.forward) << loss_kernel_name(k);
      EXPECT_DOUBLE_EQ(bytes_of(e.head_backward, "loss.backward"), logits * t.backward) << loss_kernel_name(k);
    }
  }
}

TEST(Loss, TrainMetricsAddOneEagerForwardEachAndNothingElse) {
  const ModelSpec m = llama();
  Slicing s = slicing(1, true);
  s.loss_kernel = LossKernel::kFused;
  const EdgeWork without = edge_layers(m, s);
  for (const auto& i : without.head_forward) EXPECT_NE(i.name, "train_metrics");
  s.train_metrics = 2;
  const EdgeWork with = edge_layers(m, s);
  // Two torch.nn.CrossEntropyLoss forwards under autocast: 2 × 22 B per logit.
  EXPECT_DOUBLE_EQ(bytes_of(with.head_forward, "train_metrics"), 2.0 * 2048 * 32000 * 44);
  EXPECT_EQ(with.head_forward.size(), without.head_forward.size() + 1);
  EXPECT_EQ(names(with.head_backward), names(without.head_backward));
}

TEST(Params, TensorsOfALayerSumToItsParametersInForwardOrder) {
  // LLaMA-style: RMSNorm (h), fused QKV h·(32 + 2·8)·128, output 32·128·h, RMSNorm, fused
  // gate and up h·2·ffn, down ffn·h — six tensors, no biases.
  ModelSpec m = llama();
  const double h = 4096;
  std::vector<double> expected{h, h * 48 * 128, 32 * 128 * h, h, h * 2 * 11008, 11008 * h};
  EXPECT_EQ(layer_param_tensors(m), expected);
  // A Megatron GPT layer: layernorms with biases and biased linears, twelve tensors.
  m.mlp = MlpKind::kGelu;
  m.ffn_hidden = 4 * 4096;
  m.kv_heads = 32;
  m.norm = NormKind::kLayerNorm;
  m.linear_biases = true;
  expected = {h, h, h * 96 * 128, 96 * 128, 32 * 128 * h, h, h, h, h * 16384, 16384, 16384 * h, h};
  EXPECT_EQ(layer_param_tensors(m), expected);
  // Biases add (heads + 2·kv)·head_dim + h + ffn + h parameters and nothing else.
  const double with = count_params(m).per_layer;
  m.linear_biases = false;
  EXPECT_DOUBLE_EQ(with - count_params(m).per_layer, 96 * 128 + h + 16384 + h);
  for (const bool parallel : {false, true}) {
    for (const bool biases : {false, true}) {
      m.parallel_block = parallel;
      m.linear_biases = biases;
      double sum = 0;
      for (const double n : layer_param_tensors(m)) sum += n;
      EXPECT_DOUBLE_EQ(sum, count_params(m).per_layer) << parallel << biases;
    }
  }
}

TEST(HostDispatch, MegatronsLayerAsCountedInItsCode) {
  // A GPT layer as Megatron-LM runs it (dropout, no flash attention): the counts host_dispatch.cpp
  // took from its code, per layer, summed over the items that carry them.
  ModelSpec gpt = llama();
  gpt.mlp = MlpKind::kGelu;
  gpt.kv_heads = gpt.heads;
  gpt.dropout = true;
  auto totals = [](const std::vector<WorkItem>& items) {
    double calls = 0, kernels = 0;
    for (const auto& i : items) {
      calls += i.host_calls;
      kernels += i.kernels;
      if (i.sync != TpSync::kNone) {
        EXPECT_EQ(i.host_calls + i.kernels, 0.0) << i.name;
      }
    }
    return std::pair{calls, kernels};
  };
  for (const int tp : {1, 4}) {
    const LayerWork layer = transformer_layer(gpt, slicing(tp, false));
    EXPECT_EQ(totals(layer.forward), (std::pair{123.0, 16.0})) << "tp " << tp;
    EXPECT_EQ(totals(layer.backward), (std::pair{220.0, 46.0})) << "tp " << tp;
    // Full recompute re-runs the forward: the host issues it again.
    EXPECT_EQ(totals(recompute_work(gpt, layer, Recompute::kFull, slicing(tp, false))), totals(layer.forward));
  }
  // Flash attention: one kernel for the scores, softmax, dropout and values (5 → 1 forward,
  // 8 → 2 backward), the context's reshapes kept.
  const LayerWork flash = transformer_layer(gpt, slicing(1, true));
  EXPECT_EQ(totals(flash.forward), (std::pair{123.0 - 13 - 12 - 6, 16.0 - 4}));
  EXPECT_EQ(totals(flash.backward), (std::pair{220.0 - 27 - 11 - 4, 46.0 - 6}));
  // Each stack's cost: eager PyTorch's on GPUs, nothing under XLA.
  for (Stack s : kStacks) {
    const HostCost& host = stack_profile(s).host;
    if (s == Stack::kMaxText) {
      EXPECT_FALSE(host.any());
    } else {
      EXPECT_EQ(host.launch_ps, 4'000'000) << stack_name(s);
      EXPECT_EQ(host.dispatch_ps, 1'000'000) << stack_name(s);
    }
  }
}

TEST(StackProfiles, NamesAndDefaultsAsEachFrameworkShipsThem) {
  for (Stack s : kStacks) EXPECT_EQ(stack_named(stack_name(s)), s);
  EXPECT_EQ(stack_named("Megatron-Core"), Stack::kMegatronCore);
  EXPECT_FALSE(stack_named("nemo-2").has_value());
  EXPECT_EQ(default_stack(hardware::SoftwareStack::kMegatron), Stack::kMegatronLm);
  EXPECT_EQ(default_stack(hardware::SoftwareStack::kXla), Stack::kMaxText);
  // Transformer Engine's and SDPA's fused attention; the 2021 stacks' unfused one.
  EXPECT_TRUE(stack_profile(Stack::kMegatronCore).flash_attention);
  EXPECT_TRUE(stack_profile(Stack::kTorchtitan).flash_attention);
  EXPECT_FALSE(stack_profile(Stack::kMegatronLm).flash_attention);
  EXPECT_FALSE(stack_profile(Stack::kDeepSpeed).flash_attention);
  // Their losses: Megatron's vocab-parallel one, llm-foundry's fused xentropy, torchtitan's
  // F.cross_entropy, XLA's fusion.
  EXPECT_EQ(stack_profile(Stack::kMegatronCore).loss_kernel, LossKernel::kMegatron);
  EXPECT_EQ(stack_profile(Stack::kPytorchFsdp).loss_kernel, LossKernel::kFused);
  EXPECT_EQ(stack_profile(Stack::kTorchtitan).loss_kernel, LossKernel::kPyTorch);
  EXPECT_EQ(stack_profile(Stack::kMaxText).loss_kernel, LossKernel::kFused);
  EXPECT_EQ(stack_profile(Stack::kMaxText).family, hardware::SoftwareStack::kXla);
  // DeepSpeed's pipeline engine refuses ZeRO-2, Megatron has none; FSDP's reshard-after-forward
  // off is ZeRO-2 and torchtitan runs it with a pipeline.
  EXPECT_FALSE(stack_profile(Stack::kDeepSpeed).zero2_with_pipeline);
  EXPECT_FALSE(stack_profile(Stack::kMegatronLm).zero2_with_pipeline);
  EXPECT_TRUE(stack_profile(Stack::kTorchtitan).zero2_with_pipeline);
}

}  // namespace
}  // namespace podsim::workload
