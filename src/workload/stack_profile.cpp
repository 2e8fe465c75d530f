// Each profile's defaults and where they come from.
//
// - megatron-lm: Megatron-LM of the SC21 and Korthikanti papers: attention as baddbmm and a
//   fused masked softmax (no flash), vocab_parallel_cross_entropy on a float copy of the logits
//   (loss_kernels.hpp), eager PyTorch (host_dispatch.hpp); no ZeRO-2 (its distributed
//   optimizer is ZeRO-1); no collective matmul (--tp-comm-overlap came with Transformer Engine's
//   userbuffers in Megatron-Core, megatron/training/arguments.py).
// - megatron-core: Transformer Engine's DotProductAttention picks a fused flash or cuDNN
//   backend by default (transformer_engine/pytorch/attention.py: NVTE_FLASH_ATTN and
//   NVTE_FUSED_ATTN default to 1); the loss is still vocab_parallel_cross_entropy
//   (--cross-entropy-loss-fusion is off by default); CUDA graphs are off by default
//   (--enable-cuda-graph), so eager.
// - deepspeed: Megatron-DeepSpeed's GPT is Megatron-LM's layer and loss; its PipelineEngine
//   asserts zero_optimization_stage() < 2 ("ZeRO-2 and ZeRO-3 are incompatible with pipeline
//   parallelism", deepspeed/runtime/pipe/engine.py); Megatron-LM's tensor parallelism, so no
//   collective matmul.
// - megatron-core and torchtitan can overlap TP collectives with their matmuls when asked
//   (Megatron-Core's --tp-comm-overlap; torchtitan's parallelism.enable_async_tensor_parallel,
//   which needs torch.compile); XLA does it with windowed einsum
//   (--xla_tpu_enable_windowed_einsum_for_all_gather / _for_reduce_scatter, which MaxText's
//   scripts pass in LIBTPU_INIT_ARGS). Composer's FSDP (pytorch-fsdp) has no tensor parallelism
//   to overlap.
// - megatron-core alone gathers ZeRO-1's updated weights during the next forward, layer by
//   layer, when asked: --overlap-param-gather (megatron/training/arguments.py; the
//   DistributedDataParallelConfig field overlap_param_gather, default False, which needs
//   use_distributed_optimizer). Megatron-LM of 2021 had no distributed optimizer; DeepSpeed
//   gathers ZeRO-1/2's partitions at the end of its optimizer step; FSDP, FSDP2 and XLA shard
//   parameters as ZeRO-3 (or not at all), whose gathers are their own (overlap.fsdp_prefetch).
// - pytorch-fsdp: llm-foundry's default loss_fn fused_crossentropy (flash-attention's xentropy,
//   one kernel each way: LossKernel::kFused); attention as the model config says (MPT's
//   attn_impl), so no default flash; eager.
// - torchtitan: F.scaled_dot_product_attention (a flash or memory-efficient kernel) and
//   torch.nn.functional.cross_entropy on float logits (LossKernel::kPyTorch); eager (set
//   training.host to 0 for torch.compile with CUDA graphs).
// - maxtext: XLA: a compiled program (no host cost per op), its fused cross entropy,
//   collective matmul and concurrent data-parallel streams (parallelism::default_overlap), the
//   JAX remat policies; attention as the scenario says (MaxText's `attention` setting).
// - ZeRO-3's gradient reduce-scatters (fsdp_reduce_limit): XLA's latency-hiding scheduler lets
//   one reduce-scatter be in flight at a time (SchedulerConfig::reduce_scatter_overlap_limit = 1,
//   xla/service/latency_hiding_scheduler.h), so the program's next reduce-scatter starts only
//   after the previous one's done, which the TensorCore's one instruction stream waits at; FSDP2
//   makes the compute stream wait for the previous reduce-scatter's event before it issues the
//   next (FSDPParamGroup.post_backward, torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py,
//   "reduce_scatter_state"). Both: 1. PyTorch FSDP1 (Composer) issues each on its post-backward
//   stream and nothing waits for it before the step's end (_post_backward_hook in
//   torch/distributed/fsdp/_runtime_utils.py); its one NCCL communicator serializes them with the
//   gathers instead (overlap.dp_serial). Megatron and DeepSpeed: 0 as well.
// - ZeRO-2 (zero2_shard_grad_op): PyTorch FSDP's SHARD_GRAD_OP frees the gathered parameters
//   after the backward whenever gradients are synchronized (_should_free_in_backward in
//   torch/distributed/fsdp/_runtime_utils.py: "state._sync_gradients or ... RESHARD_AFTER_FORWARD"),
//   so every microbatch's forward gathers them again, layer by layer, and keeps them through
//   its backward (no gather there); its post-backward hook reduce-scatters each layer's
//   gradients; the optimizer steps on the shards, so nothing is gathered after it. FSDP2's
//   fully_shard(reshard_after_forward=False) is the same. DeepSpeed's stage 2 keeps the
//   weights whole and gathers the updated partitions after its optimizer step.
// - microbatch groups (parallelism.microbatch_group): Megatron-Core alone runs its interleaved
//   schedule in groups of N microbatches other than pp (ModelParallelConfig
//   .microbatch_group_size_per_vp_stage, --microbatch-group-size-per-virtual-pipeline-stage);
//   Megatron-LM of 2021 grouped by pp and asserted the microbatches a multiple of it.
// - ZeRO-3 with a pipeline (fsdp_pipeline_gathers_once): torchtitan wraps every block with
//   fully_shard(reshard_after_forward=not pp_enabled) (torchtitan/models/llama3/infra/
//   parallelize.py, apply_fsdp: "For PP, by default do not reshard after forward to avoid
//   per-microbatch all-gathers"), and torch.distributed.pipelining runs every microbatch's
//   backward with set_reshard_after_backward(False) and set_requires_gradient_sync(False)
//   (stage.py, backward_maybe_with_nosync), then, after the stage's last backward, reduces
//   every block's gradients and reshards (perform_reduce_grad, called at the end of
//   Schedule1F1B._step_microbatches in schedules.py). The pipeline sets those flags whatever
//   the wrapping says, so FSDP2 with reshard_after_forward=False (ZeRO-2, SHARD_GRAD_OP) runs
//   the same way under it. So the first forward gathers each block once, nothing is gathered
//   again, the gradients accumulate whole in the reduction's dtype
//   (FSDPParam.to_accumulated_grad_if_needed) and are reduce-scattered once. MaxText's pipeline
//   gathers the stage's weights in every loop iteration (MaxText/layers/pipeline.py,
//   run_one_iteration). DeepSpeed refuses ZeRO-3 with a pipeline (above) and Megatron-LM has no
//   ZeRO-3, so megatron-lm (Megatron-LM and Megatron-DeepSpeed) and deepspeed refuse it.
// - fp32_reductions: torchtitan's FSDP mixed precision reduces in float32 by default
//   (torchtitan/config/job_config.py, Training.mixed_precision_reduce = "float32", passed as
//   MixedPrecisionPolicy(reduce_dtype=...) to fully_shard; parameters in bfloat16).
// - bf16_grads_in_fp32: Megatron's arguments.py sets accumulate_allreduce_grads_in_fp32 for
//   --bf16 ("bfloat16 requires gradient accumulation and all-reduce to be done in fp32"), and
//   its gradient buffers are then fp32 (megatron/core/distributed/param_and_grad_buffer.py),
//   so a bf16 parameter carries 2 + 4 bytes beside its optimizer state (Megatron-Core's
//   distributed optimizer docs: 6 + 12/d). fp8 runs train bf16 weights (--fp8-format with
//   --bf16). Set for megatron-core. Not for megatron-lm, which also stands for
//   Megatron-DeepSpeed: there the rule depends on the ZeRO stage (BF16_Optimizer keeps fp32
//   gradients for ZeRO-0/1, deepspeed/runtime/bf16_optimizer.py; stages 2 and 3 keep bf16
//   partitions), which a default read with the training section cannot see (docs/runtime.md).
#include "workload/stack_profile.hpp"


namespace podsim::workload {

namespace {

constexpr std::array<const char*, 6> kNames{"megatron-lm", "megatron-core", "deepspeed",
                                            "pytorch-fsdp", "torchtitan",   "maxtext"};

}  // namespace

const char* stack_name(Stack s) { return kNames[static_cast<std::size_t>(s)]; }

std::string stack_words() {
  std::string out;
  for (const char* name : kNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::optional<Stack> stack_named(std::string_view word) {
  std::string w(word);
  for (char& c : w) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  for (Stack s : kStacks) {
    if (w == stack_name(s)) return s;
  }
  return std::nullopt;
}

const StackProfile& stack_profile(Stack s) {
  using hardware::SoftwareStack;
  static const std::array<StackProfile, 6> kProfiles{
      StackProfile{.host = kEagerPytorch,
                   .zero2_with_pipeline = false,
                   .collective_matmul = false,
                   .zero3_with_pipeline = false},  // megatron-lm
      StackProfile{.flash_attention = true,
                   .host = kEagerPytorch,
                   .zero2_with_pipeline = false,
                   .param_gather_overlap = true,
                   .microbatch_groups = true,
                   .bf16_grads_in_fp32 = true},  // megatron-core
      StackProfile{.host = kEagerPytorch,
                   .zero2_with_pipeline = false,
                   .collective_matmul = false,
                   .zero3_with_pipeline = false},  // deepspeed
      StackProfile{.loss_kernel = LossKernel::kFused,
                   .host = kEagerPytorch,
                   .collective_matmul = false,
                   .zero2_shard_grad_op = true},  // pytorch-fsdp
      StackProfile{.flash_attention = true,
                   .loss_kernel = LossKernel::kPyTorch,
                   .host = kEagerPytorch,
                   .fsdp_reduce_limit = 1,
                   .zero2_shard_grad_op = true,
                   .fsdp_pipeline_gathers_once = true,
                   .fp32_reductions = true},  // torchtitan
      StackProfile{.family = SoftwareStack::kXla,
                   .loss_kernel = LossKernel::kFused,
                   .host = HostCost{},       // a compiled program: no host cost per op
                   .fsdp_reduce_limit = 1},  // maxtext
  };
  return kProfiles[static_cast<std::size_t>(s)];
}

namespace {
bool megatron_bf16(const StackProfile& stack, hardware::DType compute) {
  return stack.bf16_grads_in_fp32 && (compute == hardware::DType::kBf16 || compute == hardware::DType::kFp8);
}
}  // namespace

hardware::DType default_grads_dtype(const StackProfile& stack, hardware::DType compute, hardware::DType written) {
  return megatron_bf16(stack, compute) ? hardware::DType::kFp32 : written;
}

hardware::DType default_reduce_dtype(const StackProfile& stack, hardware::DType compute, hardware::DType comm) {
  return stack.fp32_reductions || megatron_bf16(stack, compute) ? hardware::DType::kFp32 : comm;
}

Stack default_stack(hardware::SoftwareStack family) {
  return family == hardware::SoftwareStack::kXla ? Stack::kMaxText : Stack::kMegatronLm;
}

}  // namespace podsim::workload
