#pragma once

// Building blocks shared by the algorithm lowerings (internal to collectives).

#include <algorithm>
#include <optional>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "collectives/group.hpp"
#include "collectives/schedule.hpp"

namespace podsim::collectives::detail {

/// Lowers every item of `items` with `lower(item)`, all from the schedule's current phase
/// (they run at once); the schedule's phase is then the last any of them reached.
template <typename Items, typename Lower>
void lower_concurrently(Schedule& schedule, const Items& items, Lower&& lower) {
  const std::uint32_t base = schedule.phase();
  std::uint32_t last = base;
  for (const auto& item : items) {
    schedule.set_phase(base);
    lower(item);
    last = std::max(last, schedule.phase());
  }
  schedule.set_phase(last);
}

/// ceil(a / b) for sizes; at least 1 byte so every step still moves (and times) something.
std::uint64_t share(std::uint64_t bytes, std::uint64_t parts);

/// The same cycle walked the other way, still starting at order[0].
std::vector<ChipId> reversed_from_first(const std::vector<ChipId>& order);

/// Ring and bidirectional-ring lowering of every op over one group's ring order. `alone`: the
/// group is the only one of an empty schedule, so where every hop is alike the ring runs as a
/// ring of two standing for it through link images.
void lower_ring(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group, bool bidirectional,
                bool alone, const Frontier& start, Frontier& end, Schedule& schedule);

/// What of a torus collective is simulated (lower_torus): every line; the first line along
/// each axis, every other line's chips waiting as their counterparts on it; or, for a group of
/// one line, its first two chips as a ring of two with the full ring's steps.
enum class LinePeriod { kWhole, kFirstLine, kRingOfTwo };

/// Reduce-scatter or all-gather of an array of `bytes` along one axis of `group`: on every
/// line along that axis at once, a bidirectional ring where the axis wraps (3+ chips), else a
/// folded ring; as much of it as `period` says.
void axis_phase(const Group& group, std::size_t axis_pos, std::uint64_t bytes, LinePeriod period,
                const Frontier& start, Frontier& end, Schedule& schedule);

/// The link images that let `rings` (cycles of chips), alone on their schedule, run as rings
/// of two (each its first two members) with the full rings' steps and chunk; nothing when
/// they must run whole: every hop of every ring must cross links like the first ring's first
/// hop, on links of its own (hop i is then an image of the ring of two's hop i mod 2).
std::optional<Schedule::Images> ring_of_two_images(const topology::Topology& topo,
                                                   const std::vector<std::vector<ChipId>>& rings);

/// Whether a torus collective of `group`, a group of one line (4 or more chips), alone on its
/// schedule runs as a ring of two (ring_of_two_images).
bool torus_ring_of_two(const topology::Topology& topo, const Group& group);

/// Whether every ring of the first line along each of `group`'s axes (2 or more of them) is
/// rotation-symmetric: each axis wraps round (or has 2 chips) and every hop crosses links like
/// the first hop's. What lower_torus checks first before running one line per axis (it then
/// also checks that every line is a copy of the first on links of its own).
bool torus_lines_alike(const topology::Topology& topo, const Group& group);

/// Whether a ring (bidirectional: both ways) through `group`, alone on its schedule, runs as a
/// ring of two (its hops all alike, on links of their own).
bool ring_of_two(const topology::Topology& topo, const Group& group, bool bidirectional);

/// Multi-dimensional torus lowering (per-axis phases on every axis at once). `alone`: the
/// group is the only one of a schedule that holds nothing else, so where every line along an
/// axis is alike only the first is simulated, standing for the others through link images.
void lower_torus(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group, bool alone,
                 const Frontier& start, Frontier& end, Schedule& schedule);

/// Dimension-ordered lowering: reduce-scatter along each dimension in turn, all-reduce on
/// the last, all-gather back in reverse order, one ring per line.
void lower_dimension_ordered(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group,
                             const Frontier& start, Frontier& end, Schedule& schedule);

/// The dimensions of `group` (positions in group.dims, of 2 or more chips) on the fast tier
/// (inside slices or nodes) and on the slow one (across them): a hierarchical collective's parts.
struct TierDims {
  std::vector<std::size_t> inner;
  std::vector<std::size_t> outer;
};
TierDims tier_dims(const topology::Topology& topo, const Group& group);

/// How many pieces (1 to kMaxHierarchicalPieces) a hierarchical collective of `spec` over
/// groups of `inner` inside slices (nodes) and `outer` across them is cut into, so that one
/// piece's part across overlaps the next piece's part inside (lower_hierarchical): the
/// topology's collectives.pieces where set, else the count with the shortest time by an α-β
/// estimate of each part on its links. 1: the parts in turn.
int hierarchical_pieces(const topology::Topology& topo, const CollectiveSpec& spec, const Group& inner,
                        const Group& outer);
/// The same for a group that spans both tiers, split into its parts inside and across.
int hierarchical_pieces(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group);

/// Hierarchical lowering over all `groups` at once: inside slices/nodes, across, inside.
/// `alone`: they are all the (empty) schedule holds, so where every slice is a copy of the
/// first two on links of its own only those two are simulated, each ring across them a ring
/// of two with the full ring's steps, standing for the rest through link images.
void lower_hierarchical(const topology::Topology& topo, const CollectiveSpec& spec,
                        const std::vector<Group>& groups, bool alone, const Frontier& start, Frontier& end,
                        Schedule& schedule);

}  // namespace podsim::collectives::detail
