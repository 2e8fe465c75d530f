#include "config/topology_config.hpp"

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
  apply_overrides_renaming(root, "", overrides, sources);
  Reader reader(root, "", sources);
  topology::TopologySpec spec = read_topology(reader);
  return LoadedTopology{std::move(spec), dump(root), sources.inputs()};
}

}  // namespace podsim::config
