#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "config/input_record.hpp"
#include "config/overrides.hpp"
#include "runtime/scenario.hpp"
#include "util/expression.hpp"

namespace podsim::config {

/// One swept key and its values (YAML text, as written).
struct SweptKey {
  std::string key;                  ///< scenario key path, e.g. "parallelism.tp"
  std::vector<std::string> values;  ///< one per point of its dimension
  std::vector<std::string> where;   ///< "sweep.yaml:5:20" of each value, for messages
  std::vector<int> line;            ///< the line of each value
};

/// A dimension of the sweep: one key, or a `zip:` group of keys that vary together.
struct SweepDimension {
  std::vector<SweptKey> keys;
  std::size_t size() const { return keys.front().values.size(); }
};

/// A key filled by an expression over the point's values, e.g. dp = chips / (tp * pp).
struct DerivedKey {
  std::string key;
  Expression expression;
  std::string where;
};

/// A sweep file, read and checked (docs/sweep.md).
struct LoadedSweep {
  std::string file;            ///< the sweep file, as messages show it
  std::filesystem::path base;  ///< the scenario every point starts from
  std::filesystem::path dir;   ///< the sweep file's directory (values' relative paths)
  std::vector<SweepDimension> dimensions;
  std::vector<DerivedKey> derived;
  /// Overrides every point starts from, before its swept values (`podsim whatif --set`).
  std::vector<Override> fixed;
  bool skip_infeasible = true;
  std::string resolved_yaml;
  /// Every file the sweep reads: the sweep, the base scenario and its includes, and every
  /// file a swept value names (with what it includes).
  std::vector<InputRecord> inputs;

  /// Points: the product of the dimensions' sizes.
  std::uint64_t points() const;
  /// The swept values of point `index` as overrides (the last dimension varies fastest).
  std::vector<Override> overrides_at(std::uint64_t index) const;
  /// "sweep.yaml:8:20: point 7 (parallelism.tp: 4 on line 8, training.micro_batch: 2 on
  /// line 9)": a point named by its values and where they are written, for messages.
  std::string describe(std::uint64_t index) const;
  /// Every swept key, in column order.
  std::vector<std::string> keys() const;
};

/// Reads a sweep and checks, before any simulation, that every value of every key makes a
/// valid scenario on its own (known key, right type and unit); a layout that cannot run is
/// not an error here. Errors name the sweep file, line and key.
/// With `progress`, checking more than a few thousand swept values reports its progress on
/// stderr (10^6 values take minutes).
LoadedSweep load_sweep(const std::filesystem::path& file, bool progress = false);

/// What a derive expression may use, with a scenario's values: chips and the scenario's
/// numbers (dp, tp, pp, …, layers, hidden, heads, vocab); slices (of a multislice) and nodes (of a
/// GPU cluster), 1 where the machine has none, for hybrid sharding's group.
std::map<std::string, std::int64_t> derive_variables(const runtime::Scenario& scenario);

}  // namespace podsim::config
