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
    if (spec.op == Op::kSendRecv) {
      a = Algorithm::kRing;
    } else if (mix.inner && mix.outer && spec.op != Op::kAllToAll && spec.op != Op::kBroadcast) {
      a = Algorithm::kHierarchical;
    } else if (mix.all_grid) {
      a = Algorithm::kTorus;
    } else {
      a = Algorithm::kRing;
    }
  }
  switch (a) {
    case Algorithm::kBidirectionalRing:
      if (n < 3) {
        throw InputError("a bidirectional ring needs at least 3 chips, but this group has " +
                         std::to_string(n) + " (both directions would join the same pair); use ring");
      }
      if (spec.op == Op::kAllToAll || spec.op == Op::kSendRecv) {
        throw InputError(op_str(spec.op) + " has no bidirectional-ring form; use ring" +
                         (spec.op == Op::kAllToAll ? " (pairwise exchange) or torus" : ""));
      }
      break;
    case Algorithm::kTorus:
      if (!mix.all_grid) {
        throw InputError("the torus algorithm runs on ICI grid axes, but axis \"" +
                         mix.non_grid_axis + "\" is not one; use hierarchical or ring");
      }
      if (spec.op == Op::kSendRecv) {
        throw InputError("send-recv has no torus form; use ring");
      }
      break;
    case Algorithm::kHierarchical:
      if (!(mix.inner && mix.outer)) {
        throw InputError(
            "the hierarchical algorithm needs a group that spans both a fast tier (ICI or node "
            "switch) and a slow one (DCN or scale-out); add the slice or node axis, or use " +
            std::string(mix.all_grid ? "torus" : "ring"));
      }
      if (spec.op != Op::kAllReduce && spec.op != Op::kReduceScatter && spec.op != Op::kAllGather) {
        throw InputError(op_str(spec.op) + " has no hierarchical form; use ring");
      }
      break;
    default:
      break;
  }
  return a;
}

void lower_collective(const topology::Topology& topo, const CollectiveSpec& spec,
                      const std::vector<Group>& groups, std::uint32_t collective_index,
                      Schedule& schedule) {
  if (groups.empty()) return;
  const Algorithm algorithm = resolve_algorithm(topo, spec, groups.front());
  schedule.begin_collective(collective_index);
  const Frontier start(topo.chips());
  Frontier end(topo.chips());
  if (algorithm == Algorithm::kHierarchical) {
    detail::lower_hierarchical(topo, spec, groups, start, end, schedule);
    return;
  }
  for (const Group& g : groups) {
    if (algorithm == Algorithm::kTorus) {
      detail::lower_torus(topo, spec, g, start, end, schedule);
    } else {
      detail::lower_ring(topo, spec, g, algorithm == Algorithm::kBidirectionalRing, start, end,
                         schedule);
    }
  }
}

}  // namespace podsim::collectives
