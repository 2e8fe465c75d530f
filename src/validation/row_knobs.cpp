#include "validation/row_knobs.hpp"

#include <algorithm>
#include <regex>

#include "validation/stack.hpp"
#include "workload/remat_policy.hpp"

namespace podsim::validation {

std::optional<parallelism::Precision> precision_of(const std::string& text, std::vector<std::string>& assumptions) {
  using hardware::DType;
  // Formats podsim has no kernels or peaks for: refused rather than read as bf16.
  for (const char* unknown : {"fp4", "fp6", "mxfp", "int4", "int8"}) {
    if (has(text, unknown)) return std::nullopt;
  }
  if (has(text, "fp8")) {
    // Transformer Engine's fp8 recipe (Megatron-Core --fp8-format): the linear layers' GEMMs
    // read fp8 operands, cast right before each GEMM; the attention core (fp8_dpa off by
    // default), element-wise ops and saved activations stay in bf16; weights, gradients and
    // Adam state as in bf16 training.
    assumptions.push_back("fp8: Transformer Engine's fp8 GEMMs in the linear layers, bf16 elsewhere (fp8_dpa off)");
    return parallelism::Precision{DType::kFp8, DType::kFp32, DType::kBf16, DType::kFp32, DType::kBf16,
                                  std::nullopt, false, std::nullopt};
  }
  if (!text.empty() && !has(text, "fp16") && !has(text, "bf16") && !has(text, "fp32")) return std::nullopt;
  if (has(text, "fp16")) {
    // Megatron-style fp16 mixed precision: fp16 weights and gradients, fp32 Adam state.
    return parallelism::Precision{DType::kFp16, DType::kFp16, DType::kFp16, DType::kFp32, DType::kFp16, std::nullopt, false, std::nullopt};
  }
  if (has(text, "amp_bf16") && !has(text, "pure")) {
    // Composer's automatic mixed precision under FSDP takes mixed_precision DEFAULT (llm-foundry's
    // default): bf16 weights gathered, gradients reduced in fp32 (composer #2047, March 2023).
    assumptions.push_back("amp_bf16: FSDP mixed_precision DEFAULT, gradients reduced in fp32 (Composer)");
    return parallelism::Precision{DType::kBf16, DType::kFp32, DType::kBf16, DType::kFp32, DType::kBf16, std::nullopt, false, DType::kFp32};
  }
  if (has(text, "pure")) {
    // Composer's bf16 precision under FSDP mixed_precision PURE: autocast to bf16 (Composer
    // <= 0.11's `bf16` is its AMP_BF16; composer/core/precision.py), with weights gathered and
    // gradients reduced in bf16.
    assumptions.push_back("bf16 (PURE): autocast to bf16 (Composer's bf16), FSDP gathers and reduces in bf16");
    return parallelism::Precision{DType::kBf16, DType::kFp32, DType::kBf16, DType::kFp32, DType::kBf16, std::nullopt, false, std::nullopt};
  }
  if (has(text, "fp32 weights") || has(text, "fp32")) {
    return parallelism::Precision{DType::kBf16, DType::kFp32, DType::kFp32, DType::kFp32, DType::kBf16, std::nullopt, false, std::nullopt};
  }
  if (text.empty()) assumptions.push_back("precision: bf16 compute, fp32 weights and Adam state (not given)");
  return parallelism::Precision{DType::kBf16, DType::kFp32, DType::kBf16, DType::kFp32, DType::kBf16, std::nullopt, false, std::nullopt};
}

System system_of(const CsvRow& row) {
  const auto stack = stack_of(row);
  if (!stack) return System::kOther;
  using workload::Stack;
  switch (*stack) {
    case Stack::kMaxText: return System::kMaxText;
    case Stack::kPytorchFsdp: return System::kLlmFoundry;
    // Megatron-LM and its descendants: the SC21 and Korthikanti papers, Megatron-Core,
    // Megatron-DeepSpeed (MT-NLG, BigScience's BLOOM).
    case Stack::kMegatronLm:
    case Stack::kMegatronCore:
    case Stack::kDeepSpeed: return System::kMegatron;
    case Stack::kTorchtitan: break;
  }
  return System::kOther;
}

/// The remat policy a recompute cell names; nullopt when it names none podsim knows.
std::optional<parallelism::Recompute> recompute_of(const std::string& cell) {
  using parallelism::Recompute;
  const std::string text = lower(cell);
  // The scenario's own word (training.recompute) first.
  for (Recompute r : workload::kRematPolicies) {
    if (text == workload::recompute_name(r)) return r;
  }
  std::smatch m;
  static const std::regex kPolicy(R"(remat_policy\s*=\s*([a-z_]+))");
  if (std::regex_search(text, m, kPolicy)) {
    // MaxText's `full` passes no policy to nn.remat: JAX's nothing_saveable.
    if (m[1] == "full") return Recompute::kNothingSaveable;
    for (Recompute r : workload::kRematPolicies) {
      if (m[1] == workload::recompute_name(r)) return r;
    }
    return std::nullopt;
  }
  // "saved expensive activations, e.g. linear outputs" (LLaMA): keep every linear layer's
  // output, i.e. checkpoint the dots.
  if (has(text, "linear outputs") || has(text, "outputs of linear")) return Recompute::kMinimal;
  if (has(text, "selective")) return Recompute::kSelective;
  if (has(text, "full")) return Recompute::kFull;
  if (has(text, "none") || has(text, "no recompute")) return Recompute::kNone;
  return std::nullopt;
}

/// The ZeRO stage a zero_or_fsdp cell names; nullopt when it does not say.
std::optional<int> zero_of(const std::string& cell) {
  const std::string z = lower(cell);
  if (z.empty()) return std::nullopt;
  // The scenario's own word (parallelism.zero) first.
  static const std::regex kStage(R"(^\s*(zero[-_ ]?)?([0-3])\s*$)");
  std::smatch m;
  if (std::regex_match(z, m, kStage)) return m[2].str()[0] - '0';
  if (has(z, "zero-2") || has(z, "shard_grad_op")) return 2;
  if (has(z, "zero-3") || has(z, "full_shard") || has(z, "fsdp")) return 3;
  if (has(z, "zero-1") || has(z, "distributed optimizer")) return 1;
  if (z == "none" || has(z, "no zero")) return 0;
  return std::nullopt;
}

bool zero_left_open(const std::string& cell) {
  const std::string z = lower(cell);
  return z.empty() || has(z, "not verified") || has(z, "not re-verified") || has(z, "unknown");
}

std::optional<parallelism::Zero3Collectives> zero3_collectives_of(const CsvRow& row) {
  const std::string zero = lower(row.at("zero_or_fsdp"));
  if (zero_of(zero) != 3 || !has(zero, "deepspeed")) return std::nullopt;
  std::smatch m;
  static const std::regex kArxiv(R"(arxiv:?\s*(\d{4})\.\d{4,5})");
  const std::string source = lower(row.at("source"));
  if (!std::regex_search(source, m, kArxiv)) return std::nullopt;
  // DeepSpeed 0.5.5 (November 2021) gathers into flat buffers (#1188).
  if (std::stoi(m[1]) >= 2111) return std::nullopt;
  return parallelism::Zero3Collectives::kPerTensor;
}

std::optional<hardware::FlashKernel> llm_foundry_flash_kernel(const CsvRow& row) {
  if (system_of(row) != System::kLlmFoundry) return std::nullopt;
  const std::string notes = lower(row.at("notes"));
  if (has(notes, "attn_impl triton")) return hardware::FlashKernel::kTriton;
  if (has(notes, "attn_impl flash")) return hardware::FlashKernel::kNative;
  const auto chips = integer(row.at("n_chips"));
  const bool large_scale = has(lower(row.at("hardware")), "h100") && chips && *chips >= 128;
  if (!large_scale) return hardware::FlashKernel::kTriton;
  const std::string params = lower(row.at("params"));
  return params == "13b" || params == "30b" ? hardware::FlashKernel::kTriton : hardware::FlashKernel::kNative;
}

bool llm_foundry_checkpoint_stops_early(const CsvRow& row) {
  return system_of(row) == System::kLlmFoundry && has(lower(row.at("precision")), "amp_bf16");
}

LossKnobs loss_of(workload::Stack stack) {
  return {workload::stack_profile(stack).loss_kernel, stack == workload::Stack::kPytorchFsdp ? 2 : 0};
}

MegatronOverlapFlags megatron_overlap_flags(const CsvRow& row) {
  MegatronOverlapFlags f;
  if (system_of(row) != System::kMegatron) return f;
  const std::string notes = lower(row.at("notes"));
  for (auto [flag, on] : {std::pair{"--overlap-grad-reduce", &f.grad_reduce},
                          std::pair{"--overlap-param-gather", &f.param_gather},
                          std::pair{"--tp-comm-overlap", &f.tp_comm}}) {
    *on = has(notes, flag);
    if (!*on) continue;
    if (!f.quoted.empty()) f.quoted += ' ';
    f.quoted += flag;
  }
  // megatron/training/arguments.py (core_r0.8.0): "Overlap P2P communication is disabled if not
  // using the interleaved schedule" (overlap_p2p_comm is set False without virtual stages).
  f.p2p_comm = has(notes, "--overlap-p2p-communication") || has(notes, "pipeline-parallel communication");
  return f;
}

bool untied_embeddings_stated(const CsvRow& row) { return has(lower(row.at("notes")), "untied"); }

/// The vocabulary the model computes with: "padded to N" in the notes wins over the column
/// (Megatron pads the embedding table); a GPT-2 BPE vocabulary is 50257 tokens, padded by
/// Megatron-LM to a multiple of 128 × tp.
std::optional<long long> vocab_of(const CsvRow& row, long long tp) {
  const std::string notes = row.at("notes");
  std::smatch m;
  static const std::regex kPadded(R"(padded to (\d+))");
  if (std::regex_search(notes, m, kPadded)) return std::stoll(m[1]);
  if (const auto v = integer(row.at("vocab"))) return v;
  if (has(notes, "gpt-2 bpe")) {
    const long long multiple = 128 * std::max(1LL, tp);
    return (50257 + multiple - 1) / multiple * multiple;
  }
  return std::nullopt;
}

}  // namespace podsim::validation
