#pragma once

// A scenario read as six typed sections: a sweep's points differ in a few keys, so each
// section (model, hardware, topology, network, parallelism, training) is read once for the
// overrides that reach into it and then taken as read. A section's reading depends on its
// own part of the document and on nothing else but what its key names: parallelism on the
// topology's chip count, training on the model and the chip (scenario_config.cpp's
// read_composed). A point whose every section was read before is put together without
// touching YAML at all; one that lacks only its parallelism or network section reads that
// section alone (scenario_config.cpp's read_missing_sections); any other point is read as
// without the cache, and its sections kept.
//
// Only documents without YAML anchors take part: an alias could make one section's override
// reach into another section (ParsedFiles::saw_anchor).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/input_record.hpp"
#include "config/overrides.hpp"
#include "config/parsed_files.hpp"
#include "runtime/scenario.hpp"

namespace podsim::config {

/// What a cached reading gives: the scenario, its name and the files it read.
struct CachedReading {
  runtime::Scenario scenario;
  std::string name;
  std::vector<InputRecord> inputs;
};

struct ParsedFiles::Sections {
  /// Each section's key: the file, the overrides that reach into the section, and the keys of
  /// the sections its reader takes.
  struct Keys {
    std::string model, hardware, topology, network, parallel, training;
    std::string top;  ///< the name and files read: the included sections' keys
  };
  /// What was kept for one reading, section by section (empty where it was not), and the keys
  /// it was looked up by.
  struct Found {
    Keys keys;
    std::optional<workload::ModelSpec> model;
    std::optional<hardware::ChipSpec> chip;
    std::optional<topology::TopologySpec> topology;
    std::optional<network::NetworkSpec> network;
    std::optional<parallelism::ParallelSpec> parallel;
    std::optional<parallelism::TrainingSpec> training;
    std::optional<std::pair<std::string, std::vector<InputRecord>>> top;  ///< name, files read
    bool complete() const { return model && chip && topology && network && parallel && training && top; }
  };
  /// The sections kept for the reading of `file` with `overrides`; nothing when an override
  /// reaches outside the six sections (the reading is then never put together).
  std::optional<Found> lookup(const std::filesystem::path& file, const std::vector<Override>& overrides) const;
  /// The reading a complete `found` makes, its sections moved out of it (its keys stay).
  CachedReading assemble(Found& found);
  /// How many readings assemble() put together.
  std::uint64_t hits() const { return hits_; }

  /// Keeps the sections of `read`, the reading looked up as `found`, that were not kept.
  void keep(const Found& found, const CachedReading& read);

 private:
  /// Each section's key, or nothing when an override reaches outside the six sections.
  static std::optional<Keys> keys_of(const std::filesystem::path& file, const std::vector<Override>& overrides);

  /// Past this many readings of one section (a sweep of millions of layouts), that section's
  /// are dropped and collected again: memory stays bounded. A key's reading never changes, so
  /// one kept is not copied again.
  static constexpr std::size_t kMaxEntries = 1 << 16;
  template <typename Value>
  static void put(std::map<std::string, Value>& into, const std::string& key, const Value& value) {
    if (into.count(key) != 0) return;
    if (into.size() >= kMaxEntries) into.clear();
    into.emplace(key, value);
  }

  std::map<std::string, workload::ModelSpec> model_;
  std::map<std::string, hardware::ChipSpec> hardware_;
  std::map<std::string, topology::TopologySpec> topology_;
  std::map<std::string, network::NetworkSpec> network_;
  std::map<std::string, parallelism::ParallelSpec> parallel_;
  std::map<std::string, parallelism::TrainingSpec> training_;
  /// The name and the files read: what the included files and the name key decide.
  std::map<std::string, std::pair<std::string, std::vector<InputRecord>>> top_;
  std::uint64_t hits_ = 0;
};

}  // namespace podsim::config
