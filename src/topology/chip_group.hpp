#pragma once

#include <cstdint>
#include <vector>

#include "topology/topology.hpp"

namespace podsim::topology {

/// Chips that act together (a collective's participants, a parallelism axis's group),
/// arranged as a small grid: one dimension per topology axis (or part of one) the group
/// spans. Chips are stored in mixed-radix order of their coordinates along the dimensions,
/// the first varying fastest.
struct Group {
  struct Dim {
    int axis = 0;        ///< topology axis (Topology::axes()): its tier, bandwidth, latency
    int size = 1;        ///< chips along this dimension
    bool wraps = false;  ///< the dimension closes into a ring of links (whole wrapped axis)
  };
  std::vector<Dim> dims;
  std::vector<ChipId> chips;

  std::uint32_t size() const { return static_cast<std::uint32_t>(chips.size()); }
};

}  // namespace podsim::topology
