#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "runtime/scenario.hpp"
#include "validation/csv_table.hpp"

namespace podsim::validation {

/// Where the shipped hardware and topology files are (the repository root).
struct Catalog {
  std::filesystem::path root;
};

/// A training-step row, as a scenario.
struct TrainingCase {
  runtime::Scenario scenario;
};

/// A collective-benchmark row.
struct CollectiveCase {
  topology::TopologySpec topology;
  hardware::ChipSpec chip;  ///< for its link efficiencies
  collectives::Op op = collectives::Op::kAllReduce;
  std::vector<std::string> axes;  ///< topology axes the group spans
  std::uint64_t bytes = 0;
};

/// What a published row becomes.
struct RowCase {
  std::variant<std::monostate, TrainingCase, CollectiveCase> what;  ///< monostate: cannot express
  std::string skip_reason;                ///< why, when it cannot
  std::string family;                     ///< hardware family ("A100", "TPU v5p"…) for the MAPE table
  std::vector<std::string> assumptions;   ///< knobs the row does not give, and what was chosen
};

/// Builds the case of a row from its columns alone, choosing unpublished knobs as the
/// original system did (docs/validation.md lists the rules) and saying so.
RowCase express(const CsvRow& row, const Catalog& catalog);

}  // namespace podsim::validation
