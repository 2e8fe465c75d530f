#include <algorithm>

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

void lower_ring(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group,
                bool bidirectional, const Frontier& start, Frontier& end, Schedule& schedule) {
  const std::vector<ChipId> order = ring_order(topo, group);
  const auto n = static_cast<int>(order.size());
  // A bidirectional ring sends half the data each way round.
  const std::uint64_t bytes = bidirectional ? share(spec.bytes, 2) : spec.bytes;
  const auto directions = bidirectional ? std::vector<std::vector<ChipId>>{order, reversed_from_first(order)}
                                        : std::vector<std::vector<ChipId>>{order};
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
