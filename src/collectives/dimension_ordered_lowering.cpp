// Dimension-ordered collectives: ASTRA-sim's multi-dimensional ring and NCCL's
// hierarchical form. The group's dimensions (x, y, z of a grid, slice; gpu, node of a GPU
// cluster) are taken in order: reduce-scatter along the first on the whole array, along
// the second on the 1/n1 shard it left, …, all-reduce along the last, then all-gather
// back in reverse order. Every phase is one ring per line along that dimension, one way
// round (natural order on a wrapped axis or through a switch, folded on an open ICI axis).
//
// Invariant (uncontended, docs/collectives.md): with n_i chips, per-step latency α_i and
// link bandwidth B_i on dimension i, and P_i = n_1⋯n_i (P_0 = 1),
//   reduce-scatter = all-gather = Σ_i [(n_i−1)·α_i + (n_i−1)/n_i · S/(P_{i−1}·B_i)],
//   all-reduce = 2 × that sum.
#include "collectives/lowering.hpp"
#include "collectives/lowering_steps.hpp"

namespace podsim::collectives::detail {

namespace {

/// One phase along `dim`: every line runs a ring of `steps` steps moving `chunk` bytes.
void ring_phase(const topology::Topology& topo, const Group& group, std::size_t dim, int steps,
                std::uint64_t chunk, const Frontier& start, Frontier& end, Schedule& schedule) {
  const auto& d = group.dims[dim];
  const bool natural = d.wraps || topo.axes()[static_cast<std::size_t>(d.axis)].tier != topology::LinkTier::kIci;
  for (const auto& line : lines_along(group, dim)) {
    ring_pass(schedule, ring_order_of_line(line, natural), steps, chunk, start, end);
  }
}

}  // namespace

void lower_dimension_ordered(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group,
                             const Frontier& start, Frontier& end, Schedule& schedule) {
  std::vector<std::size_t> dims;
  for (std::size_t i = 0; i < group.dims.size(); ++i) {
    if (group.dims[i].size > 1) dims.push_back(i);
  }
  // array[i]: bytes of the array phase i works on (S / P_{i−1}).
  std::vector<std::uint64_t> array{spec.bytes};
  for (std::size_t i : dims) array.push_back(share(array.back(), static_cast<std::uint64_t>(group.dims[i].size)));

  Frontier current = start;
  bool first = true;
  auto phase = [&](std::size_t k, int steps_per_n_minus_1) {
    if (!first) schedule.next_phase();
    first = false;
    const std::size_t dim = dims[k];
    const auto n = static_cast<std::uint64_t>(group.dims[dim].size);
    Frontier next(current.chips());
    ring_phase(topo, group, dim, steps_per_n_minus_1 * static_cast<int>(n - 1), share(array[k], n), current, next,
               schedule);
    current = std::move(next);
  };
  const std::size_t last = dims.size() - 1;
  switch (spec.op) {
    case Op::kAllReduce:
      for (std::size_t k = 0; k < last; ++k) phase(k, 1);
      phase(last, 2);  // all-reduce on the last dimension: its reduce-scatter and all-gather
      for (std::size_t k = last; k-- > 0;) phase(k, 1);
      break;
    case Op::kReduceScatter:
      for (std::size_t k = 0; k <= last; ++k) phase(k, 1);
      break;
    case Op::kAllGather:
      for (std::size_t k = last + 1; k-- > 0;) phase(k, 1);
      break;
    default:
      break;  // rejected by resolve_algorithm
  }
  end.merge(current);
}

}  // namespace podsim::collectives::detail
