#pragma once

// How the free-text cells of a published row name the knobs of a training step: its system
// (whose conventions the row does not repeat), precision, remat policy, ZeRO stage and the
// vocabulary the model computes with. Every rule reads the text, never the row's id.

#include <optional>
#include <string>
#include <vector>

#include "parallelism/parallel_spec.hpp"
#include "validation/csv_table.hpp"

namespace podsim::validation {

/// The training system a row comes from, read from its source, notes and knob columns.
enum class System { kMegatron, kMaxText, kLlmFoundry, kOther };
System system_of(const CsvRow& row);

/// "fp8" → Transformer Engine's fp8 GEMMs, bf16 elsewhere; "fp16" → Megatron mixed precision
/// (fp16 weights and gradients, fp32 Adam); "fp32 weights" → bf16 compute, fp32 weights and
/// gradients; else bf16 compute with fp32 master weights (said in `assumptions` when the cell
/// is empty). nullopt for a cell naming a format podsim does not model (fp4, fp6, mxfp, int4,
/// int8) or none of fp8, fp16, bf16, fp32: such a row is skipped with kPrecisionWords, never
/// read as bf16.
std::optional<parallelism::Precision> precision_of(const std::string& cell, std::vector<std::string>& assumptions);
/// What a precision cell may say, for the skip reason of one that says something else.
inline constexpr const char* kPrecisionWords =
    "fp8, fp16, bf16, amp_bf16, bf16 (PURE), bf16 compute with fp32 weights, or nothing";

/// The remat policy a recompute cell names (MaxText's `remat_policy=full` is JAX's
/// nothing_saveable; LLaMA's saved "linear outputs" is `minimal`); nullopt when it names none.
std::optional<parallelism::Recompute> recompute_of(const std::string& cell);

/// The ZeRO stage a zero_or_fsdp cell names: the scenario's own parallelism.zero (0-3, "ZeRO-2"),
/// FSDP FULL_SHARD = 3, SHARD_GRAD_OP = 2, Megatron's distributed optimizer = 1, none = 0;
/// nullopt when it names none.
std::optional<int> zero_of(const std::string& cell);
/// Whether a zero_or_fsdp cell leaves the stage open on purpose: empty, or saying it was not
/// verified or is unknown (the planner then chooses it).
bool zero_left_open(const std::string& cell);
/// What a zero_or_fsdp cell may say, for a skipped row's reason.
inline constexpr const char* kZeroWords =
    "a scenario's parallelism.zero: 0, 1, 2, 3 or ZeRO-N; FSDP FULL_SHARD or SHARD_GRAD_OP; distributed optimizer; "
    "none; or empty or 'not verified' to leave it to the planner";

/// How the row's ZeRO-3 issued its collectives: DeepSpeed's ZeRO-3 in a paper dated (by its
/// arXiv number) before November 2021 ran before DeepSpeed 0.5.5, per tensor on lists of
/// shards (parallelism/zero3_collectives.hpp); nullopt otherwise (flat, the default).
std::optional<parallelism::Zero3Collectives> zero3_collectives_of(const CsvRow& row);

/// The fused-attention kernel an llm-foundry MPT row ran. Its notes say when they name
/// `attn_impl`; otherwise as llm-foundry's scripts ran each table: the large-scale H100 table
/// (>= 128 H100s; scripts/train/benchmarking/sweep.py at 5e85bd62d, 2024-01) ran Triton for MPT-13B
/// and 30B and FlashAttention-2 for the others, the earlier tables (README at b2a43a147, 2023-10)
/// submit_benchmarks.py's default `--attn_impl triton`. nullopt: not an llm-foundry row (native).
std::optional<hardware::FlashKernel> llm_foundry_flash_kernel(const CsvRow& row);

/// True when an llm-foundry row's activation checkpointing ran on PyTorch 2.1 or later, whose
/// non-reentrant checkpoint stops recomputing at the last saved tensor (`early_stop`,
/// workload/remat_policy.hpp). Its benchmark tables record the image only through their
/// precision: the amp_bf16 runs were measured with sweep.sh's `mosaicml/pytorch:2.1.0` image
/// (README at b2a43a147, 2023-10, and 5e85bd62d, 2024-01); the bf16 PURE runs are the earlier
/// tables, measured with its `1.13.1` image, which re-ran the whole forward (`full`).
bool llm_foundry_checkpoint_stops_early(const CsvRow& row);

/// How the row's system computes its loss (training.loss_kernel, training.train_metrics).
struct LossKnobs {
  workload::LossKernel kernel;
  int train_metrics = 0;
};
/// The loss of the row's stack (workload::stack_profile: llm-foundry's fused_crossentropy and
/// XLA fuse it, Megatron runs its vocab-parallel loss, torchtitan F.cross_entropy), and under
/// Composer (pytorch-fsdp) MPT's two train metrics on every microbatch.
LossKnobs loss_of(workload::Stack stack);

/// Megatron-LM's overlap flags, where a Megatron row's notes quote them as its run set them:
/// `--overlap-grad-reduce` (gradient buckets reduced during the backward), `--overlap-param-gather`
/// (the distributed optimizer's weight gather during the next forward), `--tp-comm-overlap`
/// (tensor-parallel collectives cut and overlapped with the GEMMs). Unquoted: Megatron's default,
/// off. Other systems: nothing (their own conventions apply).
struct MegatronOverlapFlags {
  bool grad_reduce = false;
  bool param_gather = false;
  bool tp_comm = false;
  /// Pipeline-parallel communication overlapped (--overlap-p2p-communication, "pipeline-parallel
  /// communication" in a quote of the run): Megatron has it for the interleaved schedule only.
  bool p2p_comm = false;
  std::string quoted;  ///< the flags found, space-separated, as the report names them
};
MegatronOverlapFlags megatron_overlap_flags(const CsvRow& row);

/// True when a row's notes say its input and output embeddings are untied (Megatron-LM's
/// `--untie-embeddings-and-output-weights`); a GPT row is otherwise tied, as Megatron's default.
bool untied_embeddings_stated(const CsvRow& row);

/// The vocabulary the model computes with: "padded to N" in the notes wins over the column;
/// a GPT-2 BPE vocabulary is 50257 tokens, padded by Megatron-LM to a multiple of 128 × tp.
std::optional<long long> vocab_of(const CsvRow& row, long long tp);

}  // namespace podsim::validation
