#include "config/scalar_values.hpp"

#include <yaml-cpp/yaml.h>

namespace podsim::config {

namespace {

void collect(const YAML::Node& node, const std::string& path, std::map<std::string, std::string>& out) {
  if (node.IsScalar()) {
    out.emplace(path, node.Scalar());
    return;
  }
  if (!node.IsMap()) return;
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    collect(entry.second, path.empty() ? key : path + "." + key, out);
  }
}

}  // namespace

std::map<std::string, std::string> scalar_values(const std::string& resolved_yaml) {
  std::map<std::string, std::string> out;
  // The text is what podsim itself wrote (one document, already validated), so it parses.
  collect(YAML::Load(resolved_yaml), "", out);
  return out;
}

}  // namespace podsim::config
