#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collective_timing.hpp"
#include "runtime/comm_memo.hpp"
#include "validation/row_case.hpp"

namespace podsim::validation {

/// A row podsim simulated.
struct RowResult {
  std::string id;
  int line = 0;
  std::string family;
  std::string source;  ///< the publication or repository (source_key of the source column)
  std::string metric;
  double measured = 0;
  double predicted = 0;
  double error = 0;  ///< (predicted − measured) / measured
  std::vector<std::string> assumptions;
  /// Training rows: the layout simulated, and the HBM of its fullest chip against its usable
  /// capacity. A row that reports a run (a step quantity) must fit.
  std::string layout;
  bool reports_run = false;
  /// The simulated step's MFU (training rows that simulate a step; 0 otherwise): what a
  /// constant-MFU baseline scales the prediction by (tools/calibrate --cross).
  double mfu = 0;
  bool fits = true;
  double memory_bytes = 0;
  double capacity_bytes = 0;
  /// Training rows: the scenario simulated, every open knob chosen (`podsim validate --explain`).
  std::optional<runtime::Scenario> scenario;
  /// Collective rows: the operation and what ran (algorithm, NCCL protocol and model time,
  /// links), for `podsim validate --explain` and `--json`.
  struct CollectiveRun {
    collectives::Op op = collectives::Op::kAllReduce;
    collectives::CollectiveTiming timing;
  };
  std::optional<CollectiveRun> collective;
};

/// A row podsim could not express, and why.
struct SkippedRow {
  std::string id;
  int line = 0;
  std::string reason;
};

struct ValidationReport {
  std::vector<RowResult> rows;
  std::vector<SkippedRow> skipped;
  std::map<std::string, double> mape_by_family;  ///< mean |error| per hardware family
  std::map<std::string, double> mape_by_source;  ///< mean |error| per source
  double mape = 0;                               ///< over every simulated row
};

/// A short name for a row's source: its repository ("google/maxtext") or its authors
/// ("Narayanan et al."), else its first word.
std::string source_key(const std::string& source);

/// Constants replaced for one validation (leave-one-source-out refits, cross_validation.hpp).
struct Overrides {
  std::map<std::string, double> matmul;    ///< efficiency.matmul by hardware name ("a100-80gb")
  std::map<std::string, double> training;  ///< efficiency.training by hardware name
  /// Sets `constant` ("matmul" or "training") of `hardware`.
  void set(const std::string& constant, const std::string& hardware, double value) {
    (constant == "training" ? training : matmul)[hardware] = value;
  }
};

/// One row validated: its result, or (no result) why it was skipped.
struct RowOutcome {
  std::optional<RowResult> result;
  SkippedRow skipped;
};

/// One row of validate(): what it depends on is the row, the catalog and the overrides of the
/// row's own chip. With `memo`, communication measurements are shared with the other rows
/// (and validations) that use it: they depend on the machine, network and placement alone,
/// not on the compute constants a refit changes, and the outcome is the same either way.
RowOutcome validate_row(const CsvRow& row, const Catalog& catalog, const Overrides& overrides = {},
                        runtime::CommMemo* memo = nullptr);

/// The report of validate() over rows validated one by one, in their order.
ValidationReport summarise(std::vector<RowOutcome>&& outcomes);

/// Simulates every row it can express (training steps on the analytical network, with the
/// knobs a row leaves open chosen by the planner; collectives like nccl-tests) and compares
/// with the measured value in the row's own metric and FLOP-counting convention
/// (docs/validation.md).
ValidationReport validate(const std::vector<CsvRow>& rows, const Catalog& catalog, const Overrides& overrides = {});

}  // namespace podsim::validation
