#include "config/component_config.hpp"

#include "config/document.hpp"
#include "config/model_reader.hpp"

namespace podsim::config {

namespace {
template <typename Read>
auto load(const std::filesystem::path& file, Read&& read) {
  const std::string shown = display_name(file);
  YAML::Node root = load_yaml_file(file, shown);
  SourceMap sources;
  sources.add_file("", shown);
  Reader r(root, "", sources);
  return read(r);
}
}  // namespace

hardware::ChipSpec load_hardware(const std::filesystem::path& file) {
  return load(file, [](Reader& r) { return read_hardware(r); });
}

workload::ModelSpec load_model(const std::filesystem::path& file) {
  return load(file, [](Reader& r) { return read_model(r); });
}

}  // namespace podsim::config
