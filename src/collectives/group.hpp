#pragma once

#include <cstdint>
#include <vector>

#include "topology/topology.hpp"

namespace podsim::collectives {

using topology::ChipId;

/// Chips that take part in one collective: every chip whose coordinates differ only along
/// `axes`. Chips are stored in mixed-radix order of their coordinates on those axes, the
/// first axis varying fastest.
struct Group {
  std::vector<int> axes;   ///< topology axis indices, in topology order
  std::vector<int> sizes;  ///< chips along each of `axes`
  std::vector<ChipId> chips;

  std::uint32_t size() const { return static_cast<std::uint32_t>(chips.size()); }
};

/// Every group spanned by `axes` (topology axis indices): one per combination of the
/// other axes' coordinates, in order of the lowest chip id.
std::vector<Group> make_groups(const topology::Topology& topo, std::vector<int> axes);

/// The lines of `group` along its `axis_pos`-th axis: each is a vector of chips in
/// coordinate order.
std::vector<std::vector<ChipId>> lines_along(const Group& group, std::size_t axis_pos);

/// A cyclic order of `line` (chips along one axis, in coordinate order) whose consecutive
/// chips are close: the natural order on a wrapped axis; on an open axis the folded order
/// 0, 2, 4, …, 5, 3, 1, so no ring edge spans more than two links and every link
/// direction carries one edge.
std::vector<ChipId> ring_order_of_line(const std::vector<ChipId>& line, bool wraps);

/// A cyclic order through every chip of `group`: a single axis as ring_order_of_line, more
/// axes as a snake (boustrophedon) through the grid.
std::vector<ChipId> ring_order(const topology::Topology& topo, const Group& group);

}  // namespace podsim::collectives
