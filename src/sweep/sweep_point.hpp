#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/parsed_files.hpp"
#include "config/sweep_config.hpp"
#include "runtime/comm_memo.hpp"
#include "runtime/step_memo.hpp"

namespace podsim::sweep {

/// One point of a sweep, simulated or not, in the columns of the /sweep table
/// (sweep_columns): texts, whole numbers and reals, each in schema order.
struct PointResult {
  std::uint64_t index = 0;
  bool feasible = false;
  std::string reason;  ///< why not, when infeasible
  std::vector<std::int64_t> derived;  ///< one per derive key; 0 where it could not be computed
  std::vector<std::string> texts;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;

  std::vector<char> serialize() const;
  static PointResult deserialize(std::uint64_t index, const std::vector<char>& bytes);
};

/// The metric columns every point has (besides its swept and derived values).
struct MetricSchema {
  std::vector<std::string> texts;
  std::vector<std::pair<std::string, std::string>> ints;   ///< name, unit
  std::vector<std::pair<std::string, std::string>> reals;  ///< name, unit
  /// Reals a scenario may not give (the time to train, with training.tokens): NaN where not
  /// given, and their /sweep column written only when some point has one.
  std::vector<std::string> when_given;
  bool is_when_given(const std::string& name) const;
};
const MetricSchema& metric_schema();
/// The position of real metric `name` in PointResult::reals.
std::size_t metric_index(const std::string& name);
/// The position of whole-number metric `name` ("chips") in PointResult::ints.
std::size_t int_metric_index(const std::string& name);

/// What one process's points share: communication measurements, and the files they read,
/// each parsed once. Sharing changes no point's result.
struct SharedWork {
  runtime::CommMemo memo;
  runtime::StepMemo steps;
  config::ParsedFiles files;
};

/// Builds point `index`'s scenario (swept values, then derived keys), checks it can run
/// and fits in memory, and simulates one step. A layout that cannot run, a derived value
/// that is not a whole number, or a layout that does not fit, gives an infeasible result
/// with the reason — or, unless the sweep skips infeasible points, an InputError.
/// Measurements and parsed files are shared with the process's other points through `shared`.
PointResult evaluate_point(const config::LoadedSweep& sweep, std::uint64_t index, SharedWork& shared);
/// The same, measuring everything afresh.
PointResult evaluate_point(const config::LoadedSweep& sweep, std::uint64_t index);

}  // namespace podsim::sweep
