#include "config/topology_config.hpp"

#include <string_view>

#include "config/document.hpp"
#include "config/topology_name.hpp"
#include "config/topology_reader.hpp"

namespace podsim::config {

LoadedTopology load_topology(const std::filesystem::path& file,
                             const std::vector<Override>& overrides) {
  const std::string shown = display_name(file);
  SourceMap sources;
  YAML::Node root = load_yaml_file(file, shown, sources);
  sources.add_file("", shown);
  inline_topology_includes(root, "", file.parent_path(), sources);
  // Keys from the file's top (nodes), or as a scenario writes them (topology.nodes).
  std::vector<Override> keys = overrides;
  for (Override& o : keys) {
    constexpr std::string_view kScenarioPrefix = "topology.";
    if (o.path.starts_with(kScenarioPrefix)) o.path.erase(0, kScenarioPrefix.size());
  }
  apply_overrides_renaming(root, "", keys, sources);
  Reader reader(root, "", sources);
  topology::TopologySpec spec = read_topology(reader);
  return LoadedTopology{std::move(spec), dump(root), sources.inputs()};
}

}  // namespace podsim::config
