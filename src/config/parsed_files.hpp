#pragma once

// Files parsed once: a sweep reads the same scenario, model, hardware and topology files at
// every point, and parsing them was a sixth of a point's time.

#include <memory>

#include "topology/topology_cache.hpp"

namespace podsim::config {

/// The YAML documents read so far, by path. A load that is given one (load_scenario's
/// overload) reads and parses each file the first time only and then hands out copies of
/// the document, marks included, so every message names the same file, line and column as a
/// fresh parse. A file that fails to parse is not kept: it fails again, the same way. Files
/// are not read again, so a file changed while a sweep runs is seen as it was first read
/// (as a sweep's recorded digests say). One owner at a time: not for concurrent use.
/// Implemented in document.cpp, beside the loading it serves.
class ParsedFiles {
 public:
  ParsedFiles();
  ~ParsedFiles();
  ParsedFiles(const ParsedFiles&) = delete;
  ParsedFiles& operator=(const ParsedFiles&) = delete;

  struct Documents;  ///< the parsed documents (config-internal: they are YAML nodes)
  Documents& documents() { return *documents_; }
  /// The machines the loads checked layouts on (check_layout builds the scenario's topology).
  topology::TopologyCache& topologies() { return topologies_; }
  struct Sections;  ///< typed sections read so far (section_cache.hpp)
  Sections& sections() { return *sections_; }
  /// Whether a file parsed so far holds an '&' (a YAML anchor, perhaps): the sections are
  /// then not cached, since an alias could tie one section to another.
  bool saw_anchor() const { return saw_anchor_; }
  void note_anchor() { saw_anchor_ = true; }

 private:
  std::unique_ptr<Documents> documents_;
  std::unique_ptr<Sections> sections_;
  topology::TopologyCache topologies_;
  bool saw_anchor_ = false;
};

}  // namespace podsim::config
