#pragma once

// The software that trains, as a named profile (`training.stack`): the documented defaults of
// one framework, each cited in stack_profile.cpp. A scenario's knobs still win; the profile
// fills what it leaves open. The hardware file's `stack` (megatron, xla) names the default
// profile of its chips: megatron-lm on GPUs, maxtext on TPUs.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hardware/chip_spec.hpp"
#include "workload/host_dispatch.hpp"
#include "workload/loss_kernels.hpp"

namespace podsim::workload {

enum class Stack : std::uint8_t {
  kMegatronLm,    ///< Megatron-LM as the 2021-2022 papers ran it (no Transformer Engine)
  kMegatronCore,  ///< Megatron-Core / NeMo (2024 on), with Transformer Engine
  kDeepSpeed,     ///< Megatron-DeepSpeed (BigScience, MT-NLG)
  kPytorchFsdp,   ///< PyTorch FSDP as Composer runs it (MosaicML's llm-foundry)
  kTorchtitan,    ///< torchtitan (FSDP2)
  kMaxText,       ///< MaxText on XLA
};
inline constexpr std::array<Stack, 6> kStacks{Stack::kMegatronLm, Stack::kMegatronCore, Stack::kDeepSpeed,
                                              Stack::kPytorchFsdp, Stack::kTorchtitan, Stack::kMaxText};

/// What a stack does unless the scenario says otherwise.
struct StackProfile {
  /// The family whose overlap defaults, remat policies and loss it shares
  /// (parallelism::default_overlap: collective matmul and concurrent dp streams under XLA).
  hardware::SoftwareStack family = hardware::SoftwareStack::kMegatron;
  bool flash_attention = false;  ///< its attention is a fused kernel unless told otherwise
  LossKernel loss_kernel = LossKernel::kMegatron;
  HostCost host;                 ///< what the host pays to issue the step's kernels
  /// Runs ZeRO-2 with pipeline parallelism (DeepSpeed asserts it cannot; Megatron has no ZeRO-2).
  bool zero2_with_pipeline = true;
  /// Can overlap tensor-parallel collectives with the matmuls they serve (training.overlap.tp:
  /// collective-matmul): Megatron-Core's --tp-comm-overlap, torchtitan's async TP, XLA's
  /// windowed einsum. Whether it is on by default is the family's (parallelism::default_overlap).
  bool collective_matmul = true;
  /// Can gather ZeRO-1/2's updated weights during the next step's forward instead of at the
  /// step's end (training.overlap.param_gather): Megatron-Core's distributed optimizer with
  /// --overlap-param-gather. Off by default there as here; the planner searches both.
  bool param_gather_overlap = false;
  /// ZeRO-3: how many gradient reduce-scatters may be outstanding when the next is issued
  /// (training.overlap.fsdp_reduce_limit; 0: no limit). Cited in stack_profile.cpp.
  int fsdp_reduce_limit = 0;
  /// Runs the interleaved schedule in microbatch groups other than pp
  /// (parallelism.microbatch_group): Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage.
  bool microbatch_groups = false;
  /// ZeRO-2 is FSDP's SHARD_GRAD_OP (PyTorch FSDP, FSDP2 with reshard_after_forward=False):
  /// parameters sharded at rest, gathered layer by layer in every microbatch's forward and kept
  /// through its backward, gradients reduce-scattered layer by layer; no gather after the
  /// optimizer. Otherwise DeepSpeed's: weights kept whole, gradients reduce-scattered in buckets,
  /// the updated weights gathered once after the optimizer.
  bool zero2_shard_grad_op = false;
  /// FSDP (ZeRO-3, and ZeRO-2 as SHARD_GRAD_OP) with pipeline parallelism keeps each stage's
  /// parameters gathered from its first forward to the step's end, accumulates its gradients
  /// whole and reduce-scatters them once, after the stage's last backward (torchtitan's FSDP2
  /// under torch.distributed.pipelining, whatever reshard_after_forward says). Otherwise every
  /// microbatch gathers and reduce-scatters as without a pipeline (MaxText's pipeline gathers
  /// the stage's weights in every iteration). Cited in stack_profile.cpp.
  bool fsdp_pipeline_gathers_once = false;
  /// Runs ZeRO-3 with pipeline parallelism (DeepSpeed's PipelineEngine asserts it cannot).
  bool zero3_with_pipeline = true;
  /// Data-parallel reductions move fp32 unless the scenario says (training.precision.reduce);
  /// otherwise they move what the other communication moves (precision.comm).
  bool fp32_reductions = false;
  /// With bf16 (or fp8, which trains bf16 weights) compute, gradients are accumulated and
  /// reduced in fp32 unless the scenario says (training.precision.grads and .reduce): Megatron
  /// forces --accumulate-allreduce-grads-in-fp32 for bf16. Cited in stack_profile.cpp.
  bool bf16_grads_in_fp32 = false;
};

/// The dtype gradients are kept in where a scenario does not say: fp32 where the stack
/// accumulates them so (bf16_grads_in_fp32, with bf16 or fp8 compute), else `written`.
hardware::DType default_grads_dtype(const StackProfile& stack, hardware::DType compute, hardware::DType written);
/// The dtype data-parallel gradient reductions move where a scenario does not say: fp32 where
/// the stack reduces so (fp32_reductions; bf16_grads_in_fp32 with bf16 or fp8 compute), else
/// the other collectives' `comm`.
hardware::DType default_reduce_dtype(const StackProfile& stack, hardware::DType compute, hardware::DType comm);

/// "megatron-lm", "megatron-core", "deepspeed", "pytorch-fsdp", "torchtitan", "maxtext".
const char* stack_name(Stack s);
/// Those words, comma-separated, for an error.
std::string stack_words();
/// The stack a word names (case ignored); nullopt for any other word.
std::optional<Stack> stack_named(std::string_view word);
const StackProfile& stack_profile(Stack s);
/// The profile a hardware file's `stack` names for its chips: megatron-lm, or maxtext for xla.
Stack default_stack(hardware::SoftwareStack family);

}  // namespace podsim::workload
