#pragma once

// The cross-entropy loss's HBM traffic, as the software that trains runs it (docs/runtime.md,
// "The loss"). The loss is memory-bound: its cost is the bytes its kernels read and write per
// logit, and those differ by an order of magnitude between an eager framework, which runs one
// kernel per tensor operation, and a compiler that fuses them.
//
// Per logit, with A the bytes of an activation (the logits come out of the output layer in it)
// and L the bytes of the loss dtype (training.precision.loss); a cast A → L runs only where
// they differ:
//
// - kMegatron, Megatron-LM's vocab_parallel_cross_entropy on `output.float()`
//   (megatron/model/gpt_model.py, megatron/mpu/cross_entropy.py, as the SC21 and Korthikanti
//   runs ran it): forward the cast (A + L), max (L), sub_ (2L), exp (2L), sum (L), div_ into
//   the softmax it saves (2L); backward grad_input.mul_ on that softmax (2L) and the cast back
//   (L + A). Forward cast + 8L, backward 2L + cast: 52 B at bf16 / fp32.
// - kPyTorch, torch.nn.functional.cross_entropy (an eager framework's default; under
//   autocast in its fp32 op list): forward the cast, log_softmax (cunn_SoftMaxForward for rows
//   beyond shared memory: a max pass, a sum-of-exp pass, a pass that reads and writes: 4L);
//   backward nll_loss's dense zero gradient (L), log_softmax_backward (a sum pass over the
//   gradient, then one reading it and the output and writing: 4L) and the cast back.
//   48 B at bf16 / fp32; 18 B in pure bf16 (no autocast, no casts).
// - kFused, one softmax-cross-entropy kernel each way that reads the logits in their own dtype
//   and keeps everything else in registers: Apex's xentropy, which flash-attention ships and
//   llm-foundry's default loss_fn `fused_crossentropy` runs (setup.py pins
//   xentropy-cuda-lib from flash-attention v1.0.9); XLA's fusions of MaxText's
//   cross_entropy_with_logits, whose fp32 cast fuses into its consumers. Forward a max and a
//   sum-of-exp pass (2A), backward a pass that reads the logits and writes their gradient (2A):
//   8 B at bf16, whatever the loss dtype.

#include <array>
#include <cstdint>

#include "hardware/chip_spec.hpp"

namespace podsim::workload {

enum class LossKernel : std::uint8_t { kMegatron, kPyTorch, kFused };

inline constexpr std::array<LossKernel, 3> kLossKernels{LossKernel::kMegatron, LossKernel::kPyTorch,
                                                        LossKernel::kFused};
/// "megatron", "pytorch", "fused" — as written in scenarios (training.loss_kernel).
const char* loss_kernel_name(LossKernel k);

/// HBM bytes the loss moves per logit.
struct LossTraffic {
  double forward = 0;
  double backward = 0;
};
/// `act_bytes`: bytes per value of the logits the output layer writes; `loss_bytes`: of the
/// loss dtype.
LossTraffic loss_traffic(LossKernel kernel, double act_bytes, double loss_bytes);

/// Bytes per logit the loss holds at its peak, the logits and their gradient: in the loss
/// dtype where a cast copies them into it, in the activations dtype for kFused.
double loss_live_bytes(LossKernel kernel, double act_bytes, double loss_bytes);

/// HBM bytes per logit of `metrics` forward-only evaluations of the loss on the logits, each
/// torch.nn.CrossEntropyLoss (kPyTorch's forward): Composer updates every train metric of its
/// model on every microbatch after its backward (composer/trainer/trainer.py,
/// _eval_train_metrics, v0.10 – v0.21), and llm-foundry's MPT has two, LanguageCrossEntropy
/// and LanguagePerplexity, each running the loss itself (composer/metrics/nlp.py).
double train_metrics_bytes(int metrics, double act_bytes, double loss_bytes);

}  // namespace podsim::workload
