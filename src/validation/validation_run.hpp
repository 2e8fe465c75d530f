#pragma once

#include <map>
#include <string>
#include <vector>

#include "validation/row_case.hpp"

namespace podsim::validation {

/// A row podsim simulated.
struct RowResult {
  std::string id;
  int line = 0;
  std::string family;
  std::string metric;
  double measured = 0;
  double predicted = 0;
  double error = 0;  ///< (predicted − measured) / measured
  std::vector<std::string> assumptions;
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
  double mape = 0;                               ///< over every simulated row
};

/// Simulates every row it can express (training steps on the analytical network,
/// collectives like nccl-tests) and compares with the measured value in the row's own
/// metric and FLOP-counting convention (docs/validation.md).
ValidationReport validate(const std::vector<CsvRow>& rows, const Catalog& catalog);

}  // namespace podsim::validation
