#pragma once

// Internal to config: where each part of a (composed) YAML document came from.

#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/input_record.hpp"
#include "config/parsed_files.hpp"

namespace podsim::config {

/// Maps key paths of a document to their origin: a file (then YAML marks give line and
/// column) or a command-line flag (then the flag, as typed, is the location).
class SourceMap {
 public:
  /// The subtree at `path` ("" = root) was read from `file`.
  void add_file(std::string path, std::string file);
  /// The value at `path` was given on the command line as `flag_text`.
  void add_flag(std::string path, std::string flag_text);

  /// "file:line:col" (or "file" without a usable mark) or the flag text, for the value at
  /// `key_path` whose node carries `mark`.
  std::string locate(const std::string& key_path, const YAML::Mark& mark) const;

  /// The value at `path` was filled in by podsim (a default): it has no position of its own.
  void add_default(std::string path) { defaults_.push_back(std::move(path)); }
  bool is_default(const std::string& path) const;
  /// The values filled in by podsim, in the order they were; forgets them (the document is
  /// about to be read again without them).
  std::vector<std::string> take_defaults() { return std::exchange(defaults_, {}); }
  /// The same for the values filled in under `section` (its dotted path) only; the others stay.
  std::vector<std::string> take_defaults_under(const std::string& section) {
    const std::string prefix = section + ".";
    std::vector<std::string> taken;
    std::vector<std::string> kept;
    for (auto& d : defaults_) (d.starts_with(prefix) ? taken : kept).push_back(std::move(d));
    defaults_ = std::move(kept);
    return taken;
  }

  /// A file was read to make this document (the top file, an include, a value's file).
  void add_input(InputRecord input) { merge_inputs(inputs_, {std::move(input)}); }
  /// Whether inputs get their SHA-256 (a sweep needs them; a single run does not, and a
  /// sweep's points load their scenario thousands of times).
  void record_digests(bool on) { digests_ = on; }
  bool digests() const { return digests_; }
  /// Every file read, in the order first read.
  const std::vector<InputRecord>& inputs() const { return inputs_; }
  /// Files are taken from `files` (parsed the first time only) instead of read and parsed;
  /// nullptr (the default) reads each one.
  void read_through(ParsedFiles* files) { files_ = files; }
  ParsedFiles* parsed_files() const { return files_; }

 private:
  struct Origin {
    std::string path;
    std::string where;
    bool is_file;
  };
  std::vector<Origin> origins_;
  std::vector<std::string> defaults_;
  std::vector<InputRecord> inputs_;
  bool digests_ = false;
  ParsedFiles* files_ = nullptr;
};

/// Where the value at `key_path` (e.g. "parallelism.tp") of `root` is: file:line:col of
/// that node, or of its nearest ancestor present in the document.
std::string locate_path(const YAML::Node& root, const std::string& key_path, const SourceMap& sources);

/// "a.b" + "c" = "a.b.c"; "" + "c" = "c".
std::string join_path(const std::string& parent, const std::string& key);

}  // namespace podsim::config
