#pragma once

#include <array>

// Internal to config: typed, located reading of one YAML mapping.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/source_map.hpp"
#include "util/sim_time.hpp"
#include "util/units.hpp"

namespace podsim::config {

/// Reads the keys of one mapping. Every error is an InputError of the form
///   file:line:col: key.path: what was wrong
/// and every default it fills in is written back into the node, so that dumping the
/// document afterwards gives the fully resolved configuration.
class Reader {
 public:
  /// `node` must be a mapping (else the error names `path`).
  Reader(YAML::Node node, std::string path, SourceMap& sources);

  /// Fails on a key not in `allowed` ("did you mean" the closest one) or a repeated key.
  /// Call first, so that a misspelt key is reported as such rather than as missing.
  void allow_only(std::initializer_list<const char*> allowed) const;

  bool has(const std::string& key) const;
  /// Writes `yaml_value` at `key` if the key is absent.
  void set_default(const std::string& key, const std::string& yaml_value);

  std::string text(const std::string& key) const;
  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) const;
  bool boolean(const std::string& key) const;
  /// A plain number in [min, max].
  double real(const std::string& key, double min, double max) const;
  std::vector<std::int64_t> integer_list(const std::string& key, std::int64_t min,
                                         std::int64_t max) const;
  std::vector<bool> boolean_list(const std::string& key) const;
  double bandwidth(const std::string& key) const;  ///< bytes/s, > 0
  SimTime duration(const std::string& key) const;  ///< picoseconds, >= 0
  double span(const std::string& key) const;       ///< seconds, >= 0 (units::parse_span: min, h, d)
  std::uint64_t bytes(const std::string& key) const;
  /// Fails at `key` when `value` (read from it) is outside `range`: a wrong unit prefix,
  /// with a did-you-mean (units::implausible).
  void check_plausible(const std::string& key, double value, const units::PlausibleRange& range) const;

  /// One of `choices`; else an error listing them (and the closest as "did you mean").
  std::string choice(const std::string& key, const std::vector<std::string>& choices) const;
  /// One of `values`, written as its `name`: choice() over the names.
  template <typename Enum, std::size_t N>
  Enum choice(const std::string& key, const std::array<Enum, N>& values, const char* (*name)(Enum)) const {
    std::vector<std::string> names;
    for (Enum v : values) names.emplace_back(name(v));
    const std::string chosen = choice(key, names);
    for (Enum v : values) {
      if (chosen == name(v)) return v;
    }
    return values[0];  // unreachable: choice() accepted one of the names
  }

  /// The mapping at `key` (required).
  Reader child(const std::string& key) const;
  /// The node at `key` (required), for callers that branch on its type.
  YAML::Node node(const std::string& key) const;

  /// Throws the located error for `key` (or for this mapping when key is empty).
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;

  SourceMap& sources() const { return *sources_; }

 private:
  YAML::Node required(const std::string& key) const;
  std::string scalar(const std::string& key) const;

  YAML::Node node_;
  std::string path_;
  SourceMap* sources_;
};

/// Checks `schema_version: 1` (every podsim document has it).
void read_schema_version(const Reader& r);
/// Checks `schema_version: 1` and a non-empty `name` (models, hardware, topologies).
void read_document_header(const Reader& r);

}  // namespace podsim::config
