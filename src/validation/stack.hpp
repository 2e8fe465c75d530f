#pragma once

// The software stack a published run trained with: the `stack` column of a validation CSV,
// or, where a file has no such column or leaves it empty, read from the row's source, notes
// and knob cells. The stack's profile (workload/stack_profile.hpp) fills what a row leaves open.

#include <optional>
#include <string>

#include "validation/csv_table.hpp"
#include "workload/stack_profile.hpp"

namespace podsim::validation {

/// Whether a `stack` cell is empty (read the row's text) or names a stack podsim has a
/// profile for (workload::stack_words()).
bool stack_cell_valid(const std::string& cell);

/// The row's stack: its `stack` cell when it names one, else read from its text (MaxText,
/// llm-foundry/Composer, Megatron-Core/NeMo/Transformer Engine, DeepSpeed/BigScience,
/// Megatron-LM and the SC21 and Korthikanti papers, torchtitan); nullopt when nothing says.
std::optional<workload::Stack> stack_of(const CsvRow& row);

}  // namespace podsim::validation
