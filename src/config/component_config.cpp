#include "config/component_config.hpp"

#include "config/document.hpp"
#include "config/model_reader.hpp"

namespace podsim::config {

hardware::ChipSpec load_hardware(const std::filesystem::path& file) {
  const std::string shown = display_name(file);
  SourceMap sources;
  YAML::Node root = load_yaml_file(file, shown, sources);
  sources.add_file("", shown);
  Reader r(root, "", sources);
  return read_hardware(r);
}

}  // namespace podsim::config
