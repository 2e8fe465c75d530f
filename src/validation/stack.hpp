#pragma once

// The software stack a published run trained with: the `stack` column of a validation CSV,
// or, where a file has no such column or leaves it empty, read from the row's source, notes
// and knob cells. A stack's documented defaults fill what a row leaves open.

#include <optional>
#include <string>
#include <string_view>

#include "validation/csv_table.hpp"

namespace podsim::validation {

enum class Stack {
  kMegatronLm,   ///< Megatron-LM as the 2021-2022 papers ran it (no Transformer Engine)
  kMegatronCore, ///< Megatron-Core / NeMo (2024 on), with Transformer Engine
  kDeepSpeed,    ///< Megatron-DeepSpeed (BigScience, MT-NLG)
  kPytorchFsdp,  ///< PyTorch FSDP as Composer runs it (MosaicML's llm-foundry)
  kTorchtitan,   ///< torchtitan (FSDP2)
  kMaxText,      ///< MaxText on XLA (TPUs)
  kUnknown,      ///< a row naming none podsim knows (no `stack` cell, nothing in its text)
};

/// "megatron-lm", "megatron-core", "deepspeed", "pytorch-fsdp", "torchtitan", "maxtext", "unknown".
std::string_view stack_name(Stack s);
/// The words a `stack` cell may hold, for an error.
std::string stack_words();
/// The stack a `stack` cell names; nullopt for a word outside stack_words() (an empty cell is
/// kUnknown, to be read from the row's text).
std::optional<Stack> stack_named(const std::string& cell);

/// The row's stack: its `stack` cell when it names one, else read from its text (MaxText,
/// llm-foundry/Composer, Megatron-Core/NeMo/Transformer Engine, DeepSpeed/BigScience,
/// Megatron-LM and the SC21 and Korthikanti papers, torchtitan).
Stack stack_of(const CsvRow& row);

/// Whether the stack's attention, unless a row says otherwise, never writes the s×s scores to
/// HBM (a fused flash kernel): Megatron-Core's Transformer Engine DotProductAttention picks a
/// flash or cuDNN fused backend by default (transformer_engine/pytorch/attention.py:
/// NVTE_FLASH_ATTN and NVTE_FUSED_ATTN default to 1), torchtitan's scaled_dot_product_attention
/// a flash or memory-efficient one. The 2021 Megatron-LM, Megatron-DeepSpeed and Composer
/// rows say when they ran one (their notes), MaxText's in their attention setting.
bool flash_attention_by_default(Stack s);

}  // namespace podsim::validation
