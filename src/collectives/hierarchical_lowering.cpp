#include <algorithm>

#include "collectives/lowering.hpp"
#include "collectives/lowering_steps.hpp"

namespace podsim::collectives::detail {

namespace {

/// Reduce-scatter or all-gather inside every slice/node: the torus algorithm on an ICI
/// grid, a ring through a node switch.
void inner_phase(const topology::Topology& topo, Op op, std::uint64_t bytes,
                 const std::vector<Group>& inner, const Frontier& start, Frontier& end,
                 Schedule& schedule) {
  lower_concurrently(schedule, inner, [&](const Group& g) {
    const bool grid = topo.axes()[static_cast<std::size_t>(g.dims[0].axis)].tier == topology::LinkTier::kIci;
    const CollectiveSpec spec{op, grid ? Algorithm::kTorus : Algorithm::kRing, bytes};
    if (grid) {
      lower_torus(topo, spec, g, start, end, schedule);
    } else {
      lower_ring(topo, spec, g, false, start, end, schedule);
    }
  });
}

}  // namespace

void lower_hierarchical(const topology::Topology& topo, const CollectiveSpec& spec,
                        const std::vector<Group>& groups, const Frontier& start, Frontier& end,
                        Schedule& schedule) {
  // Split every group into its fast-tier part (inside slices/nodes) and its slow-tier part.
  std::vector<std::size_t> inner_dims;
  std::vector<std::size_t> outer_dims;
  const Group& shape = groups.front();
  for (std::size_t d = 0; d < shape.dims.size(); ++d) {
    if (shape.dims[d].size < 2) continue;
    (topology::is_slow_tier(topo.axes()[static_cast<std::size_t>(shape.dims[d].axis)].tier) ? outer_dims : inner_dims).push_back(d);
  }
  std::vector<Group> inner;
  std::vector<Group> outer;
  for (const Group& g : groups) {
    for (Group& s : split(g, inner_dims)) inner.push_back(std::move(s));
    for (Group& s : split(g, outer_dims)) outer.push_back(std::move(s));
  }
  std::uint64_t inner_size = inner.front().size();
  // After the inner reduce-scatter each chip holds 1/inner_size of the array; only that
  // shard crosses the slow network.
  const std::uint64_t shard = share(spec.bytes, inner_size);

  Frontier current = start;
  bool first = true;
  auto run = [&](auto&& phase) {
    if (!first) schedule.next_phase();
    first = false;
    Frontier next(current.chips());
    phase(current, next);
    current = std::move(next);
  };
  auto outer_phase = [&](Op op) {
    run([&](const Frontier& s, Frontier& e) {
      lower_concurrently(schedule, outer, [&](const Group& g) {
        lower_ring(topo, CollectiveSpec{op, Algorithm::kRing, shard}, g, false, s, e, schedule);
      });
    });
  };
  auto inner_step = [&](Op op) {
    run([&](const Frontier& s, Frontier& e) { inner_phase(topo, op, spec.bytes, inner, s, e, schedule); });
  };

  switch (spec.op) {
    case Op::kAllReduce:
      inner_step(Op::kReduceScatter);
      outer_phase(Op::kAllReduce);
      inner_step(Op::kAllGather);
      break;
    case Op::kReduceScatter:
      inner_step(Op::kReduceScatter);
      outer_phase(Op::kReduceScatter);
      break;
    case Op::kAllGather:
      outer_phase(Op::kAllGather);
      inner_step(Op::kAllGather);
      break;
    default:
      break;  // rejected by resolve_algorithm
  }
  end.merge(current);
}

}  // namespace podsim::collectives::detail
