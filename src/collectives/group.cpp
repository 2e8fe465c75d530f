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
  std::vector<Group::Dim> dims;
  std::size_t group_size = 1;
  for (int a : axes) {
    if (a < 0 || static_cast<std::size_t>(a) >= all_axes.size()) {
      throw InputError("axis index " + std::to_string(a) + " out of range");
    }
    const auto& axis = all_axes[static_cast<std::size_t>(a)];
    in_group[static_cast<std::size_t>(a)] = true;
    dims.push_back({a, axis.size, axis.ring});
    group_size *= static_cast<std::size_t>(axis.size);
  }
  std::map<std::vector<int>, std::size_t> index_of_key;
  std::vector<Group> groups;
  for (ChipId c = 0; c < topo.chips(); ++c) {
    const topology::Coord coord = topo.coord(c);
    std::vector<int> key;
    std::size_t position = 0;
    std::size_t stride = 1;
    for (std::size_t a = 0; a < all_axes.size(); ++a) {
      if (in_group[a]) {
        position += static_cast<std::size_t>(coord[a]) * stride;
        stride *= static_cast<std::size_t>(all_axes[a].size);
      } else {
        key.push_back(coord[a]);
      }
    }
    auto [it, inserted] = index_of_key.try_emplace(key, groups.size());
    if (inserted) groups.push_back(Group{dims, std::vector<ChipId>(group_size)});
    groups[it->second].chips[position] = c;
  }
  return groups;
}

std::vector<Group> split(const Group& group, const std::vector<std::size_t>& keep) {
  const std::size_t d = group.dims.size();
  std::vector<std::size_t> stride(d, 1);
  for (std::size_t i = 1; i < d; ++i) stride[i] = stride[i - 1] * static_cast<std::size_t>(group.dims[i - 1].size);
  std::vector<bool> kept(d, false);
  Group shape;
  std::size_t sub_size = 1;
  for (std::size_t k : keep) {
    kept[k] = true;
    shape.dims.push_back(group.dims[k]);
    sub_size *= static_cast<std::size_t>(group.dims[k].size);
  }
  std::vector<Group> out;
  for (std::size_t start = 0; start < group.chips.size(); ++start) {
    // A sub-group starts at every position whose kept coordinates are all 0.
    bool origin = true;
    for (std::size_t k : keep) origin = origin && (start / stride[k]) % static_cast<std::size_t>(group.dims[k].size) == 0;
    if (!origin) continue;
    Group g = shape;
    g.chips.resize(sub_size);
    for (std::size_t local = 0; local < sub_size; ++local) {
      std::size_t rest = local;
      std::size_t position = start;
      for (std::size_t k : keep) {
        const auto n = static_cast<std::size_t>(group.dims[k].size);
        position += (rest % n) * stride[k];
        rest /= n;
      }
      g.chips[local] = group.chips[position];
    }
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<std::vector<ChipId>> lines_along(const Group& group, std::size_t dim) {
  std::vector<std::vector<ChipId>> lines;
  for (Group& g : split(group, {dim})) lines.push_back(std::move(g.chips));
  return lines;
}

std::vector<ChipId> ring_order_of_line(const std::vector<ChipId>& line, bool natural) {
  if (natural || line.size() <= 2) return line;
  std::vector<ChipId> order;
  for (std::size_t i = 0; i < line.size(); i += 2) order.push_back(line[i]);
  for (std::size_t i = line.size() - 1 - (line.size() % 2 == 0 ? 0 : 1);; i -= 2) {
    order.push_back(line[i]);
    if (i < 2) break;
  }
  return order;
}

std::vector<ChipId> ring_order(const topology::Topology& topo, const Group& group) {
  if (group.dims.size() == 1) {
    // Folding only helps on an open grid line; through a switch every pair is 2 links apart.
    const auto& dim = group.dims[0];
    const bool switched = topo.axes()[static_cast<std::size_t>(dim.axis)].tier != topology::LinkTier::kIci;
    return ring_order_of_line(group.chips, dim.wraps || switched);
  }
  // Snake: walk the first dimension forwards, then backwards on the next row, and so on.
  const auto n0 = static_cast<std::size_t>(group.dims[0].size);
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
