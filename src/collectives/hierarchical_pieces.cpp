// How many pieces a hierarchical collective is cut into, so that its parts inside the slices
// (or nodes) and across them overlap (lower_hierarchical). docs/collectives.md, "Hierarchical
// collectives in pieces".

#include <algorithm>
#include <vector>

#include "collectives/lowering_steps.hpp"

namespace podsim::collectives::detail {

namespace {

/// One part of the collective for one piece of `s` bytes: latency_s + per_byte_s · s, on the
/// links inside the slices or across them.
struct PartCost {
  bool across = false;
  double latency_s = 0;
  double per_byte_s = 0;
};

/// A reduce-scatter or all-gather inside one slice or node, as inner_phase lowers it: the torus
/// algorithm on an ICI grid (⌊n/2⌋ hops a wrapped axis, both ways; a folded ring of n − 1 steps
/// over up to two links on an open one; every axis at once), a ring through the node switch.
PartCost inside(const topology::Topology& topo, const Group& inner) {
  PartCost part;
  double rate_Bps = 0;
  for (const Group::Dim& d : inner.dims) {
    if (d.size < 2) continue;
    const topology::Axis& axis = topo.axes()[static_cast<std::size_t>(d.axis)];
    const double alpha = to_seconds(axis.link_latency_ps);
    if (axis.tier != topology::LinkTier::kIci) {  // chip -> node switch -> chip
      part.latency_s += (d.size - 1) * 2 * alpha;
      rate_Bps += axis.link_bandwidth_Bps;
    } else if (d.wraps && d.size > 2) {
      part.latency_s += (d.size / 2) * alpha;
      rate_Bps += 2 * axis.link_bandwidth_Bps;
    } else {
      part.latency_s += (d.size - 1) * (d.size > 2 ? 2 : 1) * alpha;
      rate_Bps += axis.link_bandwidth_Bps;
    }
  }
  const double n = inner.size();
  part.per_byte_s = rate_Bps > 0 ? (n - 1) / n / rate_Bps : 0;
  return part;
}

/// The ring across slices (nodes) on each chip's shard: `steps` steps of 1/m of it, each
/// through the slow tier's switch (two links).
PartCost across(const topology::Topology& topo, const Group& inner, const Group& outer, int steps) {
  const topology::Axis& axis = topo.axes()[static_cast<std::size_t>(outer.dims.front().axis)];
  const double m = outer.size();
  PartCost part;
  part.across = true;
  part.latency_s = steps * 2 * to_seconds(axis.link_latency_ps);
  part.per_byte_s = steps / (inner.size() * m * axis.link_bandwidth_Bps);
  return part;
}

/// The estimated time of `parts` in `pieces` pieces: each piece runs its parts in order, and
/// the links inside (across) take one part of one piece at a time, part by part, piece by
/// piece (lower_hierarchical's order).
double pipelined_s(const std::vector<PartCost>& parts, double bytes, int pieces) {
  const double s = bytes / pieces;
  std::vector<double> done(static_cast<std::size_t>(pieces), 0.0);
  double free_s[2] = {0, 0};
  for (const PartCost& part : parts) {
    double& links = free_s[part.across ? 1 : 0];
    for (double& d : done) {
      d = std::max(d, links) + part.latency_s + part.per_byte_s * s;
      links = d;
    }
  }
  return *std::max_element(done.begin(), done.end());
}

}  // namespace

int hierarchical_pieces(const topology::Topology& topo, const CollectiveSpec& spec, const Group& inner,
                        const Group& outer) {
  if (topo.collectives().hierarchical_pieces > 0) return topo.collectives().hierarchical_pieces;
  const int m = static_cast<int>(outer.size());
  std::vector<PartCost> parts;
  switch (spec.op) {
    case Op::kAllReduce:
      parts = {inside(topo, inner), across(topo, inner, outer, 2 * (m - 1)), inside(topo, inner)};
      break;
    case Op::kReduceScatter:
      parts = {inside(topo, inner), across(topo, inner, outer, m - 1)};
      break;
    case Op::kAllGather:
      parts = {across(topo, inner, outer, m - 1), inside(topo, inner)};
      break;
    default:
      return 1;
  }
  const auto bytes = static_cast<double>(spec.bytes);
  int best = 1;
  double best_s = pipelined_s(parts, bytes, 1);
  for (int p = 2; p <= kMaxHierarchicalPieces && static_cast<std::uint64_t>(p) <= spec.bytes; ++p) {
    const double t = pipelined_s(parts, bytes, p);
    if (t < best_s) {
      best = p;
      best_s = t;
    }
  }
  return best;
}

int hierarchical_pieces(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group) {
  const TierDims dims = tier_dims(topo, group);
  return hierarchical_pieces(topo, spec, split(group, dims.inner).front(), split(group, dims.outer).front());
}

}  // namespace podsim::collectives::detail
