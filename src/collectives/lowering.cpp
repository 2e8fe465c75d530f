#include "collectives/lowering.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "collectives/lowering_steps.hpp"
#include "util/error.hpp"

namespace podsim::collectives {

namespace {

struct AxisMix {
  bool inner = false;  // ICI or node switch
  bool outer = false;  // DCN or scale-out
  bool all_grid = true;
  std::string non_grid_axis;
};

AxisMix classify(const topology::Topology& topo, const Group& group) {
  AxisMix mix;
  for (const auto& dim : group.dims) {
    const auto& axis = topo.axes()[static_cast<std::size_t>(dim.axis)];
    if (dim.size < 2) continue;
    const bool outer = topology::is_slow_tier(axis.tier);
    (outer ? mix.outer : mix.inner) = true;
    if (axis.tier != topology::LinkTier::kIci) {
      mix.all_grid = false;
      if (mix.non_grid_axis.empty()) mix.non_grid_axis = axis.name;
    }
  }
  return mix;
}

std::string op_str(Op op) { return std::string(op_name(op)); }

}  // namespace

int broadcast_pieces(std::uint32_t n, std::uint64_t bytes, double bandwidth_Bps,
                     SimTime latency_ps) {
  if (n <= 2 || latency_ps <= 0) return n <= 2 ? 1 : 64;
  const double alpha_s = to_seconds(latency_ps);
  const double best = std::sqrt((n - 2.0) * static_cast<double>(bytes) / (bandwidth_Bps * alpha_s));
  return static_cast<int>(std::clamp(std::lround(best), 1L, 64L));
}

namespace {

/// Why `a` cannot run `op` on `group`, with what to use instead; empty when it can.
std::string why_not(Algorithm a, Op op, std::uint32_t n, const AxisMix& mix) {
  switch (a) {
    case Algorithm::kBidirectionalRing:
      if (n < 3) {
        return "a bidirectional ring needs at least 3 chips, but this group has " + std::to_string(n) +
               " (both directions would join the same pair); use ring";
      }
      if (op == Op::kAllToAll || op == Op::kSendRecv) {
        return op_str(op) + " has no bidirectional-ring form; use ring" +
               (op == Op::kAllToAll ? " (pairwise exchange) or torus" : "");
      }
      return "";
    case Algorithm::kTorus:
      if (!mix.all_grid) {
        return "the torus algorithm runs on ICI grid axes, but axis \"" + mix.non_grid_axis +
               "\" is not one; use hierarchical, dimension-ordered or ring";
      }
      if (op == Op::kSendRecv) return "send-recv has no torus form; use ring";
      return "";
    case Algorithm::kHierarchical:
      if (!(mix.inner && mix.outer)) {
        return "the hierarchical algorithm needs a group that spans both a fast tier (ICI or node switch) and a "
               "slow one (DCN or scale-out); add the slice or node axis, or use " +
               std::string(mix.all_grid ? "torus" : "ring");
      }
      if (op != Op::kAllReduce && op != Op::kReduceScatter && op != Op::kAllGather) {
        return op_str(op) + " has no hierarchical form; use ring";
      }
      return "";
    case Algorithm::kDimensionOrdered:
      if (op != Op::kAllReduce && op != Op::kReduceScatter && op != Op::kAllGather) {
        return op_str(op) + " has no dimension-ordered form (it reduce-scatters and all-gathers along each axis); use ring";
      }
      return "";
    default:
      return "";
  }
}

/// What kAuto means on this machine for this group when no policy or NCCL decides.
Algorithm default_choice(Op op, const AxisMix& mix) {
  if (op == Op::kSendRecv) return Algorithm::kRing;
  if (mix.inner && mix.outer && op != Op::kAllToAll && op != Op::kBroadcast) return Algorithm::kHierarchical;
  return mix.all_grid ? Algorithm::kTorus : Algorithm::kRing;
}

}  // namespace

Algorithm resolve_algorithm(const topology::Topology& topo, const CollectiveSpec& spec,
                            const Group& group) {
  const std::uint32_t n = group.size();
  if (n < 2) {
    throw InputError("a collective needs at least 2 chips, but this group has " +
                     std::to_string(n) + "; choose axes with more than one chip");
  }
  const AxisMix mix = classify(topo, group);
  Algorithm a = spec.algorithm;
  if (a == Algorithm::kAuto) {
    // The machine's policy first, where its algorithm can run this operation here.
    const Algorithm preferred = topo.collectives().algorithm;
    a = preferred != Algorithm::kAuto && why_not(preferred, spec.op, n, mix).empty() ? preferred
                                                                                      : default_choice(spec.op, mix);
  }
  const std::string reason = why_not(a, spec.op, n, mix);
  if (!reason.empty()) throw InputError(reason);
  return a;
}

void lower_collective(const topology::Topology& topo, const CollectiveSpec& spec,
                      const std::vector<Group>& groups, std::uint32_t collective_index,
                      Schedule& schedule) {
  if (groups.empty()) return;
  const Algorithm algorithm = resolve_algorithm(topo, spec, groups.front());
  schedule.begin_collective(collective_index);
  const Frontier start(topo.vertices());
  Frontier end(topo.vertices());
  if (algorithm == Algorithm::kHierarchical) {
    detail::lower_hierarchical(topo, spec, groups, start, end, schedule);
    return;
  }
  for (const Group& g : groups) {
    if (algorithm == Algorithm::kTorus) {
      detail::lower_torus(topo, spec, g, start, end, schedule);
    } else if (algorithm == Algorithm::kDimensionOrdered) {
      detail::lower_dimension_ordered(topo, spec, g, start, end, schedule);
    } else {
      detail::lower_ring(topo, spec, g, algorithm == Algorithm::kBidirectionalRing, start, end,
                         schedule);
    }
  }
}

}  // namespace podsim::collectives
