#pragma once

// One lowered communication that is another on other chips and links: a pipeline's stages on
// a torus run the same data-parallel collective on groups that are translations of each
// other. Where every transfer of one schedule is the other's transfer, in the same order,
// with the same size, phase, dependencies and delays, between chips that correspond one to
// one and in the same order, along routes whose links correspond one to one, in the same
// order and alike (bandwidth, latency, tier, axis, direction), simulating the one is
// simulating the other with its ids renamed: every event happens at the same time and in the
// same order, so the time and each link's load are the same, to the picosecond and the bit.
// NetworkCommModel then measures one stage's and renames it for the others
// (docs/runtime.md §4, "Stages that are images of each other").

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace podsim::runtime {

/// The links of the one schedule's routes and their counterparts in the other's, sorted by
/// the first: an order-preserving one-to-one map.
using LinkRenaming = std::vector<std::pair<topology::LinkId, topology::LinkId>>;

/// The route of a hop (source << 32 | destination).
using RouteOf = std::function<const std::vector<topology::LinkId>&(std::uint64_t)>;

/// Whether schedules that stand for a larger one (a symmetric period, with link images) may be
/// compared: as simulated, their images left out (the caller compares what they stand for).
enum class Periods { kRefuse, kAsSimulated };

/// How `to` is `from` with its chips and links renamed, or nothing when it is not (see the
/// file comment).
std::optional<LinkRenaming> schedule_image(const topology::Topology& topo, const collectives::Schedule& from,
                                           const collectives::Schedule& to, const RouteOf& route,
                                           Periods periods = Periods::kRefuse);

/// Hops that correspond (each pair: one's source << 32 | destination, and the other's): their
/// routes link by link one to one, each onto one alike; the links so paired, or nothing.
/// `keep_order`: the pairing must also keep the links' order (schedule_image's condition).
std::optional<LinkRenaming> routes_image(const topology::Topology& topo,
                                         const std::vector<std::pair<std::uint64_t, std::uint64_t>>& hops,
                                         const RouteOf& route, bool keep_order);

/// The renamed link of `link` (which must be in `renaming`), or nothing.
std::optional<topology::LinkId> renamed_link(const LinkRenaming& renaming, topology::LinkId link);

}  // namespace podsim::runtime
