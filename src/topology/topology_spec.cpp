#include "topology/topology_spec.hpp"

#include <type_traits>

namespace podsim::topology {

std::vector<std::string> axis_names(const TopologySpec& spec) {
  const char* const grid_names[] = {"x", "y", "z"};
  return std::visit(
      [&](const auto& layout) {
        using T = std::decay_t<decltype(layout)>;
        std::vector<std::string> names;
        if constexpr (std::is_same_v<T, SwitchSpec>) {
          names = {"gpu", "node"};
        } else {
          const GridSpec* grid = nullptr;
          if constexpr (std::is_same_v<T, GridSpec>) {
            grid = &layout;
          } else {
            grid = &layout.slice;
          }
          for (std::size_t a = 0; a < grid->dims.size() && a < 3; ++a) names.emplace_back(grid_names[a]);
          if constexpr (std::is_same_v<T, MultisliceSpec>) names.emplace_back("slice");
        }
        return names;
      },
      spec.layout);
}

int fast_domains(const TopologySpec& spec) {
  if (const auto* multi = std::get_if<MultisliceSpec>(&spec.layout)) return multi->slices;
  if (const auto* cluster = std::get_if<SwitchSpec>(&spec.layout)) return cluster->nodes;
  return 1;
}

std::uint64_t chip_count(const TopologySpec& spec) {
  return std::visit(
      [](const auto& layout) -> std::uint64_t {
        using T = std::decay_t<decltype(layout)>;
        auto grid = [](const GridSpec& g) {
          std::uint64_t n = 1;
          for (int d : g.dims) n *= static_cast<std::uint64_t>(d);
          return n;
        };
        if constexpr (std::is_same_v<T, GridSpec>) {
          return grid(layout);
        } else if constexpr (std::is_same_v<T, SwitchSpec>) {
          return static_cast<std::uint64_t>(layout.nodes) * static_cast<std::uint64_t>(layout.chips_per_node);
        } else {
          return static_cast<std::uint64_t>(layout.slices) * grid(layout.slice);
        }
      },
      spec.layout);
}

TopologySpec with_link_efficiency(TopologySpec spec, double fast, double slow) {
  std::visit(
      [&](auto& layout) {
        using T = std::decay_t<decltype(layout)>;
        if constexpr (std::is_same_v<T, GridSpec>) {
          layout.link.bandwidth_Bps *= fast;
        } else if constexpr (std::is_same_v<T, SwitchSpec>) {
          layout.intra.bandwidth_Bps *= fast;
          layout.scale_out.bandwidth_Bps *= slow;
        } else {
          layout.slice.link.bandwidth_Bps *= fast;
          layout.dcn.bandwidth_Bps *= slow;
        }
      },
      spec.layout);
  return spec;
}

}  // namespace podsim::topology
