#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hardware/compute_model.hpp"
#include "workload/loss_kernels.hpp"
#include "workload/model_spec.hpp"
#include "workload/remat_policy.hpp"

namespace podsim::workload {

/// How one microbatch is cut up on one chip.
struct Slicing {
  int micro_batch = 1;
  int seq_len = 2048;
  int tp = 1;
  bool sequence_parallel = false;  ///< norms, dropout, residuals on seq_len/tp tokens
  bool flash_attention = false;    ///< attention fused: no score matrix in HBM
  double act_bytes = 2;            ///< bytes per activation value (the activations dtype)
  /// Bytes per value of a saved linear-layer input: 1 with fp8 GEMMs (Transformer Engine
  /// keeps the fp8 cast of a GEMM's input for the weight gradient), else act_bytes.
  double linear_input_bytes = 2;
  LossKernel loss_kernel = LossKernel::kMegatron;  ///< how the cross-entropy runs (loss_kernels.hpp)
  double loss_bytes = 4;                           ///< bytes per value of the logits' loss dtype
  int train_metrics = 0;  ///< forward-only loss evaluations per microbatch (train_metrics_bytes)
};

/// Which number format an op's matmuls run in (Transformer Engine's split for fp8: the
/// linear layers' GEMMs in fp8; the attention core, element-wise ops, embedding and head
/// in the activations dtype).
enum class MathClass : std::uint8_t {
  kLinear,     ///< a linear layer's GEMM (QKV, output projection, MLP up/gate/down)
  kAttention,  ///< the attention core's batched matmuls
  kOther,      ///< element-wise ops, embedding, the output head
  kGemmCast,   ///< the fp8 cast of a linear GEMM's operand, run right before it (element-wise,
               ///< in the activations dtype like kOther)
};

/// Tensor-parallel communication between ops (Megatron layout): kAllReduce without sequence
/// parallelism, all-gather / reduce-scatter pairs with it. Each moves the full, un-sharded
/// b·s·h activation.
enum class TpSync { kNone, kAllReduce, kAllGather, kReduceScatter };

/// One step of a chip's work on one microbatch: an op, or a tensor-parallel collective.
struct WorkItem {
  std::string name;
  hardware::OpCost cost;  ///< zero for a collective
  TpSync sync = TpSync::kNone;
  MathClass math = MathClass::kOther;
  /// Forward items: the op they belong to (a collective belongs to the matmul it gathers for
  /// or reduces after), and the tensors that op reads and writes (see remat_policy.hpp).
  int op = -1;
  TensorSet in = 0;
  TensorSet out = 0;
  /// What the host does to issue it in eager PyTorch (host_dispatch.hpp): calls through the
  /// dispatcher (every ATen op, views and allocations included, autograd nodes and Function
  /// applies) and CUDA kernels launched.
  double host_calls = 0;
  double kernels = 0;
};

/// The work of one transformer layer on one chip for one microbatch.
struct LayerWork {
  std::vector<WorkItem> forward;
  std::vector<WorkItem> backward;
  TensorSet needed = 0;  ///< what the backward reads (needed_by_backward for this layer)
};

/// The share of the s×s attention blocks a causal flash-attention kernel runs: those on or
/// below the diagonal, (T+1)/(2T) of T×T blocks of 128 (T = ⌈s/128⌉): 17/32 at s = 2048.
/// podsim's models are decoder-only language models, causal; without flash attention the whole
/// score matrix is computed and then masked (Megatron-LM's baddbmm and fused masked softmax).
double causal_block_share(double seq);

/// Builds a layer's ops. Throws InputError if tp does not divide heads or ffn_hidden.
LayerWork transformer_layer(const ModelSpec& model, const Slicing& slicing);

/// What a remat policy does to one layer.
struct LayerRemat {
  TensorSet kept = 0;      ///< in HBM until the backward
  TensorSet host = 0;      ///< in host memory until the backward (offloading policies)
  std::vector<WorkItem> rerun;  ///< forward items run again before the backward, in forward order
};

/// Applies `policy` to `layer`: Megatron's `full` keeps the input and re-runs every forward
/// item (collectives included). The others re-run each op whose output the backward needs and
/// the policy cannot keep, and the ops feeding it, until every input is kept; of the tensors
/// the policy may keep, those the backward or a re-run op reads are kept (remat_policy.hpp).
/// Selective without flash attention re-runs the attention core; with it, nothing (flash
/// attention's backward recomputes the scores itself).
LayerRemat apply_remat(const ModelSpec& model, const LayerWork& layer, Recompute policy, const Slicing& slicing);

/// apply_remat(...).rerun.
std::vector<WorkItem> recompute_work(const ModelSpec& model, const LayerWork& layer, Recompute policy,
                                     const Slicing& slicing);

/// Work of the input embedding (first pipeline stage) and of the output head: final norm,
/// logits and cross-entropy (last stage), forward and backward.
struct EdgeWork {
  std::vector<WorkItem> embedding_forward;
  std::vector<WorkItem> embedding_backward;
  std::vector<WorkItem> head_forward;
  std::vector<WorkItem> head_backward;
};
EdgeWork edge_layers(const ModelSpec& model, const Slicing& slicing);

}  // namespace podsim::workload
