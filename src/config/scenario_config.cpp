#include "config/scenario_config.hpp"

#include "config/document.hpp"
#include "config/model_reader.hpp"
#include "config/scenario_reader.hpp"
#include "config/section_cache.hpp"
#include "config/topology_name.hpp"
#include "config/topology_reader.hpp"
#include "parallelism/program_builder.hpp"
#include "topology/device_mesh.hpp"
#include "topology/topology.hpp"
#include "util/suggest.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>

namespace podsim::config {

namespace {

/// The keys whose value may name a file that is read in their place.

/// A layout check that failed: the key it names and why. An unknown mesh axis is the file's
/// mistake (InputError); the rest make the layout infeasible (InfeasibleLayout).
struct LayoutProblem {
  std::string key;
  std::string message;
  bool infeasible = true;
};

/// The first check `s` fails (mesh axes, the layout rules, placement on the topology), found
/// without the document; `files`, when given, holds the machines layouts are placed on.
std::optional<LayoutProblem> layout_problem(const runtime::Scenario& s, ParsedFiles* files) {
  // Mesh entries must name the topology's axes.
  const std::vector<std::string> names = topology::axis_names(s.topology);
  for (const auto& [logical, physical] : s.parallel.mesh) {
    for (const auto& axis : physical) {
      if (std::find(names.begin(), names.end(), axis) == names.end()) {
        return LayoutProblem{"parallelism.mesh." + logical,
                             "unknown axis \"" + axis + "\"" + did_you_mean(axis, names) + "; " + s.topology.name +
                                 " has axes " + join_choices(names),
                             false};
      }
    }
  }
  try {
    parallelism::check_layout(s.model, s.chip, s.parallel, s.training,
                              static_cast<std::uint32_t>(topology::chip_count(s.topology)));
  } catch (const parallelism::LayoutError& e) {
    return LayoutProblem{e.key(), e.what()};
  }
  try {
    // A sweep's points share the machine they are checked on (ParsedFiles::topologies).
    std::optional<topology::Topology> own;
    const topology::Topology& topo = files != nullptr ? files->topologies().get(s.topology) : own.emplace(s.topology);
    const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(s.parallel));
  } catch (const InputError& e) {
    return LayoutProblem{s.parallel.mesh.empty() ? "parallelism" : "parallelism.mesh", e.what()};
  }
  return std::nullopt;
}

/// The checks that make a layout infeasible rather than the file wrong (layout_problem),
/// located at the keys of `root`.
void check_scenario_layout(const runtime::Scenario& s, const YAML::Node& root, SourceMap& sources) {
  const auto problem = layout_problem(s, sources.parsed_files());
  if (!problem) return;
  const std::string message = locate_path(root, problem->key, sources) + ": " + problem->key + ": " + problem->message;
  if (problem->infeasible) throw InfeasibleLayout(message);
  throw InputError(message);
}

/// `network: contention` → `network: {model: contention}` (a scalar is the model's name).
void expand_network_shorthand(YAML::Node root) {
  if (!root["network"].IsScalar()) return;
  const YAML::Node shorthand = root["network"];
  YAML::Node expanded(YAML::NodeType::Map);
  expanded["model"] = shorthand;
  root["network"] = expanded;
}

/// Applies `overrides` that reach into the composed document (the topology renamed for its
/// size). `network: contention` is shorthand for {model: contention}: expanded before them so
/// that --set network.max_chunks=… works either way, and again after them, for
/// --set network=contention.
void apply_deep_overrides(YAML::Node root, const std::vector<Override>& overrides, SourceMap& sources) {
  expand_network_shorthand(root);
  apply_overrides_renaming(root, "topology", overrides, sources);
  expand_network_shorthand(root);
}

LoadedScenario read_composed(const std::shared_ptr<SourceMap>& at, YAML::Node root, const std::string& default_name,
                             bool check_layout);

/// Reads the scenario document `root`, shown as `shown`, whose files are relative to `dir`.
LoadedScenario read_scenario(SourceMap& sources, YAML::Node root, const std::string& shown,
                             const std::filesystem::path& dir, const std::string& default_name,
                             const std::vector<Override>& overrides, bool check_layout) {
  sources.add_file("", shown);
  if (!root.IsMap()) Reader(root, "", sources);  // throws: a scenario is a mapping
  // Overrides that replace a whole included file come first, with their own directory;
  // the others reach into the included documents, so they wait until those are inlined.
  std::vector<Override> deep;
  std::filesystem::path include_dir[3] = {dir, dir, dir};
  for (const Override& o : overrides) {
    bool whole = false;
    for (int k = 0; k < 3; ++k) {
      if (o.path == kIncludeKeys[k]) {
        apply_overrides(root, {o}, sources);
        include_dir[k] = o.dir;
        whole = true;
      }
    }
    if (!whole) deep.push_back(o);
  }
  include_file(root, "", "model", include_dir[0], sources);
  include_file(root, "", "hardware", include_dir[1], sources);
  const std::filesystem::path topology_dir = include_file(root, "", "topology", include_dir[2], sources);
  inline_topology_includes(root["topology"], "topology", topology_dir, sources);
  apply_deep_overrides(root, deep, sources);
  return read_composed(std::make_shared<SourceMap>(sources), root, default_name, check_layout);
}

/// Removes the defaults a reading filled into `root` (last first: a default inside a default
/// mapping goes before it), so that the document is as composed.
void remove_defaults(YAML::Node root, const std::vector<std::string>& defaults) {
  for (auto d = defaults.rbegin(); d != defaults.rend(); ++d) {
    YAML::Node parent = root;
    std::size_t begin = 0;
    std::size_t dot;
    while ((dot = d->find('.', begin)) != std::string::npos) {
      YAML::Node child = parent[d->substr(begin, dot - begin)];
      parent.reset(child);
      begin = dot + 1;
    }
    parent.remove(d->substr(begin));
  }
}

/// Whether every override reaches into `parallelism` (a sweep's derived dp and zero_group):
/// reading the document again then changes nothing else.
bool only_parallelism(const std::vector<Override>& overrides) {
  return std::all_of(overrides.begin(), overrides.end(),
                     [](const Override& o) { return o.path.starts_with("parallelism."); });
}

LoadedScenario finish_reading(const std::shared_ptr<SourceMap>& at, YAML::Node root, const std::string& default_name,
                              std::string name, runtime::Scenario scenario, bool check_layout);

/// Reads the composed document `root` (includes inlined, overrides applied).
LoadedScenario read_composed(const std::shared_ptr<SourceMap>& at, YAML::Node root, const std::string& default_name,
                             bool check_layout) {
  SourceMap& sources = *at;
  Reader top(root, "", sources);
  top.allow_only({"schema_version", "name", "description", "model", "hardware", "topology", "network", "parallelism",
                  "training"});
  read_schema_version(top);
  std::string name = top.has("name") ? top.text("name") : default_name;

  runtime::Scenario s;
  Reader model = top.child("model");
  s.model = read_model(model);
  Reader hardware = top.child("hardware");
  s.chip = read_hardware(hardware);
  Reader topology = top.child("topology");
  s.topology = read_topology(topology);
  s.network = read_network_choice(top);
  const auto chips = static_cast<std::uint32_t>(topology::chip_count(s.topology));
  Reader parallel = top.child("parallelism");
  s.parallel = read_parallelism(parallel, chips);
  Reader training = top.child("training");
  s.training = read_training(training, s.model, s.chip);
  s.chip.stack = workload::stack_profile(s.training.stack).family;  // the stack's, as read_training used
  return finish_reading(at, root, default_name, std::move(name), std::move(s), check_layout);
}

/// What a reading gives besides the scenario: its name, inputs, where each key was written,
/// the layout check, and reading it again.
LoadedScenario finish_reading(const std::shared_ptr<SourceMap>& at, YAML::Node root, const std::string& default_name,
                              std::string name, runtime::Scenario scenario, bool check_layout) {
  LoadedScenario out;
  out.name = std::move(name);
  out.scenario = std::move(scenario);
  out.inputs = at->inputs();
  out.resolved_yaml = [root] { return dump(root); };
  out.where = [root, at](const std::string& key_path) { return locate_path(root, key_path, *at); };
  out.check_layout = [root, at](const runtime::Scenario& read) { check_scenario_layout(read, root, *at); };
  out.again = [root, at, default_name, name = out.name, first = out.scenario](const std::vector<Override>& more, bool check) {
    for (const Override& o : more) {
      if (std::find(kIncludeKeys.begin(), kIncludeKeys.end(), o.path) != kIncludeKeys.end()) {
        throw InputError(o.text + ": " + o.path + " names a file; read the scenario again to replace it");
      }
    }
    // Where only `parallelism` changes (no other section's reader looks at it), that section
    // alone is read again, the defaults the first reading filled in elsewhere left as they are.
    const bool whole = !only_parallelism(more);
    remove_defaults(root, whole ? at->take_defaults() : at->take_defaults_under("parallelism"));
    apply_deep_overrides(root, more, *at);
    if (whole) return read_composed(at, root, default_name, check);
    runtime::Scenario s = first;
    Reader parallel = Reader(root, "", *at).child("parallelism");
    s.parallel = read_parallelism(parallel, static_cast<std::uint32_t>(topology::chip_count(s.topology)));
    return finish_reading(at, root, default_name, name, std::move(s), check);
  };
  if (check_layout) out.check_layout(out.scenario);
  return out;
}

/// Reads the scenario file `file` through `sources`.
LoadedScenario read_scenario_file(SourceMap& sources, const std::filesystem::path& file,
                                  const std::vector<Override>& overrides, bool check_layout) {
  const std::string shown = display_name(file);
  YAML::Node root = load_yaml_file(file, shown, sources);
  return read_scenario(sources, root, shown, file.parent_path(), file.stem().string(), overrides, check_layout);
}

/// Reads the sections a kept reading lacks that the scenario holds as plain mappings and whose
/// readers take nothing from the others but the chip count — network and parallelism — alone:
/// the file's mapping with the overrides that reach into it, as read_composed reads it. A
/// sweep's points mostly differ in parallelism. False when the included sections or another
/// section are not kept, or a reading alone fails: the whole document is then read, and names
/// the error. (Training is not read alone: its reader takes the chip as the hardware file wrote
/// it, before the training section chose the stack, which the kept readings do not keep.)
bool read_missing_sections(const std::filesystem::path& file, const std::vector<Override>& overrides,
                           ParsedFiles::Sections::Found& found, ParsedFiles& files) {
  if (!found.model || !found.chip || !found.topology || !found.training || !found.top) return false;
  SourceMap sources;
  sources.read_through(&files);
  const std::string shown = display_name(file);
  sources.add_file("", shown);
  // The document as it would be for this section: the file's own mapping, the overrides of it.
  const auto alone = [&](const std::string& key) {
    YAML::Node root(YAML::NodeType::Map);
    const YAML::Node section = load_yaml_key(file, shown, key, sources);
    if (!section.IsNull()) root[key] = section;
    std::vector<Override> own;
    for (const Override& o : overrides) {
      if (o.path == key || o.path.starts_with(key + ".")) own.push_back(o);
    }
    apply_deep_overrides(root, own, sources);
    return root;
  };
  try {
    if (!found.network) {
      Reader top(alone("network"), "", sources);
      found.network = read_network_choice(top);
    }
    if (!found.parallel) {
      Reader parallel = Reader(alone("parallelism"), "", sources).child("parallelism");
      found.parallel = read_parallelism(parallel, static_cast<std::uint32_t>(topology::chip_count(*found.topology)));
    }
  } catch (const InputError&) {
    return false;
  }
  return true;
}

/// The reading of `file` with `overrides` put together from sections read before
/// (section_cache.hpp), with what load_scenario gives besides the scenario: what needs the
/// document (a key's place, the resolved YAML, a layout problem's message) reads it when asked,
/// through `files`, which must outlive the result.
LoadedScenario from_sections(const std::filesystem::path& file, const std::vector<Override>& overrides,
                             CachedReading read, bool check_layout, ParsedFiles& files) {
  LoadedScenario out;
  out.scenario = std::move(read.scenario);
  out.name = std::move(read.name);
  out.inputs = std::move(read.inputs);
  const auto document = [file, overrides, &files] {
    SourceMap sources;
    sources.read_through(&files);
    return read_scenario_file(sources, file, overrides, false);
  };
  out.resolved_yaml = [document] { return document().resolved_yaml(); };
  out.where = [document](const std::string& key_path) { return document().where(key_path); };
  out.check_layout = [document, &files](const runtime::Scenario& scenario) {
    if (!layout_problem(scenario, &files)) return;
    document().check_layout(scenario);  // throws InfeasibleLayout at the key
    throw std::logic_error("podsim: a layout check found a problem that the located check did not");
  };
  out.again = [file, overrides, &files](const std::vector<Override>& more, bool check) {
    for (const Override& o : more) {
      if (std::find(kIncludeKeys.begin(), kIncludeKeys.end(), o.path) != kIncludeKeys.end()) {
        throw InputError(o.text + ": " + o.path + " names a file; read the scenario again to replace it");
      }
    }
    std::vector<Override> all = overrides;
    all.insert(all.end(), more.begin(), more.end());
    return load_scenario(file, all, check, files);
  };
  if (check_layout) out.check_layout(out.scenario);
  return out;
}

}  // namespace

LoadedScenario load_scenario(const std::filesystem::path& file, const std::vector<Override>& overrides,
                             bool check_layout) {
  SourceMap sources;
  return read_scenario_file(sources, file, overrides, check_layout);
}

LoadedScenario load_scenario(const std::filesystem::path& file, const std::vector<Override>& overrides,
                             bool check_layout, ParsedFiles& files) {
  std::optional<ParsedFiles::Sections::Found> found;
  if (!files.saw_anchor()) found = files.sections().lookup(file, overrides);
  if (found) {
    const bool read_alone = !found->complete() && read_missing_sections(file, overrides, *found, files);
    if (found->complete()) {
      CachedReading cached = files.sections().assemble(*found);
      if (read_alone) files.sections().keep(*found, cached);
      return from_sections(file, overrides, std::move(cached), check_layout, files);
    }
  }
  SourceMap sources;
  sources.read_through(&files);
  LoadedScenario out = read_scenario_file(sources, file, overrides, check_layout);
  // Kept unless reading it parsed a file with an anchor (found was looked up before).
  if (found && !files.saw_anchor()) files.sections().keep(*found, CachedReading{out.scenario, out.name, out.inputs});
  return out;
}

LoadedScenario load_scenario(const std::filesystem::path& file, const std::vector<Override>& overrides,
                             bool check_layout, std::vector<InputRecord>& inputs) {
  const std::string shown = display_name(file);
  SourceMap sources;
  sources.record_digests(true);  // who asks for the files read wants to know what they held
  // The files read are reported even when the scenario is refused (a sweep records them).
  try {
    LoadedScenario out = read_scenario_file(sources, file, overrides, check_layout);
    merge_inputs(inputs, sources.inputs());
    return out;
  } catch (const InputError&) {
    merge_inputs(inputs, sources.inputs());
    throw;
  }
}

LoadedScenario compose_scenario(const ScenarioParts& parts, const std::vector<Override>& overrides) {
  YAML::Node root(YAML::NodeType::Map);
  root["schema_version"] = 1;
  root["name"] = parts.name;
  root["model"] = parts.model.string();
  root["hardware"] = parts.hardware.string();
  root["topology"] = parts.topology.string();
  root["network"] = parts.network;
  root["parallelism"] = YAML::Node(YAML::NodeType::Map);  // dp = every chip
  YAML::Node training(YAML::NodeType::Map);
  training["global_batch"] = parts.global_batch;
  if (parts.seq_len > 0) training["seq_len"] = parts.seq_len;
  root["training"] = training;
  SourceMap sources;
  return read_scenario(sources, root, parts.shown, std::filesystem::current_path(), parts.name, overrides, false);
}

}  // namespace podsim::config
