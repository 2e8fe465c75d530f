#include "validation/stack.hpp"

namespace podsim::validation {

bool stack_cell_valid(const std::string& cell) { return cell.empty() || workload::stack_named(cell).has_value(); }

std::optional<workload::Stack> stack_of(const CsvRow& row) {
  using workload::Stack;
  if (const auto named = workload::stack_named(row.at("stack"))) return *named;
  const std::string text = lower(row.at("source") + " " + row.at("notes") + " " + row.at("recompute") + " " +
                                 row.at("zero_or_fsdp") + " " + row.at("model"));
  if (has(text, "maxtext") || has(text, "remat_policy")) return Stack::kMaxText;
  if (has(text, "llm-foundry") || has(text, "mosaicml") || has(text, "composer")) return Stack::kPytorchFsdp;
  if (has(text, "torchtitan")) return Stack::kTorchtitan;
  if (has(text, "megatron-core") || has(text, "mcore") || has(text, "nemo") || has(text, "transformer engine")) {
    return Stack::kMegatronCore;
  }
  if (has(text, "deepspeed") || has(text, "bigscience")) return Stack::kDeepSpeed;
  if (has(text, "megatron") || has(text, "narayanan") || has(text, "korthikanti")) return Stack::kMegatronLm;
  return std::nullopt;
}

}  // namespace podsim::validation
