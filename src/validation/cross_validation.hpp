#pragma once

// Leave-one-source-out validation (`podsim validate --cross`, docs/calibration.md): each
// source's rows predicted with every end-to-end constant refitted without them, beside the
// in-sample error and a baseline of one constant MFU per family.
//
// What was fitted on which rows is data: configs/validation/fitted.csv lists each fitted
// constant, its family, its file and the file (and source) its rows came from. A `training`
// (or, on chips with no kernel table, `matmul`) fitted on the validated file is refitted for
// every left-out source on the family's training rows of the other sources (golden-section
// search of the MAPE over it in [0.40, 1.00] to 0.002, rounded to 0.005, as tools/calibrate
// fits it). A family left with no rows gets what podsim would say of a generation nobody has
// measured end to end: where its bare kernel is measured (its constant is `training`), the mean
// of the other families' `training`, what training loses against the kernel; else the mean of
// their matmul rates in training, matmul × training (the refitted ones and those fitted
// elsewhere, in both cases). Constants fitted on a named source (NCCL's launch costs) are not
// refitted: that source is marked.

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "validation/validation_run.hpp"

namespace podsim::validation {

/// One row of configs/validation/fitted.csv.
struct FittedConstant {
  std::string constant;   ///< "training", "matmul", "nccl.launch"
  std::string family;     ///< as validate labels rows ("A100", "TPU v5e")
  std::string file;       ///< the hardware or topology file holding it, from the repository root
  std::string fitted_on;  ///< the validation file whose rows it was fitted on
  std::string source;     ///< the one source it was fitted on, or "" (all of the file's rows)
  double value = 0;       ///< training, matmul: the file's efficiency.training or .matmul
  double other = 1;       ///< the other of the two (their product is the matmul rate in training)
};

/// Reads `root`/configs/validation/fitted.csv and each refitted constant's value from its hardware file.
std::vector<FittedConstant> read_fitted(const std::filesystem::path& root);

/// Errors over a set of rows: in sample, left out, and against the baseline.
struct CrossSummary {
  int rows = 0;
  double in_sample = 0;
  double loso = 0;          ///< over the rows with a left-out prediction
  double spread = 0;        ///< mean |LOSO error − its source's mean| (sources of ≥ 3 training rows)
  int spread_rows = 0;
  int baseline_rows = 0;    ///< training rows with a step (the baseline's)
  double podsim_on_baseline_rows = 0;
  double baseline = 0;
};

struct CrossReport {
  std::string data;                     ///< the validated file's name ("published.csv")
  ValidationReport in_sample;
  std::map<std::string, double> loso_error;      ///< by row id
  std::map<std::string, double> baseline_error;  ///< by row id (training rows with a step)
  std::map<std::string, double> baseline_mfu;    ///< by family
  /// The refitted constants each source was predicted with: source → family → value.
  std::map<std::string, std::map<std::string, double>> constants_without;
  std::set<std::string> not_cross_validated;  ///< sources a constant was fitted on alone
  std::map<std::string, CrossSummary> by_source, by_family;
  CrossSummary overall;
};

/// Called before each validation run with what it is for ("fit A100 without Narayanan et al.").
using CrossProgress = std::function<void(const std::string&)>;

/// Cross-validates `rows` (the file named `data`, e.g. "published.csv").
CrossReport cross_validate(const std::vector<CsvRow>& rows, const Catalog& catalog, const std::string& data,
                           const std::vector<FittedConstant>& fitted, const CrossProgress& progress = {});

}  // namespace podsim::validation
