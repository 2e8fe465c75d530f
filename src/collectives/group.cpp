#include "collectives/group.hpp"

#include <algorithm>
#include <map>

#include "util/error.hpp"

namespace podsim::collectives {

std::vector<Group> make_groups(const topology::Topology& topo, std::vector<int> axes) {
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  const auto& all_axes = topo.axes();
  std::vector<bool> in_group(all_axes.size(), false);
  std::vector<int> sizes;
  std::size_t group_size = 1;
  for (int a : axes) {
    if (a < 0 || static_cast<std::size_t>(a) >= all_axes.size()) {
      throw InputError("axis index " + std::to_string(a) + " out of range");
    }
    in_group[static_cast<std::size_t>(a)] = true;
    sizes.push_back(all_axes[static_cast<std::size_t>(a)].size);
    group_size *= static_cast<std::size_t>(all_axes[static_cast<std::size_t>(a)].size);
  }
  std::map<std::vector<int>, std::size_t> index_of_key;
  std::vector<Group> groups;
  for (ChipId c = 0; c < topo.chips(); ++c) {
    const topology::Coord coord = topo.coord(c);
    std::vector<int> key;
    std::size_t position = 0;
    std::size_t stride = 1;
    std::size_t k = 0;
    for (std::size_t a = 0; a < all_axes.size(); ++a) {
      if (in_group[a]) {
        position += static_cast<std::size_t>(coord[a]) * stride;
        stride *= static_cast<std::size_t>(sizes[k++]);
      } else {
        key.push_back(coord[a]);
      }
    }
    auto [it, inserted] = index_of_key.try_emplace(key, groups.size());
    if (inserted) groups.push_back(Group{axes, sizes, std::vector<ChipId>(group_size)});
    groups[it->second].chips[position] = c;
  }
  return groups;
}

std::vector<std::vector<ChipId>> lines_along(const Group& group, std::size_t axis_pos) {
  std::size_t stride = 1;
  for (std::size_t i = 0; i < axis_pos; ++i) stride *= static_cast<std::size_t>(group.sizes[i]);
  const auto n = static_cast<std::size_t>(group.sizes[axis_pos]);
  std::vector<std::vector<ChipId>> lines;
  for (std::size_t start = 0; start < group.chips.size(); ++start) {
    // A line starts at every position whose coordinate on this axis is 0.
    if ((start / stride) % n != 0) continue;
    std::vector<ChipId> line(n);
    for (std::size_t i = 0; i < n; ++i) line[i] = group.chips[start + i * stride];
    lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<ChipId> ring_order_of_line(const std::vector<ChipId>& line, bool wraps) {
  if (wraps || line.size() <= 2) return line;
  std::vector<ChipId> order;
  for (std::size_t i = 0; i < line.size(); i += 2) order.push_back(line[i]);
  for (std::size_t i = line.size() - 1 - (line.size() % 2 == 0 ? 0 : 1);; i -= 2) {
    order.push_back(line[i]);
    if (i < 2) break;
  }
  return order;
}

std::vector<ChipId> ring_order(const topology::Topology& topo, const Group& group) {
  if (group.axes.size() == 1) {
    // Folding only helps on an open grid axis; through a switch every pair is 2 links apart.
    const auto& axis = topo.axes()[static_cast<std::size_t>(group.axes[0])];
    return ring_order_of_line(group.chips, axis.wraparound || axis.tier != topology::LinkTier::kIci);
  }
  // Snake: walk the first axis forwards, then backwards on the next row, and so on.
  const auto n0 = static_cast<std::size_t>(group.sizes[0]);
  std::vector<ChipId> order;
  order.reserve(group.chips.size());
  for (std::size_t row = 0; row * n0 < group.chips.size(); ++row) {
    for (std::size_t i = 0; i < n0; ++i) {
      const std::size_t x = row % 2 == 0 ? i : n0 - 1 - i;
      order.push_back(group.chips[row * n0 + x]);
    }
  }
  return order;
}

}  // namespace podsim::collectives
