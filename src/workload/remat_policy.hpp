#pragma once

// Which activations a layer keeps for its backward, and which forward ops it runs again.
//
// Model. The forward of a transformer layer produces a fixed set of tensors (the Tensor
// enum below). Its backward needs some of them: the input of every weight matmul (for the
// weight gradient), the inputs of every non-linearity and norm, and the attention's Q, K, V
// and scores (or, with flash attention, its output). A policy names the tensors it *saves*
// (kept in HBM), those it *offloads* (kept in host memory) and implicitly recomputes the
// rest: before a layer's backward, every forward op whose output is needed and not kept is
// run again, and so are the ops feeding it, until every input is a kept tensor or the
// layer's input (which every policy keeps).
//
// Two families:
// - Megatron-LM (Korthikanti et al. 2022, arXiv 2205.05198): `none` keeps everything;
//   `selective` keeps everything but the attention scores (QKᵀ, softmax, dropout and its
//   mask), so it re-runs the attention core; `full` keeps only the layer input and re-runs
//   the layer's whole forward, collectives included, as Megatron's checkpointed function does.
// - PyTorch's non-reentrant `torch.utils.checkpoint` (FSDP's checkpoint_wrapper, NO_REENTRANT)
//   from PyTorch 2.1 on, `early_stop`: it keeps the layer input and re-runs the forward in
//   program order, but stops as soon as every tensor the backward saved has been recomputed
//   (`set_checkpoint_early_stop`, default on; torch/utils/checkpoint.py raises
//   _StopRecomputationError from the pack hook of the last saved tensor). An ATen op saves its
//   inputs before it runs, so when the last saver is a matmul reading a saved input (the MLP
//   down projection, whose output feeds only the residual add) that matmul is not re-run; an
//   autograd Function (Transformer Engine's fp8 Linear) saves after it has run. Up to PyTorch
//   2.0 the whole forward ran again: that is `full`.
// - JAX checkpoint policies as MaxText names them (google/maxtext MaxText/layers/models.py
//   at e64f681, `remat_policy`): tensors are kept by their `checkpoint_name`
//   (query_proj, key_proj, value_proj in attentions.py; out_proj; mlpwi = the MLP
//   activation's output and mlpwo = the down projection's output in linears.py).
//   `minimal` is `checkpoint_dots_with_no_batch_dims`: every weight matmul's output (Q, K,
//   V, out_proj, the MLP up/gate projections, mlpwo) but not the attention dots, which have
//   batch dimensions. MaxText's `full` passes no policy to `nn.remat`, i.e. JAX's
//   `nothing_saveable`; podsim calls it `nothing_saveable` because JAX dead-code-eliminates
//   the recomputation of what the backward does not need (the MLP down projection), unlike
//   Megatron's `full`. `*_offloaded` policies move their tensors to pinned host memory
//   (`save_and_offload_only_these_names`, `offload_dot_with_no_batch_dims`).

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace podsim::workload {

/// A recompute (rematerialisation) policy.
enum class Recompute : std::uint8_t {
  kNone,
  kSelective,           ///< Megatron/Korthikanti: re-run the attention core
  kFull,                ///< Megatron: re-run the whole layer from its input
  kNothingSaveable,     ///< JAX nothing_saveable (MaxText `full`)
  kEarlyStop,           ///< PyTorch ≥ 2.1 non-reentrant checkpoint: re-run up to the last saved tensor
  kMinimal,             ///< JAX checkpoint_dots_with_no_batch_dims (MaxText `minimal`)
  kMinimalFlash,        ///< minimal + the attention output (MaxText `minimal_flash`)
  kSaveDotExceptMlpwi,  ///< Q, K, V, out_proj, mlpwo
  kSaveDotExceptMlp,    ///< Q, K, V, out_proj
  kSaveQkvProj,         ///< Q, K, V
  kSaveOutProj,         ///< out_proj
  kQkvProjOffloaded,    ///< Q, K, V in host memory
  kMinimalOffloaded,    ///< minimal's tensors in host memory
};

/// Every policy, in the order scenarios list them.
inline constexpr std::array<Recompute, 13> kRematPolicies{
    Recompute::kNone,         Recompute::kSelective,          Recompute::kFull,
    Recompute::kNothingSaveable, Recompute::kEarlyStop,       Recompute::kMinimal,
    Recompute::kMinimalFlash,
    Recompute::kSaveDotExceptMlpwi, Recompute::kSaveDotExceptMlp, Recompute::kSaveQkvProj,
    Recompute::kSaveOutProj,  Recompute::kQkvProjOffloaded,   Recompute::kMinimalOffloaded};

/// "none", "selective", "full", "nothing_saveable", "early_stop", "minimal", … (MaxText's names).
const char* recompute_name(Recompute r);

/// A tensor one layer's forward produces (per chip, per microbatch).
enum class Tensor : std::uint8_t {
  kInput,     ///< the layer's input (first norm's input); every policy keeps it
  kNorm1Out,  ///< first norm's output: the QKV projection's input (and the MLP's in a parallel block)
  kQ,
  kK,
  kV,
  kScores,    ///< softmax output (+ its dropout mask and output); absent with flash attention
  kContext,   ///< attention output: the output projection's input
  kAttnMask,  ///< dropout mask on the attention branch (1 byte per value)
  kOutProj,   ///< output projection's result (MaxText out_proj)
  kNorm2In,   ///< second norm's input (residual after attention); serial blocks only
  kNorm2Out,  ///< second norm's output: the MLP up projection's input; serial blocks only
  kMlpWi,     ///< MLP up (and gate) projection outputs: the activation's input
  kMlpAct,    ///< MLP activation output: the down projection's input (MaxText mlpwi)
  kMlpMask,   ///< dropout mask on the MLP branch
  kMlpWo,     ///< down projection's result (MaxText mlpwo)
};
inline constexpr int kTensors = 15;

/// A set of Tensors.
using TensorSet = std::uint32_t;
constexpr TensorSet bit(Tensor t) { return TensorSet{1} << static_cast<int>(t); }
constexpr bool contains(TensorSet s, Tensor t) { return (s & bit(t)) != 0; }

/// What the backward of a layer reads (before any recompute): every tensor but the branch
/// outputs (out_proj and mlpwo feed only residual adds, whose backward needs nothing).
TensorSet needed_by_backward(bool flash_attention, bool dropout, bool parallel_block);

/// Tensors a policy may keep in HBM (the layer input always). Only those the backward or a
/// recomputation reads are kept (LayerRemat::kept): JAX saves residuals, and a value nothing
/// reads (mlpwo feeds only the residual add) is no residual.
TensorSet saveable(Recompute r, bool flash_attention, bool dropout, bool parallel_block);

/// Tensors a policy may keep in host memory.
TensorSet offloadable(Recompute r);

/// True for Megatron's `full`: the whole forward (collectives included) runs again.
bool reruns_whole_layer(Recompute r);

/// True for `early_stop`: the forward runs again in program order up to the last tensor the
/// backward saved (layer_ops.cpp, apply_remat).
bool reruns_until_last_saved(Recompute r);

}  // namespace podsim::workload
