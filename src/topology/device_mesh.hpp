#pragma once

#include <string>
#include <vector>

#include "topology/chip_group.hpp"
#include "topology/topology.hpp"

namespace podsim::topology {

/// A logical axis's share of one physical axis: `size` positions, `stride` apart, of the
/// physical coordinate (stride 1 = contiguous chips).
struct MeshComponent {
  int axis = 0;  ///< physical axis index (Topology::axes())
  int size = 1;
  int stride = 1;
};

/// A logical (parallelism) axis placed on the machine.
struct LogicalAxis {
  std::string name;
  int size = 1;
  std::vector<MeshComponent> components;  ///< first varies fastest in the logical rank
};

/// What a user or a default asks of one logical axis.
struct LogicalAxisRequest {
  std::string name;
  int size = 1;
  /// Physical axes to take this axis from first, in order (names as in Topology::axes()).
  std::vector<std::string> preferred;
};

/// Places logical axes (dp, tp, pp, …) on the physical axes of a topology.
///
/// Placement takes whole physical axes or contiguous inner blocks of them. Each logical
/// axis first takes from its preferred physical axes, in order; whatever is still missing
/// is then taken, in a second pass, from any physical axis with room (fast tiers inner
/// first). Every chip ends up with exactly one logical coordinate per axis. Throws
/// InputError when the sizes cannot be placed (their product is not the chip count, or a
/// size does not factor into what the physical axes have left).
class DeviceMesh {
 public:
  DeviceMesh(const Topology& topo, const std::vector<LogicalAxisRequest>& requests);

  const std::vector<LogicalAxis>& axes() const { return axes_; }
  /// Index of the logical axis called `name`; throws SimulationError when there is none.
  int axis_index(const std::string& name) const;
  /// Index of the logical axis called `name`, or -1 when the mesh has none (an optional
  /// axis such as dp_replica, which only hybrid sharding creates).
  int find_axis(const std::string& name) const;

  /// Logical coordinates of a chip, one per logical axis.
  std::vector<int> coords(ChipId chip) const;
  /// The chip at logical coordinates `logical`.
  ChipId chip_at(const std::vector<int>& logical) const;

  /// Every group along logical axis `axis` (chips that differ only in that coordinate), in
  /// logical-rank order; one dimension per physical component of the axis.
  std::vector<Group> groups(int axis) const;
  /// groups(axis).front() without building the others: the group through the chip whose
  /// logical coordinates are all 0. (There are chips / axes()[axis].size groups.)
  Group first_group(int axis) const;
  /// "tp: x[0:8]; dp: x[/8 ×2], y; pp: z" — how each logical axis sits on the machine.
  std::string describe() const;
  /// Where logical axis `axis` sits: "x y[2]", "y[4 every 2] z", "-" when it has no component.
  std::string describe_axis(int axis) const;

 private:
  /// The group along `axis` through the chip at `logical` (whose `axis` coordinate is
  /// overwritten).
  Group group_through(int axis, std::vector<int> logical) const;

  const Topology* topo_;
  std::vector<LogicalAxis> axes_;
};

}  // namespace podsim::topology
