#include <algorithm>
#include <optional>

#include "collectives/link_images.hpp"
#include "collectives/lowering.hpp"
#include "collectives/lowering_steps.hpp"

namespace podsim::collectives::detail {

std::uint64_t share(std::uint64_t bytes, std::uint64_t parts) {
  return std::max<std::uint64_t>(1, (bytes + parts - 1) / parts);
}

std::vector<ChipId> reversed_from_first(const std::vector<ChipId>& order) {
  std::vector<ChipId> r{order[0]};
  r.insert(r.end(), order.rbegin(), order.rend() - 1);
  return r;
}

// Every member of such a ring does what every other does at the same time.
std::optional<Schedule::Images> ring_of_two_images(const topology::Topology& topo,
                                                   const std::vector<std::vector<ChipId>>& rings) {
  LinkImageBuilder images(topo);
  const auto& first = rings.front();
  for (const auto& ring : rings) {
    const std::size_t n = ring.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (!alike_routes(topo, first[0], first[1], ring[i], ring[(i + 1) % n])) return std::nullopt;
      if (!images.pair(ring[i % 2], ring[(i + 1) % 2], ring[i], ring[(i + 1) % n], static_cast<std::uint32_t>(i))) {
        return std::nullopt;
      }
    }
  }
  return images.images();
}

namespace {

std::vector<std::vector<ChipId>> ring_directions(const std::vector<ChipId>& order, bool bidirectional) {
  return bidirectional ? std::vector<std::vector<ChipId>>{order, reversed_from_first(order)}
                       : std::vector<std::vector<ChipId>>{order};
}

}  // namespace

bool ring_of_two(const topology::Topology& topo, const Group& group, bool bidirectional) {
  const auto order = ring_order(topo, group);
  return order.size() >= 4 && ring_of_two_images(topo, ring_directions(order, bidirectional)).has_value();
}

void lower_ring(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group, bool bidirectional,
                bool alone, const Frontier& start, Frontier& end, Schedule& schedule) {
  const std::vector<ChipId> order = ring_order(topo, group);
  const auto n = static_cast<int>(order.size());
  // A bidirectional ring sends half the data each way round.
  const std::uint64_t bytes = bidirectional ? share(spec.bytes, 2) : spec.bytes;
  auto directions = ring_directions(order, bidirectional);
  // Alone on its schedule, a ring of 4 or more whose hops are all alike runs as a ring of two
  // standing for it (ring_of_two_images): each member sends its step k when its neighbours do.
  const bool passes = spec.op == Op::kAllReduce || spec.op == Op::kReduceScatter || spec.op == Op::kAllGather;
  if (alone && passes && n >= 4) {
    if (auto images = ring_of_two_images(topo, directions)) {
      schedule.set_images(std::move(*images));
      for (auto& ring : directions) ring.resize(2);
    }
  }
  for (const auto& ring : directions) {
    switch (spec.op) {
      case Op::kAllReduce:
        ring_pass(schedule, ring, 2 * (n - 1), share(bytes, static_cast<std::uint64_t>(n)), start, end);
        break;
      case Op::kReduceScatter:
      case Op::kAllGather:
        ring_pass(schedule, ring, n - 1, share(bytes, static_cast<std::uint64_t>(n)), start, end);
        break;
      case Op::kAllToAll:
        pairwise_exchange(schedule, group.chips, share(bytes, static_cast<std::uint64_t>(n)), start, end);
        break;
      case Op::kBroadcast: {
        const auto& axis = topo.axes()[static_cast<std::size_t>(group.dims[0].axis)];
        const int pieces = broadcast_pieces(static_cast<std::uint32_t>(n), bytes,
                                            axis.link_bandwidth_Bps, axis.link_latency_ps);
        chain_pass(schedule, ring, pieces, share(bytes, static_cast<std::uint64_t>(pieces)), start, end);
        break;
      }
      case Op::kSendRecv:
        ring_pass(schedule, ring, 1, std::max<std::uint64_t>(bytes, 1), start, end);
        break;
    }
  }
}

}  // namespace podsim::collectives::detail
