#include "validation/stack.hpp"

#include <array>
#include <utility>

namespace podsim::validation {

namespace {

constexpr std::array<std::pair<Stack, std::string_view>, 6> kNames{{
    {Stack::kMegatronLm, "megatron-lm"},
    {Stack::kMegatronCore, "megatron-core"},
    {Stack::kDeepSpeed, "deepspeed"},
    {Stack::kPytorchFsdp, "pytorch-fsdp"},
    {Stack::kTorchtitan, "torchtitan"},
    {Stack::kMaxText, "maxtext"},
}};

}  // namespace

std::string_view stack_name(Stack s) {
  for (const auto& [stack, name] : kNames) {
    if (stack == s) return name;
  }
  return "unknown";
}

std::string stack_words() {
  std::string out;
  for (const auto& [stack, name] : kNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::optional<Stack> stack_named(const std::string& cell) {
  const std::string word = lower(cell);
  if (word.empty()) return Stack::kUnknown;
  for (const auto& [stack, name] : kNames) {
    if (word == name) return stack;
  }
  return std::nullopt;
}

Stack stack_of(const CsvRow& row) {
  if (const auto named = stack_named(row.at("stack")); named && *named != Stack::kUnknown) return *named;
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
  return Stack::kUnknown;
}

bool flash_attention_by_default(Stack s) { return s == Stack::kMegatronCore || s == Stack::kTorchtitan; }

}  // namespace podsim::validation
