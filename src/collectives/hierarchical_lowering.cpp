#include <algorithm>
#include <optional>
#include <unordered_map>

#include "collectives/link_images.hpp"
#include "collectives/lowering.hpp"
#include "collectives/lowering_steps.hpp"

namespace podsim::collectives::detail {

namespace {

/// Reduce-scatter or all-gather of an array of `bytes` per chip inside every slice/node: the
/// torus algorithm on an ICI grid, a ring through a node switch.
void inner_phase(const topology::Topology& topo, Op op, std::uint64_t bytes,
                 const std::vector<Group>& inner, const Frontier& start, Frontier& end,
                 Schedule& schedule) {
  lower_concurrently(schedule, inner, [&](const Group& g) {
    const bool grid = topo.axes()[static_cast<std::size_t>(g.dims[0].axis)].tier == topology::LinkTier::kIci;
    const CollectiveSpec spec{op, grid ? Algorithm::kTorus : Algorithm::kRing, bytes};
    if (grid) {
      lower_torus(topo, spec, g, false, start, end, schedule);
    } else {
      lower_ring(topo, spec, g, false, false, start, end, schedule);
    }
  });
}

/// Where each chip sits on the rings across slices: its ring, and its position on it.
struct RingPlaces {
  std::vector<std::vector<ChipId>> orders;      ///< each outer group's ring order
  std::unordered_map<ChipId, std::size_t> ring;  ///< chip -> its ring
  std::unordered_map<ChipId, std::size_t> pos;   ///< chip -> its position on it
  /// The chip at position `s` of `c`'s ring: `c`'s counterpart in the s-th slice.
  ChipId at(ChipId c, std::size_t s) const { return orders[ring.at(c)][s]; }
};

/// The collective with only the slices (nodes) at ring positions 0 and 1, and each ring across
/// them a ring of 2 that takes the full ring's steps and chunk: every slice of a collective
/// alone on its schedule does what slice 0 (or 1) does at the same time when the slices are
/// exact copies on links of their own, and every ring across them is then symmetric, each
/// member sending its step k when its neighbours do. Nothing when that does not hold.
struct TwoSlices {
  std::vector<Group> inner;  ///< the inner groups of positions 0 and 1
  std::vector<std::vector<ChipId>> pairs;  ///< positions 0 and 1 of every ring across
  std::size_t ring = 0;                     ///< members of a ring across (3 or more)
};

std::optional<TwoSlices> two_slices(const std::vector<Group>& inner, const RingPlaces& places) {
  const std::size_t S = places.orders.front().size();
  if (S < 3) return std::nullopt;
  TwoSlices out;
  out.ring = S;
  std::unordered_map<ChipId, std::size_t> kept;  // first chip -> index in out.inner
  for (const auto& order : places.orders) {
    if (order.size() != S) return std::nullopt;
    out.pairs.push_back({order[0], order[1]});
  }
  for (const Group& g : inner) {
    const std::size_t s = places.pos.at(g.chips.front());
    for (const ChipId c : g.chips) {
      if (places.pos.at(c) != s) return std::nullopt;  // a slice's group spans positions
    }
    if (s < 2) {
      kept.emplace(g.chips.front(), out.inner.size());
      out.inner.push_back(g);
    }
  }
  // Each group is its counterpart's in slice 0 or 1, chip for chip.
  for (const Group& g : inner) {
    const std::size_t s = places.pos.at(g.chips.front());
    const auto it = kept.find(places.at(g.chips.front(), s % 2));
    if (it == kept.end()) return std::nullopt;
    const Group& twin = out.inner[it->second];
    if (twin.chips.size() != g.chips.size()) return std::nullopt;
    for (std::size_t i = 0; i < g.chips.size(); ++i) {
      if (places.at(g.chips[i], s % 2) != twin.chips[i]) return std::nullopt;
    }
  }
  return out;
}

/// The link images of a two-slice schedule: each transfer inside slice 0 (1) stands for its
/// counterparts in every even (odd) slice, each ring-of-2 hop from position j for the hops
/// from every position s ≡ j (mod 2) to s + 1. Nothing when any is not an exact copy on
/// links of its own, or slice 1 is not one of slice 0 (nor the hop back one of the hop out).
std::optional<Schedule::Images> slice_images(const topology::Topology& topo, const Schedule& reduced,
                                             const RingPlaces& places) {
  std::vector<std::uint64_t> hops;
  for (TransferIndex t = 0; t < reduced.size(); ++t) {
    hops.push_back((std::uint64_t{reduced.transfer(t).src} << 32) | reduced.transfer(t).dst);
  }
  std::sort(hops.begin(), hops.end());
  hops.erase(std::unique(hops.begin(), hops.end()), hops.end());
  const std::size_t S = places.orders.front().size();
  LinkImageBuilder images(topo);
  LinkImageBuilder alike(topo);  // slice 1 a copy of slice 0, the hop back one of the hop out
  for (const std::uint64_t hop : hops) {
    const auto u = static_cast<ChipId>(hop >> 32);
    const auto v = static_cast<ChipId>(hop & 0xFFFF'FFFFu);
    const std::size_t j = places.pos.at(u);
    const bool across = places.pos.at(v) != j;
    const ChipId u1 = places.at(u, 1 - j);
    const ChipId v1 = places.at(v, across ? j : 1 - j);
    if (!alike.pair(u, v, u1, v1, static_cast<std::uint32_t>(j))) return std::nullopt;
    for (std::size_t s = j; s < S; s += 2) {
      const ChipId to_u = places.at(u, s);
      const ChipId to_v = across ? places.at(v, (s + 1) % S) : places.at(v, s);
      if (!images.pair(u, v, to_u, to_v, static_cast<std::uint32_t>(s))) return std::nullopt;
    }
  }
  if (!alike.images()) return std::nullopt;
  return images.images();
}

/// Ring steps of `op` on a ring of n (ring_lowering.cpp).
int ring_steps(Op op, std::size_t n) {
  return static_cast<int>(op == Op::kAllReduce ? 2 * (n - 1) : n - 1);
}

/// One part of a hierarchical collective: an operation inside the slices (nodes) or across.
struct Part {
  Op op;
  bool across;
};

std::vector<Part> parts_of(Op op) {
  switch (op) {
    case Op::kAllReduce: return {{Op::kReduceScatter, false}, {Op::kAllReduce, true}, {Op::kAllGather, false}};
    case Op::kReduceScatter: return {{Op::kReduceScatter, false}, {Op::kReduceScatter, true}};
    case Op::kAllGather: return {{Op::kAllGather, true}, {Op::kAllGather, false}};
    default: return {};  // rejected by resolve_algorithm
  }
}

/// Where a hierarchical collective runs: its groups inside slices, its rings across them
/// (each ring's members in order; `ring`: the members each stands for) and the chips of an
/// inner group (the shard that crosses is 1/inner_size of each chip's array).
struct Places {
  const std::vector<Group>& inner;
  const std::vector<std::vector<ChipId>>& across;
  std::size_t ring;
  std::size_t inner_size;
};

/// `part` of an array of `bytes` per chip, from `start` to `end`.
void lower_part(const topology::Topology& topo, Part part, std::uint64_t bytes, const Places& at,
                const Frontier& start, Frontier& end, Schedule& schedule) {
  if (!part.across) {
    inner_phase(topo, part.op, bytes, at.inner, start, end, schedule);
    return;
  }
  const std::uint64_t shard = share(bytes, at.inner_size);
  lower_concurrently(schedule, at.across, [&](const std::vector<ChipId>& order) {
    ring_pass(schedule, order, ring_steps(part.op, at.ring), share(shard, at.ring), start, end);
  });
}

/// Inside, across, inside (all-reduce; reduce-scatter inside then across, all-gather across
/// then inside). In one piece the parts run in turn, each a phase. In `pieces` pieces, piece k
/// starts a part once its previous part is done and the links the part runs on (inside or
/// across) have done that part of piece k − 1 and every earlier part they carry: so piece k's
/// part across runs while piece k + 1 reduce-scatters inside, and the links inside gather the
/// pieces back once they have scattered them all. Their parts overlap in time: the phases are
/// then the links inside (every piece's parts inside) and across, a pipeline of `pieces`.
void lower_parts(const topology::Topology& topo, const CollectiveSpec& spec, int pieces, const Places& at,
                 const Frontier& start, Frontier& end, Schedule& schedule) {
  const std::vector<Part> parts = parts_of(spec.op);
  if (pieces <= 1) {
    Frontier current = start;
    for (std::size_t j = 0; j < parts.size(); ++j) {
      if (j > 0) schedule.next_phase();
      Frontier next(current.chips());
      lower_part(topo, parts[j], spec.bytes, at, current, next, schedule);
      current = std::move(next);
    }
    end.merge(current);
    return;
  }
  const std::uint64_t piece = share(spec.bytes, static_cast<std::uint64_t>(pieces));
  const std::uint32_t phase = schedule.phase();
  const bool alone = schedule.size() == 0;  // nothing else's phases to mistake for the pipeline's
  std::vector<Frontier> done(static_cast<std::size_t>(pieces), start);  // each piece's last part
  std::optional<Frontier> links[2];  // the last part lowered inside [0] and across [1]
  for (std::size_t j = 0; j < parts.size(); ++j) {
    std::optional<Frontier>& busy = links[parts[j].across ? 1 : 0];
    for (Frontier& piece_done : done) {
      Frontier from = j == 0 && busy ? *busy : piece_done;
      if (j > 0 && busy) from.merge(*busy);
      Frontier to(start.chips());
      const auto first = static_cast<TransferIndex>(schedule.size());
      schedule.set_phase(phase);
      lower_part(topo, parts[j], piece, at, from, to, schedule);
      schedule.set_phase_of(first, phase + (parts[j].across ? 1 : 0));
      piece_done = to;
      busy = std::move(to);
    }
  }
  schedule.recount_phases(phase + 1);
  // Charged as a pipeline only where the schedule holds nothing else (what NetworkCommModel
  // measures); beside other collectives its two phases are charged in turn, erring long.
  if (alone) schedule.set_pipeline_pieces(pieces);
  end.merge(done.back());
}

}  // namespace

TierDims tier_dims(const topology::Topology& topo, const Group& group) {
  TierDims dims;
  for (std::size_t d = 0; d < group.dims.size(); ++d) {
    if (group.dims[d].size < 2) continue;
    const topology::LinkTier tier = topo.axes()[static_cast<std::size_t>(group.dims[d].axis)].tier;
    (topology::is_slow_tier(tier) ? dims.outer : dims.inner).push_back(d);
  }
  return dims;
}

void lower_hierarchical(const topology::Topology& topo, const CollectiveSpec& spec,
                        const std::vector<Group>& groups, bool alone, const Frontier& start, Frontier& end,
                        Schedule& schedule) {
  // Split every group into its fast-tier part (inside slices/nodes) and its slow-tier part.
  const TierDims dims = tier_dims(topo, groups.front());
  std::vector<Group> inner;
  std::vector<Group> outer;
  for (const Group& g : groups) {
    for (Group& s : split(g, dims.inner)) inner.push_back(std::move(s));
    for (Group& s : split(g, dims.outer)) outer.push_back(std::move(s));
  }
  // After the inner reduce-scatter each chip holds 1/inner_size of the array; only that
  // shard crosses the slow network, a ring per position (ring_lowering.cpp's order).
  const std::size_t inner_size = inner.front().size();
  const int pieces = hierarchical_pieces(topo, spec, inner.front(), outer.front());
  RingPlaces places;
  for (const Group& g : outer) places.orders.push_back(ring_order(topo, g));
  if (alone) {
    // Where every chip sits on the rings: only a collective alone needs it (two_slices).
    for (std::size_t r = 0; r < places.orders.size(); ++r) {
      for (std::size_t i = 0; i < places.orders[r].size(); ++i) {
        places.ring.emplace(places.orders[r][i], r);
        places.pos.emplace(places.orders[r][i], i);
      }
    }
    if (const auto two = two_slices(inner, places)) {
      Schedule reduced;
      reduced.begin_collective(schedule.collectives() - 1);
      Frontier reduced_end(end.chips());
      lower_parts(topo, spec, pieces, Places{two->inner, two->pairs, two->ring, inner_size}, start, reduced_end,
                  reduced);
      if (auto images = slice_images(topo, reduced, places)) {
        reduced.set_images(std::move(*images));
        schedule = std::move(reduced);
        end.merge(reduced_end);
        return;
      }
    }
  }
  lower_parts(topo, spec, pieces, Places{inner, places.orders, places.orders.front().size(), inner_size}, start, end,
              schedule);
}

}  // namespace podsim::collectives::detail
