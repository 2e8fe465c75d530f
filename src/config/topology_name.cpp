#include "config/topology_name.hpp"

#include <cstdint>
#include <optional>

#include "config/document.hpp"

namespace podsim::config {

namespace {

std::optional<std::int64_t> integer(const YAML::Node& n) {
  if (!n || !n.IsScalar()) return std::nullopt;
  try {
    const std::string text = n.Scalar();
    std::size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used != text.size() || v <= 0) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// "16x16x16" and the product of `dims`, or nothing when a dim is not a positive integer.
std::optional<std::pair<std::string, std::int64_t>> grid(const YAML::Node& dims) {
  if (!dims || !dims.IsSequence() || dims.size() == 0) return std::nullopt;
  std::string text;
  std::int64_t chips = 1;
  for (const YAML::Node& d : dims) {
    const auto v = integer(d);
    if (!v || *v > (std::int64_t{1} << 24)) return std::nullopt;
    if (!text.empty()) text += 'x';
    text += std::to_string(*v);
    chips *= *v;
  }
  return std::pair{text, chips};
}

std::string text_of(const YAML::Node& n) {
  return n && n.IsScalar() ? n.Scalar() : std::string();
}

}  // namespace

std::vector<std::string> size_tokens(const YAML::Node& topology) {
  if (!topology || !topology.IsMap()) return {};
  const std::string kind = text_of(topology["kind"]);
  if (kind == "switch") {
    const auto nodes = integer(topology["nodes"]);
    const auto per = integer(topology["chips_per_node"]);
    if (!nodes || !per || *nodes > (1 << 24) || *per > (1 << 24)) return {};
    const std::string n = std::to_string(*nodes), c = std::to_string(*per);
    return {n + "x" + c, c + "x" + n, std::to_string(*nodes * *per)};
  }
  if (kind == "torus" || kind == "mesh") {
    const auto g = grid(topology["dims"]);
    if (!g) return {};
    return {g->first, std::to_string(g->second)};
  }
  if (kind == "multislice") {
    const auto slices = integer(topology["slices"]);
    const YAML::Node slice = topology["slice"];
    const auto g = slice && slice.IsMap() ? grid(slice["dims"]) : std::nullopt;
    if (!slices || !g || *slices > (1 << 24)) return {};
    return {std::to_string(*slices) + "x" + g->first, std::to_string(*slices * g->second)};
  }
  return {};
}

void rename_for_size(YAML::Node topology, const std::vector<std::string>& before,
                     const std::vector<std::string>& after) {
  if (before.size() != after.size() || before == after || !topology["name"]) return;
  const std::string name = text_of(topology["name"]);
  std::size_t begin = 0;
  while (begin <= name.size()) {
    std::size_t end = name.find('-', begin);
    if (end == std::string::npos) end = name.size();
    const std::string part = name.substr(begin, end - begin);
    for (std::size_t i = 0; i < before.size(); ++i) {
      if (part == before[i] && after[i] != before[i]) {
        topology["name"] = name.substr(0, begin) + after[i] + name.substr(end);
        return;
      }
    }
    begin = end + 1;
  }
}

void apply_overrides_renaming(YAML::Node root, const std::string& topology_key, const std::vector<Override>& overrides,
                              SourceMap& sources) {
  const YAML::Node& read = root;  // const: looking must not add the key
  const std::vector<std::string> before = size_tokens(topology_key.empty() ? read : read[topology_key]);
  apply_overrides(root, overrides, sources);
  YAML::Node after = topology_key.empty() ? root : YAML::Node(root[topology_key]);
  if (after && after.IsMap()) rename_for_size(after, before, size_tokens(after));
}

}  // namespace podsim::config
