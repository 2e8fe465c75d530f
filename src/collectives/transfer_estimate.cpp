#include "collectives/transfer_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "collectives/lowering.hpp"
#include "collectives/lowering_steps.hpp"
#include "collectives/nccl_lowering.hpp"
#include "collectives/nccl_tuning.hpp"

namespace podsim::collectives {

namespace {

/// A dimension of a group as the lowerings see it.
struct Extent {
  double size = 1;
  bool wraps = false;
  int axis = 0;
};

std::vector<Extent> active(const Group& group) {
  std::vector<Extent> out;
  for (const auto& d : group.dims) {
    if (d.size > 1) out.push_back({static_cast<double>(d.size), d.wraps, d.axis});
  }
  return out;
}

/// One ring (ring_lowering.cpp) over n chips, `directions` ways round. `period`: lowered
/// alone, so where its hops are all alike it runs as a ring of two (ring_of_two).
double ring(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group, double directions,
            bool period = false) {
  const double n = group.size();
  const bool passes = spec.op == Op::kAllReduce || spec.op == Op::kReduceScatter || spec.op == Op::kAllGather;
  const double members = period && passes && n >= 4 && detail::ring_of_two(topo, group, directions > 1) ? 2 : n;
  switch (spec.op) {
    case Op::kAllReduce: return directions * 2 * (n - 1) * members;
    case Op::kReduceScatter:
    case Op::kAllGather: return directions * (n - 1) * members;
    case Op::kAllToAll: return directions * n * (n - 1);
    case Op::kBroadcast: {
      const auto& axis = topo.axes()[static_cast<std::size_t>(group.dims[0].axis)];
      const std::uint64_t bytes = directions > 1 ? (spec.bytes + 1) / 2 : spec.bytes;
      return directions * broadcast_pieces(group.size(), bytes, axis.link_bandwidth_Bps, axis.link_latency_ps) * (n - 1);
    }
    case Op::kSendRecv: return directions * n;
  }
  return 0;
}

/// One reduce-scatter or all-gather phase along a dimension of a group of n chips
/// (torus_lowering.cpp axis_phase): every line, both ways round a wrapped axis of 3 or more.
double axis_phase(const Extent& e, double n) {
  return e.wraps && e.size >= 3 ? 2 * std::floor(e.size / 2) * n : (e.size - 1) * n;
}

/// The torus lowering (torus_lowering.cpp) of a group of n chips. `period`: lowered alone,
/// so where its first lines are rotation-symmetric (torus_lines_alike) it runs on one line per
/// axis (the other lines assumed copies of the first, as on a uniform torus).
double torus(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group, bool period) {
  const std::vector<Extent> axes = active(group);
  const double n = group.size();
  const auto d = static_cast<double>(axes.size());
  const bool passes = spec.op == Op::kAllReduce || spec.op == Op::kReduceScatter || spec.op == Op::kAllGather;
  const bool lines = period && passes && detail::torus_lines_alike(topo, group);
  const bool two = period && passes && !lines && detail::torus_ring_of_two(topo, group);
  double phases = 0;
  for (const auto& e : axes) phases += axis_phase(e, two ? 2 : lines ? e.size : n);
  switch (spec.op) {
    case Op::kAllReduce: return d * 2 * phases;  // one piece per axis, each scatters and gathers along all
    case Op::kReduceScatter:
    case Op::kAllGather: return d * phases;
    case Op::kAllToAll: {
      double total = 0;
      for (const auto& e : axes) total += n * (e.size - 1);
      return total;
    }
    case Op::kBroadcast: {
      double total = 0;
      double holding = 1;  // lines that hold the data: one per chip of the axes done
      for (const auto& e : axes) {
        const auto& axis = topo.axes()[static_cast<std::size_t>(e.axis)];
        total += holding * broadcast_pieces(static_cast<std::uint32_t>(e.size), spec.bytes, axis.link_bandwidth_Bps,
                                            axis.link_latency_ps) *
                 (e.size - 1);
        holding *= e.size;
      }
      return total;
    }
    case Op::kSendRecv: return 0;
  }
  return 0;
}

/// The dimension-ordered lowering: one ring per line along each dimension in turn.
double dimension_ordered(const CollectiveSpec& spec, const Group& group) {
  double steps = 0;
  for (const auto& e : active(group)) steps += e.size - 1;
  const double n = group.size();
  return (spec.op == Op::kAllReduce ? 2 : 1) * n * steps;
}

/// The hierarchical lowering: inside slices or nodes (torus on an ICI grid, else a ring),
/// across them on the shard (a ring), inside again, in hierarchical_pieces pieces. `period`:
/// lowered alone, so with 3 or more slices only the first two run, each ring across them a
/// ring of two with the full ring's steps (lower_hierarchical; the slices assumed alike).
double hierarchical(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group, bool period) {
  const detail::TierDims dims = detail::tier_dims(topo, group);
  const Group inner = split(group, dims.inner).front();
  const Group outer = split(group, dims.outer).front();
  const double n = group.size();
  const double slices = outer.size();
  const bool two = period && slices >= 3;
  const double inner_groups = n / inner.size() * (two ? 2 / slices : 1);
  const double outer_groups = n / outer.size();
  const bool grid = topo.axes()[static_cast<std::size_t>(inner.dims[0].axis)].tier == topology::LinkTier::kIci;
  const auto inside = [&](Op op) {
    const CollectiveSpec s{op, grid ? Algorithm::kTorus : Algorithm::kRing, spec.bytes};
    return inner_groups * (grid ? torus(topo, s, inner, false) : ring(topo, s, inner, 1));
  };
  const auto across = [&](Op op) {
    const double each = ring(topo, CollectiveSpec{op, Algorithm::kRing, 1}, outer, 1);
    return outer_groups * (two ? each * 2 / slices : each);  // a ring of 2 with the ring's steps
  };
  const double pieces = detail::hierarchical_pieces(topo, spec, inner, outer);
  switch (spec.op) {
    case Op::kAllReduce: return pieces * (inside(Op::kReduceScatter) + across(Op::kAllReduce) + inside(Op::kAllGather));
    case Op::kReduceScatter: return pieces * (inside(Op::kReduceScatter) + across(Op::kReduceScatter));
    case Op::kAllGather: return pieces * (across(Op::kAllGather) + inside(Op::kAllGather));
    default: return 0;
  }
}

/// NCCL's lowering of `algorithm` (nccl_lowering.cpp) on a group of `nodes` nodes with `g`
/// GPUs each. `alone`: the only group of an empty schedule. With `spec` (bytes and protocol)
/// a tree's and a broadcast's pieces are NCCL's; without, every piece count at its cap.
double nccl_lowering(Algorithm algorithm, Op op, double nodes, double g, bool alone, const CollectiveSpec* spec) {
  const double n = nodes * g;
  const double channels = nodes > 1 ? g : 1;
  const auto proto = spec ? nccl::from_protocol(spec->protocol) : nccl::Proto::kLL;
  if (op == Op::kBroadcast) {
    return (spec ? detail::broadcast_pieces(static_cast<double>(spec->bytes), proto) : double{detail::kMaxPieces}) * (n - 1);
  }
  switch (algorithm) {
    case Algorithm::kTree: {
      const double trees = channels * (nodes > 1 ? 2 : 1);
      const double cap = std::clamp(detail::kTreeTransferBudget / (2 * n * trees), 4.0, 2048.0);
      const double pieces = spec ? detail::tree_pieces(static_cast<double>(spec->bytes) / trees, proto, n, trees) : cap;
      return pieces * trees * 2 * (n - 1);
    }
    case Algorithm::kNvls: return double{detail::kMaxPieces} * (op == Op::kAllReduce ? 4 : 2) * n;
    case Algorithm::kNvlsTree: return double{detail::kMaxPieces} * (4 * n + 4 * g * (nodes - 1));
    case Algorithm::kCollNet: return double{detail::kMaxPieces} * (2 * nodes * g * (g - 1) + 2 * n);
    default: {
      // A ring over an even number (4+) of identical nodes lowered alone is simulated as its
      // two-node period (ring_images); assumed so here.
      const double length = alone && nodes >= 4 && std::fmod(nodes, 2) == 0 ? 2 * g : n;
      return channels * (op == Op::kAllReduce ? 2 : 1) * (n - 1) * length;
    }
  }
}

/// What a transfer of algorithm `a` costs relative to a ring's (kTreeTransferWeight).
double weight(Algorithm a, bool nccl) {
  return nccl && (a == Algorithm::kTree || a == Algorithm::kNvlsTree) ? kTreeTransferWeight : 1.0;
}

}  // namespace

double estimate_transfers(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group,
                          std::size_t groups, Symmetry symmetry) {
  const Resolved resolved = resolve_collective(topo, spec, group);
  const auto count = static_cast<double>(groups);
  const bool period = symmetry == Symmetry::kPeriod;
  if (resolved.protocol != Protocol::kAuto) {
    const CollectiveSpec spec_resolved{spec.op, resolved.algorithm, spec.bytes, resolved.protocol};
    const auto system = detail::nccl_system(topo, group);
    const double nodes = system ? system->nodes : 1;
    return count * nccl_lowering(resolved.algorithm, spec.op, nodes, group.size() / nodes, period && groups == 1,
                                 &spec_resolved);
  }
  switch (resolved.algorithm) {
    case Algorithm::kHierarchical: return count * hierarchical(topo, spec, group, period);
    case Algorithm::kTorus: return count * torus(topo, spec, group, period && groups == 1);
    case Algorithm::kDimensionOrdered: return count * dimension_ordered(spec, group);
    case Algorithm::kBidirectionalRing: return count * ring(topo, spec, group, 2, period && groups == 1);
    default: return count * ring(topo, spec, group, 1, period && groups == 1);
  }
}

double estimate_cost(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group,
                     std::size_t groups, Symmetry symmetry) {
  const Resolved resolved = resolve_collective(topo, spec, group);
  return estimate_transfers(topo, spec, group, groups, symmetry) *
         weight(resolved.algorithm, resolved.protocol != Protocol::kAuto);
}

double max_cost(const topology::Topology& topo, Op op, const Group& group, std::size_t groups) {
  // Transfer counts do not depend on the size but for the pieces of a broadcast (at most 64)
  // or a hierarchical collective (at most 8) and NCCL's choice of algorithm: a large message
  // stands for the first, every algorithm NCCL could choose for the second.
  // A hierarchical collective's pieces grow with the size up to kMaxHierarchicalPieces (or
  // are the topology's collectives.pieces): its count at the large message is scaled to that.
  const CollectiveSpec large{op, Algorithm::kAuto, std::uint64_t{1} << 30};
  const auto system = detail::nccl_system(topo, group);
  if (!system || !nccl::tuned(op)) {
    const double cost = estimate_cost(topo, large, group, groups);
    if (resolve_algorithm(topo, large, group) != Algorithm::kHierarchical) return cost;
    const int most = topo.collectives().hierarchical_pieces > 0 ? topo.collectives().hierarchical_pieces
                                                                : kMaxHierarchicalPieces;
    return cost * most / detail::hierarchical_pieces(topo, large, group);
  }
  const double nodes = system->nodes;
  const double g = group.size() / nodes;
  double most = 0;
  for (Algorithm a : {Algorithm::kRing, Algorithm::kTree, Algorithm::kNvls, Algorithm::kNvlsTree, Algorithm::kCollNet}) {
    const bool possible = a == Algorithm::kRing || (a == Algorithm::kTree && op == Op::kAllReduce) ||
                          ((a == Algorithm::kNvls || a == Algorithm::kNvlsTree) && system->nvls) ||
                          (a == Algorithm::kCollNet && system->collnet && op == Op::kAllReduce);
    if (possible) most = std::max(most, nccl_lowering(a, op, nodes, g, groups == 1, nullptr) * weight(a, true));
  }
  return static_cast<double>(groups) * most;
}

}  // namespace podsim::collectives
