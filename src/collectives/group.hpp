#pragma once

#include <cstdint>
#include <vector>

#include "topology/chip_group.hpp"
#include "topology/topology.hpp"

namespace podsim::collectives {

using topology::ChipId;

/// Chips that take part in one collective (topology/chip_group.hpp).
using topology::Group;

/// Every group spanned by whole topology `axes` (indices): one per combination of the
/// other axes' coordinates, in order of the lowest chip id.
std::vector<Group> make_groups(const topology::Topology& topo, std::vector<int> axes);

/// The groups of `group` that vary only along the dimensions `keep` (positions in
/// group.dims, ascending): one per combination of the other dimensions' coordinates.
std::vector<Group> split(const Group& group, const std::vector<std::size_t>& keep);

/// The lines of `group` along its `dim`-th dimension, each in coordinate order.
std::vector<std::vector<ChipId>> lines_along(const Group& group, std::size_t dim);

/// A cyclic order of `line` (chips along one dimension, in coordinate order) whose
/// consecutive chips are close: the natural order when the line closes into a ring (or
/// sits on a switch); otherwise the folded order 0, 2, 4, …, 5, 3, 1, so no ring edge
/// spans more than two links and every link direction carries one edge.
std::vector<ChipId> ring_order_of_line(const std::vector<ChipId>& line, bool natural);

/// A cyclic order through every chip of `group`: one dimension as ring_order_of_line,
/// more as a snake (boustrophedon) through the grid.
std::vector<ChipId> ring_order(const topology::Topology& topo, const Group& group);

}  // namespace podsim::collectives
