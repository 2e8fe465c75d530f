#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "plan/layout_space.hpp"
#include "runtime/scenario.hpp"
#include "validation/csv_table.hpp"
#include "validation/launch_facts.hpp"
#include "validation/metric.hpp"

namespace podsim::validation {

/// Where the shipped hardware and topology files are (the repository root).
struct Catalog {
  std::filesystem::path root;
  /// Knobs the rows leave open that their runs' launch artifacts state, by row id
  /// (configs/validation/launch-configs.csv; launch_facts.hpp).
  std::map<std::string, std::vector<LaunchFact>> launch = {};
};

/// The catalog of the repository at `root`, its launch-configurations file read.
Catalog load_catalog(const std::filesystem::path& root);

/// A training-step row, as a scenario and what is left to choose.
struct TrainingCase {
  /// The row's model, machine and stated knobs; knobs the row leaves open hold
  /// placeholders until the planner chooses them (layout_choice.hpp).
  runtime::Scenario scenario;
  Metric metric;
  /// The stated knobs (search.fixed) and the values the planner may try for the rest,
  /// following the row's system (no GPipe; chunks that divide a stage's layers).
  plan::SpaceOptions search;
  int max_tp = 0;                     ///< GPUs: tensor parallelism within a node (0: no bound)
  int min_tp = 1;                     ///< 2 when the row says model (tensor) parallelism was used
  std::vector<std::string> unstated;  ///< knobs the row leaves open ("tp", "micro batch", …)
  /// A figure of memory, not a run: a layout that does not fit may still be evaluated.
  bool allow_oversubscribed = false;
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

/// Builds the case of a row from its columns alone: the knobs it states are fixed, those it
/// leaves open are listed for the planner (docs/validation.md lists the rules).
RowCase express(const CsvRow& row, const Catalog& catalog);

}  // namespace podsim::validation
