#include "collectives/lowering.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "collectives/lowering_steps.hpp"
#include "collectives/nccl_lowering.hpp"
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
    case Algorithm::kTree:
    case Algorithm::kNvls:
    case Algorithm::kNvlsTree:
    case Algorithm::kCollNet:
      return std::string(algorithm_name(a)) + " is one of NCCL's algorithms: it needs a GPU cluster whose topology has an "
                                              "nccl section, and all-reduce (nvls also reduce-scatter, all-gather); use ring";
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

bool is_nccl_algorithm(Algorithm a) {
  return a == Algorithm::kRing || a == Algorithm::kTree || a == Algorithm::kNvls || a == Algorithm::kNvlsTree ||
         a == Algorithm::kCollNet;
}

/// NCCL's choice for `a` (kAuto: any) and protocol `p` (kAuto: any) on `system`.
Resolved nccl_choice(const nccl::System& system, Op op, Algorithm a, Protocol p, std::uint64_t bytes) {
  nccl::Allowed allowed;
  if (a != Algorithm::kAuto) {
    for (int i = 0; i < nccl::kAlgos; ++i) {
      allowed.algos[static_cast<std::size_t>(i)] = nccl::to_algorithm(static_cast<nccl::Algo>(i)) == a;
    }
  }
  // podsim lowers CollNet Direct (not Chain), and only for all-reduce.
  allowed.algos[static_cast<std::size_t>(nccl::Algo::kCollNetChain)] = false;
  if (op != Op::kAllReduce) allowed.algos[static_cast<std::size_t>(nccl::Algo::kCollNetDirect)] = false;
  if (p != Protocol::kAuto) {
    for (int i = 0; i < nccl::kProtos; ++i) {
      allowed.protos[static_cast<std::size_t>(i)] = nccl::to_protocol(static_cast<nccl::Proto>(i)) == p;
    }
  }
  const nccl::Model model = nccl::tune(system);
  nccl::Choice choice;
  try {
    choice = nccl::choose(model, op, bytes, allowed);
  } catch (const InputError&) {
    std::string why = std::string(algorithm_name(a)) + (p == Protocol::kAuto ? "" : " with protocol " + std::string(protocol_name(p))) +
                      " cannot run " + op_str(op) + " on this group";
    if (a == Algorithm::kNvls || a == Algorithm::kNvlsTree) {
      why += ": NVLS needs nvls: true in the topology's nccl section and 2 or more GPUs of each node in the group" +
             std::string(system.nodes > 1 ? " (and, across nodes, collnet: true or nvls-tree)" : "");
    } else if (a == Algorithm::kCollNet) {
      why += ": CollNet needs collnet: true in the topology's nccl section and a group across nodes";
    } else if (a == Algorithm::kNvlsTree) {
      why += ": it needs a group across nodes";
    }
    throw InputError(why + (p == Protocol::kAuto ? "; use ring" : "; NVLS and CollNet use protocol simple"));
  }
  return Resolved{nccl::to_algorithm(choice.algo), nccl::to_protocol(choice.proto), choice.predicted_us * 1e-6,
                  nccl::ctas(model, choice, bytes)};
}

}  // namespace

Resolved resolve_collective(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group) {
  const std::uint32_t n = group.size();
  if (n < 2) {
    throw InputError("a collective needs at least 2 chips, but this group has " +
                     std::to_string(n) + "; choose axes with more than one chip");
  }
  const AxisMix mix = classify(topo, group);
  const auto& policy = topo.collectives();
  const auto system = detail::nccl_system(topo, group);
  const bool by_nccl = system.has_value() && nccl::tuned(spec.op);
  Algorithm a = spec.algorithm;
  const Protocol p = spec.protocol != Protocol::kAuto ? spec.protocol : policy.protocol;
  if (a == Algorithm::kAuto && policy.algorithm != Algorithm::kAuto) {
    // The machine's policy, where its algorithm can run this operation here.
    if (by_nccl && is_nccl_algorithm(policy.algorithm)) {
      try {
        return nccl_choice(*system, spec.op, policy.algorithm, p, spec.bytes);
      } catch (const InputError&) {
        // not here: NCCL chooses
      }
    } else if (why_not(policy.algorithm, spec.op, n, mix).empty()) {
      a = policy.algorithm;
    }
  }
  if (by_nccl && (a == Algorithm::kAuto || is_nccl_algorithm(a))) return nccl_choice(*system, spec.op, a, p, spec.bytes);
  if (spec.protocol != Protocol::kAuto) {
    throw InputError("protocol " + std::string(protocol_name(spec.protocol)) + " is NCCL's: it needs " +
                     (system ? "an operation NCCL tunes (all-reduce, reduce-scatter, all-gather, broadcast) and one of its "
                               "algorithms (ring, tree, nvls, nvls-tree, collnet)"
                             : "a GPU cluster whose topology has an nccl section") +
                     "; use protocol auto");
  }
  if (a == Algorithm::kAuto) a = default_choice(spec.op, mix);
  const std::string reason = why_not(a, spec.op, n, mix);
  if (!reason.empty()) throw InputError(reason);
  return Resolved{a, Protocol::kAuto, -1, 0,
                  a == Algorithm::kHierarchical ? detail::hierarchical_pieces(topo, spec, group) : 1};
}

int nccl_p2p_ctas(const topology::Topology& topo, const Group& pair) {
  const auto system = detail::nccl_system(topo, pair);
  return system ? nccl::p2p_ctas(*system) : 0;
}

Algorithm resolve_algorithm(const topology::Topology& topo, const CollectiveSpec& spec,
                            const Group& group) {
  return resolve_collective(topo, spec, group).algorithm;
}

bool period_spans_groups(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group) {
  const Resolved resolved = resolve_collective(topo, spec, group);
  return resolved.protocol == Protocol::kAuto && resolved.algorithm == Algorithm::kHierarchical;
}

void lower_collective(const topology::Topology& topo, const CollectiveSpec& spec,
                      const std::vector<Group>& groups, std::uint32_t collective_index,
                      Schedule& schedule, Symmetry symmetry) {
  if (groups.empty()) return;
  const Resolved resolved = resolve_collective(topo, spec, groups.front());
  const Algorithm algorithm = resolved.algorithm;
  const bool alone = symmetry == Symmetry::kPeriod && schedule.size() == 0 && schedule.link_images().empty();
  schedule.begin_collective(collective_index);
  const Frontier start(topo.vertices());
  Frontier end(topo.vertices());
  if (resolved.protocol != Protocol::kAuto) {
    detail::lower_nccl(topo, CollectiveSpec{spec.op, algorithm, spec.bytes, resolved.protocol}, groups, symmetry,
                       start, end, schedule);
    return;
  }
  if (algorithm == Algorithm::kHierarchical) {
    detail::lower_hierarchical(topo, spec, groups, alone, start, end, schedule);
    return;
  }
  detail::lower_concurrently(schedule, groups, [&](const Group& g) {
    if (algorithm == Algorithm::kTorus) {
      detail::lower_torus(topo, spec, g, alone && groups.size() == 1, start, end, schedule);
    } else if (algorithm == Algorithm::kDimensionOrdered) {
      detail::lower_dimension_ordered(topo, spec, g, start, end, schedule);
    } else {
      detail::lower_ring(topo, spec, g, algorithm == Algorithm::kBidirectionalRing, alone && groups.size() == 1, start, end,
                         schedule);
    }
  });
}

}  // namespace podsim::collectives
