#include <algorithm>
#include <numeric>
#include <optional>

#include "collectives/link_images.hpp"
#include "collectives/lowering.hpp"
#include "collectives/lowering_steps.hpp"

namespace podsim::collectives::detail {

namespace {

/// The rings a phase along dimension `axis_pos` runs on `line`: both ways round a wrapped
/// axis of 3 or more chips, else once round (a 2-chip axis, or a folded ring).
std::vector<std::vector<ChipId>> line_rings(const Group& group, std::size_t axis_pos, const std::vector<ChipId>& line) {
  const auto& dim = group.dims[axis_pos];
  std::vector<std::vector<ChipId>> out{ring_order_of_line(line, dim.wraps)};
  if (dim.wraps && dim.size >= 3) out.push_back(reversed_from_first(out.front()));
  return out;
}

}  // namespace

void axis_phase(const Group& group, std::size_t axis_pos, std::uint64_t bytes, LinePeriod period,
                const Frontier& start, Frontier& end, Schedule& schedule) {
  const auto& dim = group.dims[axis_pos];
  const auto n = static_cast<std::uint64_t>(dim.size);
  const bool both_ways = dim.wraps && n >= 3;
  // Both ways round a wrapped axis every chip's shard travels half the ring each way, as the
  // scaling book has XLA do it (sharding.md, "How is an AllGather actually performed?": "⌈N/2⌉
  // hops"; its Question 3 gathers over 4 wrapped chips "in only 2 hops"): floor(n/2) steps a
  // direction. Each direction still carries (n−1)/(2n) of the array — on an even axis the shard
  // opposite is split between the two — spread evenly over its steps.
  const std::uint64_t hops = n / 2;
  const auto lines = lines_along(group, axis_pos);
  const auto transfers = static_cast<double>(schedule.size());
  const double bytes_before = schedule.total_bytes();
  for (const auto& line : lines) {
    for (auto ring : line_rings(group, axis_pos, line)) {
      if (period == LinePeriod::kRingOfTwo) ring.resize(2);  // the steps and chunk stay the ring's
      if (both_ways) {
        // ceil((n−1)·bytes / (2n·hops)) without forming (n−1)·bytes, which can overflow.
        const std::uint64_t parts = 2 * n * hops;
        const std::uint64_t per_step =
            std::max<std::uint64_t>(1, (n - 1) * (bytes / parts) + ((n - 1) * (bytes % parts) + parts - 1) / parts);
        ring_pass(schedule, ring, static_cast<int>(hops), per_step, start, end);
      } else {
        ring_pass(schedule, ring, static_cast<int>(n - 1), share(bytes, n), start, end);
      }
    }
    if (period != LinePeriod::kFirstLine) continue;
    // Every other line runs as this one does (symmetric_lines): its chips wait as their
    // counterparts here.
    const auto others = static_cast<double>(lines.size() - 1);
    schedule.add_left_out(others * (static_cast<double>(schedule.size()) - transfers),
                          others * (schedule.total_bytes() - bytes_before));
    for (std::size_t l = 1; l < lines.size(); ++l) {
      for (std::size_t i = 0; i < line.size(); ++i) end.mirror(schedule, line[i], lines[l][i]);
    }
    break;
  }
}

bool torus_lines_alike(const topology::Topology& topo, const Group& group) {
  std::size_t active = 0;
  for (std::size_t a = 0; a < group.dims.size(); ++a) {
    const auto& dim = group.dims[a];
    if (dim.size < 2) continue;
    ++active;
    if (!(dim.size == 2 || (dim.wraps && dim.size >= 3))) return false;
    const auto first = line_rings(group, a, lines_along(group, a).front());
    for (const auto& ring : first) {
      for (std::size_t i = 0; i < ring.size(); ++i) {
        if (!alike_routes(topo, first[0][0], first[0][1], ring[i], ring[(i + 1) % ring.size()])) return false;
      }
    }
  }
  return active >= 2;  // one line: nothing to leave out
}

namespace {

/// The link images of a group of one line (4 or more chips) run as a ring of two; nothing
/// when it is not one line or its rings are not symmetric (ring_of_two_images).
std::optional<Schedule::Images> one_line_images(const topology::Topology& topo, const Group& group) {
  std::vector<std::size_t> active;
  for (std::size_t a = 0; a < group.dims.size(); ++a) {
    if (group.dims[a].size > 1) active.push_back(a);
  }
  if (active.size() != 1 || group.dims[active.front()].size < 4) return std::nullopt;
  const auto lines = lines_along(group, active.front());
  if (lines.size() != 1) return std::nullopt;
  return ring_of_two_images(topo, line_rings(group, active.front(), lines.front()));
}

}  // namespace

bool torus_ring_of_two(const topology::Topology& topo, const Group& group) {
  return one_line_images(topo, group).has_value();
}

namespace {

/// The link images that let a torus collective of `group`, alone on its schedule, be
/// simulated on the first line along each axis only; nothing when it must run whole. Every
/// chip of a ring must then do what every other does at the same time (torus_lines_alike),
/// and every line's rings must be exact copies of the first's on links of their own
/// (LinkImageBuilder). Each line then finishes each phase exactly when the first does, so
/// the next phase's first line can start from the first line's frontier (Frontier::mirror).
std::optional<Schedule::Images> symmetric_lines(const topology::Topology& topo, const Group& group,
                                                const std::vector<std::size_t>& axes) {
  if (!torus_lines_alike(topo, group)) return std::nullopt;
  LinkImageBuilder images(topo);
  for (const std::size_t a : axes) {
    const auto lines = lines_along(group, a);
    const auto first = line_rings(group, a, lines.front());
    for (std::size_t l = 0; l < lines.size(); ++l) {
      const auto rings = line_rings(group, a, lines[l]);
      for (std::size_t r = 0; r < rings.size(); ++r) {
        const std::size_t n = rings[r].size();
        for (std::size_t i = 0; i < n; ++i) {
          if (!images.pair(first[r][i], first[r][(i + 1) % n], rings[r][i], rings[r][(i + 1) % n],
                           static_cast<std::uint32_t>(l))) {
            return std::nullopt;
          }
        }
      }
    }
  }
  return images.images();
}

/// Positions (in group.dims) of the dimensions with more than one chip.
std::vector<std::size_t> active_axes(const Group& group) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < group.dims.size(); ++i) {
    if (group.dims[i].size > 1) out.push_back(i);
  }
  return out;
}

/// Runs the phases of one piece: reduce-scatters along `order`, then all-gathers back in
/// reverse order, with the array shrinking (growing) by each axis's size.
void piece_phases(const Group& group, const std::vector<std::size_t>& order, std::uint64_t bytes, bool scatter,
                  bool gather, LinePeriod period, const Frontier& start, Frontier& end, Schedule& schedule) {
  std::vector<std::uint64_t> sizes{bytes};
  for (std::size_t p : order) {
    sizes.push_back(share(sizes.back(), static_cast<std::uint64_t>(group.dims[p].size)));
  }
  Frontier current = start;
  bool first = true;
  auto advance = [&](std::size_t axis_pos, std::uint64_t array_bytes) {
    if (!first) schedule.next_phase();
    first = false;
    Frontier next(current.chips());
    axis_phase(group, axis_pos, array_bytes, period, current, next, schedule);
    current = std::move(next);
  };
  if (scatter) {
    for (std::size_t i = 0; i < order.size(); ++i) advance(order[i], sizes[i]);
  }
  if (gather) {
    for (std::size_t i = order.size(); i-- > 0;) advance(order[i], sizes[i]);
  }
  end.merge(current);
}

}  // namespace

void lower_torus(const topology::Topology& topo, const CollectiveSpec& spec, const Group& group, bool alone,
                 const Frontier& start, Frontier& end, Schedule& schedule) {
  const std::vector<std::size_t> axes = active_axes(group);
  const std::size_t d = axes.size();
  switch (spec.op) {
    case Op::kAllReduce:
    case Op::kReduceScatter:
    case Op::kAllGather: {
      // Alone on its schedule, a collective whose lines are all alike runs on one line per
      // axis, standing for the rest (symmetric_lines).
      LinePeriod period = LinePeriod::kWhole;
      if (alone) {
        if (auto images = symmetric_lines(topo, group, axes)) {
          schedule.set_images(std::move(*images));
          period = LinePeriod::kFirstLine;
        } else if (auto line = one_line_images(topo, group)) {
          schedule.set_images(std::move(*line));
          period = LinePeriod::kRingOfTwo;
        }
      }
      // One piece per axis, each starting on a different axis: at every phase the pieces
      // use different axes, so all of a chip's links are busy at once (bytes / (W·axes)).
      const std::uint64_t piece_bytes = share(spec.bytes, d);
      std::vector<std::size_t> pieces(d);
      std::iota(pieces.begin(), pieces.end(), std::size_t{0});
      lower_concurrently(schedule, pieces, [&](std::size_t j) {
        std::vector<std::size_t> order(d);
        for (std::size_t p = 0; p < d; ++p) order[p] = axes[(j + p) % d];
        if (spec.op == Op::kAllGather) {
          // An all-gather is the second half of an all-reduce: the same phases, run from
          // the innermost shard outwards.
          piece_phases(group, order, piece_bytes, false, true, period, start, end, schedule);
        } else {
          piece_phases(group, order, piece_bytes, true, spec.op == Op::kAllReduce, period, start, end,
                       schedule);
        }
      });
      break;
    }
    case Op::kAllToAll: {
      // Dimension by dimension: along each axis every chip exchanges S/n with each peer.
      Frontier current = start;
      for (std::size_t p : axes) {
        if (p != axes.front()) schedule.next_phase();
        Frontier next(current.chips());
        for (const auto& line : lines_along(group, p)) {
          pairwise_exchange(schedule, line, share(spec.bytes, static_cast<std::uint64_t>(line.size())),
                            current, next);
        }
        current = std::move(next);
      }
      end.merge(current);
      break;
    }
    case Op::kBroadcast: {
      // From the group's first chip along the first axis, then from every chip that has the
      // data along the next axis, and so on.
      Frontier current = start;
      for (std::size_t i = 0; i < d; ++i) {
        const std::size_t p = axes[i];
        const auto& axis = topo.axes()[static_cast<std::size_t>(group.dims[p].axis)];
        if (i > 0) schedule.next_phase();
        Frontier next(current.chips());
        for (const auto& line : lines_along(group, p)) {
          // Only lines whose coordinates on the later axes are 0 hold data yet.
          const auto pos = static_cast<std::size_t>(
              std::find(group.chips.begin(), group.chips.end(), line[0]) - group.chips.begin());
          bool has_data = true;
          std::size_t s = 1;
          for (std::size_t q = 0; q < group.dims.size(); ++q) {
            const std::size_t coordinate = (pos / s) % static_cast<std::size_t>(group.dims[q].size);
            const bool later = std::find(axes.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                         axes.end(), q) != axes.end();
            if (later && coordinate != 0) has_data = false;
            s *= static_cast<std::size_t>(group.dims[q].size);
          }
          if (!has_data) continue;
          const int pieces = broadcast_pieces(static_cast<std::uint32_t>(line.size()), spec.bytes,
                                              axis.link_bandwidth_Bps, axis.link_latency_ps);
          chain_pass(schedule, line, pieces, share(spec.bytes, static_cast<std::uint64_t>(pieces)),
                     current, next);
        }
        current.merge(next);
      }
      end.merge(current);
      break;
    }
    case Op::kSendRecv:
      break;  // rejected by resolve_algorithm
  }
}

}  // namespace podsim::collectives::detail
