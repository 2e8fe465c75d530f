#pragma once

#include <array>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/input_record.hpp"
#include "config/overrides.hpp"
#include "config/parsed_files.hpp"
#include "runtime/scenario.hpp"
#include "util/error.hpp"

namespace podsim::config {

/// A scenario whose layout cannot run on its machine (dp·tp·pp ≠ chips, tp not dividing
/// the heads, an impossible mesh, …). The message names the file, line and key. A sweep
/// records these as infeasible instead of stopping.
class InfeasibleLayout : public InputError {
 public:
  using InputError::InputError;
};

/// A scenario file read, validated and resolved.
/// The keys whose value may name a file to include (or be the document inline).
inline constexpr std::array<std::string_view, 3> kIncludeKeys = {"model", "hardware", "topology"};

struct LoadedScenario {
  runtime::Scenario scenario;
  std::string name;           ///< `name:` or the file's stem
  /// The document with includes inlined, overrides applied, defaults filled (what outputs
  /// store). Produced on request: a sweep point does not need it.
  std::function<std::string()> resolved_yaml;
  std::vector<InputRecord> inputs;  ///< every file read: the scenario and what it includes (no digests)
  /// "file:line:col" (or the --set flag) of a key path such as "training.global_batch", for
  /// errors found after loading (a work budget, a memory limit).
  std::function<std::string(const std::string& key_path)> where;
  /// Checks that `scenario` (this one's, perhaps changed) can run: the layout rules, mesh
  /// axes, placement. Throws InfeasibleLayout at the key that breaks one. load_scenario with
  /// check_layout calls it; without, a caller that wants the scenario either way calls it.
  std::function<void(const runtime::Scenario& scenario)> check_layout;
  /// The same document read again with `more` overrides after the others, without reading
  /// any file again (a sweep's derived keys: the point is read, its values computed, then it
  /// is read with them). Exactly what load_scenario with all the overrides gives; afterwards
  /// this object's resolved_yaml, where and check_layout describe the new document. `more`
  /// may not replace the model, hardware or topology file (load the scenario for that).
  std::function<LoadedScenario(const std::vector<Override>& more, bool check_layout)> again;
};

/// Reads a scenario (docs/configuration.md): model, hardware and topology (file paths,
/// relative to the scenario, or inline), network, parallelism, training. Checks that the
/// layout can run (dp·tp·pp = chips, tp divides heads, batch divides into microbatches,
/// the mesh can be placed, …: InfeasibleLayout); every error names the file, line and key
/// that caused it. Overrides of `model`, `hardware` or `topology` may name files.
LoadedScenario load_scenario(const std::filesystem::path& file, const std::vector<Override>& overrides = {},
                             bool check_layout = true);
/// The same, each file read and parsed once through `files` (a sweep's points, which read
/// the same files again and again). Gives exactly what the overload without it gives.
LoadedScenario load_scenario(const std::filesystem::path& file, const std::vector<Override>& overrides,
                             bool check_layout, ParsedFiles& files);
/// The same; also adds every file read, with its SHA-256, to `inputs`, even when it throws.
LoadedScenario load_scenario(const std::filesystem::path& file, const std::vector<Override>& overrides,
                             bool check_layout, std::vector<InputRecord>& inputs);

/// A scenario put together from parts (as `podsim plan` does) instead of a file.
struct ScenarioParts {
  std::string name = "plan";
  std::string shown = "the command line";  ///< how messages name the composed document
  std::filesystem::path model, hardware, topology;
  std::string network = "analytical";
  int global_batch = 1;
  int seq_len = 0;        ///< 0: the model file's default
};

/// Reads the composed scenario like a file, overrides applied (training.flash_attention,
/// training.precision.*, network.* …), without checking the layout; its parallelism is
/// pure data parallelism over every chip (a starting point).
LoadedScenario compose_scenario(const ScenarioParts& parts, const std::vector<Override>& overrides = {});

}  // namespace podsim::config
