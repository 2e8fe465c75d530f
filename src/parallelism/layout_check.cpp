#include "parallelism/program_builder.hpp"

#include <string>

#include "parallelism/pipeline_schedule.hpp"
#include "parallelism/stage_layers.hpp"
#include "parallelism/work_bounds.hpp"

namespace podsim::parallelism {

namespace {
std::string n(long long v) { return std::to_string(v); }

/// Hybrid sharding (ParallelSpec::zero_group): groups that divide dp, of a ZeRO stage, with
/// collectives PyTorch FSDP, XLA and Megatron-LM issue (not DeepSpeed's old per-tensor ones).
void check_zero_group(const ParallelSpec& p, const TrainingSpec& t) {
  if (p.zero_group == 0 || p.zero_group == p.dp) return;
  if (p.zero_group < 0 || p.dp % p.zero_group != 0) {
    throw LayoutError("parallelism.zero_group", "zero_group (" + n(p.zero_group) + ") must divide dp (" + n(p.dp) + ")");
  }
  if (p.zero == 0) {
    throw LayoutError("parallelism.zero_group", "zero_group shards ZeRO state; set parallelism.zero to 1, 2 or 3");
  }
  if (p.zero == 3 && t.zero3_collectives == Zero3Collectives::kPerTensor) {
    throw LayoutError("parallelism.zero_group",
                      "hybrid sharding needs training.zero3_collectives: flat (per-tensor ZeRO-3 shards over all of dp)");
  }
}
}  // namespace

void check_layout(const workload::ModelSpec& m, const hardware::ChipSpec& chip, const ParallelSpec& p,
                  const TrainingSpec& t, std::uint32_t chips) {
  // Each degree is at most 2^20 (config), so the product fits in 64 bits.
  if (static_cast<long long>(p.dp) * p.tp * p.pp != chips) {
    throw LayoutError("parallelism.dp", "dp × tp × pp = " + n(p.dp) + " × " + n(p.tp) + " × " + n(p.pp) + " = " +
                                            n(static_cast<long long>(p.dp) * p.tp * p.pp) + ", but the topology has " +
                                            n(chips) + " chips");
  }
  if (m.heads % p.tp != 0) throw LayoutError("parallelism.tp", "tp (" + n(p.tp) + ") must divide the model's " + n(m.heads) + " heads");
  if (m.ffn_hidden % p.tp != 0) {
    throw LayoutError("parallelism.tp", "tp (" + n(p.tp) + ") must divide the model's ffn_hidden (" + n(m.ffn_hidden) + ")");
  }
  // Activations between the tensor-parallel blocks are split over tp along the sequence
  // (Megatron-LM), or along the hidden dimension (XLA SPMD: MaxText's activation_embed → tensor,
  // PaLM's 2D layout); the same bytes and collectives either way.
  if (p.sequence_parallel && t.seq_len % p.tp != 0 && m.hidden % p.tp != 0) {
    throw LayoutError("parallelism.sequence_parallel", "sequence parallelism needs tp (" + n(p.tp) +
                                                           ") to divide seq_len (" + n(t.seq_len) +
                                                           ") or the hidden size (" + n(m.hidden) + ")");
  }
  if (p.virtual_stages > 1 && p.schedule != PipelineSchedule::kInterleaved) {
    throw LayoutError("parallelism.virtual_stages", "virtual_stages > 1 needs schedule: interleaved");
  }
  if (p.schedule == PipelineSchedule::kInterleaved && p.virtual_stages < 2) {
    throw LayoutError("parallelism.virtual_stages", "the interleaved schedule needs virtual_stages of at least 2");
  }
  virtual_stage_layers(m, p);  // throws when the layers cannot be placed on the stages
  const int mb = microbatches(p, t);
  const workload::StackProfile& stack = workload::stack_profile(t.stack);
  if (p.microbatch_group > 0) {
    // Megatron-Core's checks (schedules.py, forward_backward_pipelining_with_interleaving). Below
    // pp its warm-up ((pp − rank − 1)·2 + (v − 1)·N forwards) would wait on the first stage for
    // an input the last stage sends only after a backward that needs the first stage's: a
    // deadlock, which is why Megatron-Core refuses it. (The Llama 3 paper's own schedule runs
    // N < pp, §3.3.2, with a warm-up it does not give.)
    if (p.schedule != PipelineSchedule::kInterleaved) {
      throw LayoutError("parallelism.microbatch_group", "microbatch_group groups the interleaved schedule's microbatches; "
                                                        "set schedule: interleaved");
    }
    if (!stack.microbatch_groups) {
      throw LayoutError("parallelism.microbatch_group",
                        std::string(workload::stack_name(t.stack)) +
                            " groups the interleaved schedule's microbatches by pp; Megatron-Core runs other groups "
                            "(--microbatch-group-size-per-virtual-pipeline-stage): set training.stack: megatron-core");
    }
    if (p.microbatch_group < p.pp || p.microbatch_group > mb) {
      throw LayoutError("parallelism.microbatch_group",
                        "a group of " + n(p.microbatch_group) + " microbatches is outside [pp, microbatches per step] = [" +
                            n(p.pp) + ", " + n(mb) + "], the range Megatron-Core's interleaved schedule runs");
    }
    if (!runs_in_groups_of(p.pp, mb, p.microbatch_group)) {
      throw LayoutError("parallelism.microbatch_group",
                        "the last group would hold " + n(mb % p.microbatch_group) + " of the step's " + n(mb) +
                            " microbatches, fewer than pp (" + n(p.pp) +
                            "): Megatron-Core refuses it (dependency bubbles); choose a group that divides " + n(mb));
    }
  } else if (p.schedule == PipelineSchedule::kInterleaved && p.pp > 1 && mb % p.pp != 0) {
    // The smallest group Megatron-Core would run these microbatches in, if any.
    const int group = smallest_microbatch_group(p.pp, mb);
    std::string hint;
    if (group > 0 && stack.microbatch_groups) {
      hint = "; or set parallelism.microbatch_group: " + n(group) +
             " (Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage)";
    } else if (group > 0) {
      hint = "; Megatron-Core runs them in groups of " + n(group) +
             " (training.stack: megatron-core, parallelism.microbatch_group: " + n(group) + ")";
    }
    throw LayoutError("training.global_batch", "the interleaved schedule needs the microbatches per step (" + n(mb) +
                                                   ") to be a multiple of pp (" + n(p.pp) + ")" + hint);
  }
  if (p.zero < 0 || p.zero > 3) throw LayoutError("parallelism.zero", "zero is a ZeRO stage: 0, 1, 2 or 3");
  if (p.pp > 1 && ((p.zero == 2 && !stack.zero2_with_pipeline) || (p.zero == 3 && !stack.zero3_with_pipeline))) {
    // DeepSpeed's PipelineEngine asserts zero_optimization_stage() < 2 ("ZeRO-2 and ZeRO-3 are
    // incompatible with pipeline parallelism", deepspeed/runtime/pipe/engine.py); Megatron-LM's
    // distributed optimizer is ZeRO-1 and it has neither stage. PyTorch FSDP under
    // torch.distributed.pipelining (torchtitan) and MaxText's pipeline run both.
    const std::string zero = "ZeRO-" + n(p.zero);
    throw LayoutError("parallelism.zero", zero + " with pipeline parallelism does not run on " +
                                              workload::stack_name(t.stack) +
                                              ": DeepSpeed refuses it (\"ZeRO-2 and ZeRO-3 are incompatible with "
                                              "pipeline parallelism\") and Megatron-LM has no " + zero +
                                              "; use zero: 1 (Megatron's distributed optimizer), or training.stack: "
                                              "torchtitan (FSDP2 with pipelining)");
  }
  if (t.overlap.tp == TpOverlap::kCollectiveMatmul && p.tp > 1 && !stack.collective_matmul) {
    throw LayoutError("training.overlap.tp",
                      std::string("collective matmul does not run on ") + workload::stack_name(t.stack) +
                          ": it has no way to overlap tensor-parallel collectives with their matmuls (Megatron-Core's "
                          "--tp-comm-overlap, torchtitan's async TP and XLA's windowed einsum do); set "
                          "training.stack to one of those or training.overlap.tp: none");
  }
  check_zero_group(p, t);
  if (chip.peak_flops.count(t.precision.compute) == 0) {
    throw LayoutError("training.precision.compute", "hardware " + chip.name + " has no " +
                                                        std::string(hardware::dtype_name(t.precision.compute)) + " peak");
  }
  check_representable(m, chip, p, t, chips);
}

}  // namespace podsim::parallelism
