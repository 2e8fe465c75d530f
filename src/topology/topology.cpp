#include "topology/topology.hpp"

#include <limits>
#include <type_traits>

#include "topology/graph_analysis.hpp"
#include "util/error.hpp"

namespace podsim::topology {

namespace {
constexpr LinkId kNoLink = std::numeric_limits<LinkId>::max();

std::string grid_kind(const GridGeometry& g) {
  if (g.twisted()) return "twisted torus";
  bool any = false;
  bool all = true;
  for (int a = 0; a < g.rank(); ++a) {
    if (g.extent(a) < 2) continue;
    any = any || g.wraps(a);
    all = all && g.wraps(a);
  }
  if (all && any) return "torus";
  if (!any) return "mesh";
  return "torus/mesh";
}
}  // namespace

Topology::Topology(const TopologySpec& spec)
    : name_(spec.name), axis_names_(axis_names(spec)), collectives_(spec.collectives) {
  std::visit(
      [&](const auto& layout) {
        using T = std::decay_t<decltype(layout)>;
        if constexpr (std::is_same_v<T, GridSpec>) {
          grid_.emplace(layout);
          kind_ = grid_kind(*grid_);
          chips_ = static_cast<std::uint32_t>(grid_->size());
          chips_per_group_ = chips_;
          vertices_ = chips_;
          out_.resize(vertices_);
          links_.reserve(static_cast<std::size_t>(chips_) * static_cast<std::size_t>(grid_->rank()) * 2);
          build_grid(layout, 0, 0);
        } else if constexpr (std::is_same_v<T, MultisliceSpec>) {
          if (layout.slices < 1) throw InputError("slices must be at least 1");
          grid_.emplace(layout.slice);
          kind_ = "multislice";
          layout_ = Layout::kMultislice;
          chips_per_group_ = static_cast<std::uint32_t>(grid_->size());
          groups_ = static_cast<std::uint32_t>(layout.slices);
          chips_ = chips_per_group_ * groups_;
          vertices_ = chips_ + 1;  // one non-blocking DCN fabric
          out_.resize(vertices_);
          // Each chip's grid links, then its link up to the fabric and the fabric's down to it.
          links_.reserve(static_cast<std::size_t>(chips_) * (static_cast<std::size_t>(grid_->rank()) * 2 + 2));
          for (std::uint32_t s = 0; s < groups_; ++s) {
            build_grid(layout.slice, s * chips_per_group_, s);
          }
          const VertexId fabric = chips_;
          const int slice_axis = grid_->rank();
          up_link_.resize(chips_);
          down_link_.resize(chips_);
          for (ChipId c = 0; c < chips_; ++c) {
            up_link_[c] = add_link(c, fabric, layout.dcn, LinkTier::kDcn, slice_axis, +1);
            down_link_[c] = add_link(fabric, c, layout.dcn, LinkTier::kDcn, slice_axis, -1);
          }
          axes_.push_back(Axis{axis_names_.back(), layout.slices, false, false, LinkTier::kDcn,
                               layout.dcn.bandwidth_Bps, layout.dcn.latency_ps});
        } else {
          build_switch(layout);
        }
      },
      spec.layout);

  if (grid_) {
    local_coord_.resize(grid_->size());
    for (std::size_t i = 0; i < grid_->size(); ++i) local_coord_[i] = grid_->coord(i);
  }
  if (grid_ && grid_->twisted()) {
    // Every chip of a twisted grid sees the same graph: distances from chip 0 serve all.
    auto distances = hop_distances(*this, 0, LinkTier::kIci);
    distances.resize(grid_->size());
    grid_->set_distances_from_origin(std::move(distances));
  }
}

void Topology::build_grid(const GridSpec& grid, std::uint32_t chip_offset, std::uint32_t slice) {
  const GridGeometry& g = *grid_;
  const auto rank = static_cast<std::size_t>(g.rank());
  if (slice == 0) {
    grid_link_.assign(static_cast<std::size_t>(chips_) * rank * 2, kNoLink);
    for (int a = 0; a < g.rank(); ++a) {
      axes_.push_back(Axis{axis_names_[static_cast<std::size_t>(a)], g.extent(a), g.wraps(a), g.wraps_onto_itself(a),
                           LinkTier::kIci, grid.link.bandwidth_Bps, grid.link.latency_ps});
    }
  }
  for (std::size_t local = 0; local < g.size(); ++local) {
    const ChipId chip = chip_offset + static_cast<ChipId>(local);
    const Coord at = g.coord(local);
    out_[chip].reserve(rank * 2 + (layout_ == Layout::kMultislice ? 1 : 0));  // and its DCN link
    for (int a = 0; a < g.rank(); ++a) {
      for (int dir : {+1, -1}) {
        const auto next = g.neighbor(at, a, dir);
        if (!next) continue;
        const LinkId id = add_link(chip, chip_offset + static_cast<ChipId>(*next), grid.link,
                                   LinkTier::kIci, a, dir);
        grid_link_[(chip * rank + static_cast<std::size_t>(a)) * 2 + (dir < 0 ? 1 : 0)] = id;
      }
    }
  }
}

void Topology::build_switch(const SwitchSpec& layout) {
  if (layout.nodes < 1 || layout.chips_per_node < 1) {
    throw InputError("nodes and chips_per_node must be at least 1");
  }
  const FabricSpec& fabric = layout.fabric;
  if (fabric.nodes_per_leaf < 0) throw InputError("nodes_per_leaf must not be negative");
  if (!(fabric.oversubscription >= 1)) throw InputError("oversubscription must be at least 1");
  kind_ = "switch";
  layout_ = Layout::kSwitch;
  switched_ = true;
  chips_per_group_ = static_cast<std::uint32_t>(layout.chips_per_node);
  groups_ = static_cast<std::uint32_t>(layout.nodes);
  chips_ = chips_per_group_ * groups_;
  nodes_per_leaf_ = fabric.nodes_per_leaf == 0 ? groups_ : std::min<std::uint32_t>(groups_, static_cast<std::uint32_t>(fabric.nodes_per_leaf));
  rails_ = fabric.rail_optimized ? chips_per_group_ : 1;
  const std::uint32_t leaf_groups = (groups_ + nodes_per_leaf_ - 1) / nodes_per_leaf_;
  leaves_ = leaf_groups * rails_;
  first_leaf_ = chips_ + groups_;
  // Node switches, the leaves, and a spine when there is more than one leaf.
  vertices_ = first_leaf_ + leaves_ + (leaves_ > 1 ? 1 : 0);
  out_.resize(vertices_);
  up_link_.resize(chips_);
  down_link_.resize(chips_);
  nic_up_.resize(chips_);
  nic_down_.resize(chips_);
  // Each chip's two links up (node switch, NIC), the two down to it, a leaf's two trunks.
  links_.reserve(static_cast<std::size_t>(chips_) * 4 + static_cast<std::size_t>(leaves_) * 2);
  for (ChipId c = 0; c < chips_; ++c) out_[c].reserve(2);
  for (ChipId c = 0; c < chips_; ++c) {
    up_link_[c] = add_link(c, node_switch(c), layout.intra, LinkTier::kNodeSwitch, 0, +1);
    down_link_[c] = add_link(node_switch(c), c, layout.intra, LinkTier::kNodeSwitch, 0, -1);
  }
  std::vector<double> leaf_nic_Bps(leaves_, 0.0);
  for (ChipId c = 0; c < chips_; ++c) {
    nic_up_[c] = add_link(c, fabric_switch(c), layout.scale_out, LinkTier::kScaleOut, 1, +1);
    nic_down_[c] = add_link(fabric_switch(c), c, layout.scale_out, LinkTier::kScaleOut, 1, -1);
    leaf_nic_Bps[fabric_switch(c) - first_leaf_] += layout.scale_out.bandwidth_Bps;
  }
  if (leaves_ > 1) {
    // One aggregated link each way between a leaf and the spine, carrying what the
    // leaf's NICs can push divided by the oversubscription.
    const VertexId spine = first_leaf_ + leaves_;
    for (std::uint32_t l = 0; l < leaves_; ++l) {
      const LinkSpec trunk{leaf_nic_Bps[l] / fabric.oversubscription, layout.scale_out.latency_ps};
      leaf_up_.push_back(add_link(first_leaf_ + l, spine, trunk, LinkTier::kScaleOut, 1, +1));
      leaf_down_.push_back(add_link(spine, first_leaf_ + l, trunk, LinkTier::kScaleOut, 1, -1));
    }
  }
  axes_.push_back(Axis{axis_names_[0], layout.chips_per_node, false, false, LinkTier::kNodeSwitch,
                       layout.intra.bandwidth_Bps, layout.intra.latency_ps});
  axes_.push_back(Axis{axis_names_[1], layout.nodes, false, false, LinkTier::kScaleOut,
                       layout.scale_out.bandwidth_Bps, layout.scale_out.latency_ps});
}

VertexId Topology::common_fabric_switch(const std::vector<ChipId>& chips) const {
  for (ChipId c : chips) {
    if (fabric_switch(c) != fabric_switch(chips.front())) return first_leaf_ + leaves_;
  }
  return fabric_switch(chips.front());
}

VertexId Topology::fabric_switch(ChipId chip) const {
  const std::uint32_t node = chip / chips_per_group_;
  const std::uint32_t rail = rails_ > 1 ? chip % chips_per_group_ : 0;
  return first_leaf_ + (node / nodes_per_leaf_) * rails_ + rail;
}

LinkId Topology::add_link(VertexId src, VertexId dst, const LinkSpec& spec, LinkTier tier,
                          int axis, int dir) {
  if (!(spec.bandwidth_Bps > 0)) throw InputError("link bandwidth must be positive");
  const auto id = static_cast<LinkId>(links_.size());
  links_.push_back(Link{src, dst, spec.bandwidth_Bps, spec.latency_ps, tier, axis, dir});
  out_[src].push_back(id);
  return id;
}

std::optional<int> Topology::axis_index(const std::string& name) const {
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

Coord Topology::coord(ChipId chip) const {
  if (switched_) return Coord{static_cast<int>(chip % chips_per_group_),
                              static_cast<int>(chip / chips_per_group_), 0, 0};
  Coord c = grid_->coord(chip % chips_per_group_);
  if (layout_ == Layout::kMultislice) {
    c[static_cast<std::size_t>(grid_->rank())] = static_cast<int>(chip / chips_per_group_);
  }
  return c;
}

ChipId Topology::chip_at(const Coord& c) const {
  if (switched_) return static_cast<ChipId>(c[1]) * chips_per_group_ + static_cast<ChipId>(c[0]);
  Coord local = c;
  std::uint32_t group = 0;
  if (layout_ == Layout::kMultislice) {
    group = static_cast<std::uint32_t>(c[static_cast<std::size_t>(grid_->rank())]);
    local[static_cast<std::size_t>(grid_->rank())] = 0;
  }
  return group * chips_per_group_ + static_cast<ChipId>(grid_->index(local));
}

LinkId Topology::grid_next_link(ChipId at, ChipId dst) const {
  const GridGeometry& g = *grid_;
  const std::uint32_t base = at - at % chips_per_group_;
  const std::size_t local_at = at - base;
  const std::size_t local_dst = dst - base;
  const auto rank = static_cast<std::size_t>(g.rank());
  auto link_of = [&](std::size_t axis, int dir) {
    return grid_link_[(at * rank + axis) * 2 + (dir < 0 ? 1 : 0)];
  };
  if (!g.twisted()) {
    // Dimension order in closed form: the first axis whose coordinate differs, the shorter
    // way round (+ on a tie).
    const Coord& a = local_coord_[local_at];
    const Coord& b = local_coord_[local_dst];
    for (std::size_t axis = 0; axis < rank; ++axis) {
      const int d = b[axis] - a[axis];
      if (d == 0) continue;
      if (!g.wraps(static_cast<int>(axis))) return link_of(axis, d > 0 ? +1 : -1);
      const int n = g.extent(static_cast<int>(axis));
      const int forward = d > 0 ? d : d + n;
      return link_of(axis, forward <= n - forward ? +1 : -1);
    }
  } else {
    // Twisted: the first axis (and + before −) along which a step gets closer.
    const int step = local_at == local_dst ? -1 : g.first_step(local_at, local_dst);
    if (step >= 0) return link_of(static_cast<std::size_t>(step / 2), step % 2 == 1 ? -1 : +1);
  }
  throw SimulationError("no route between chips " + std::to_string(at) + " and " +
                        std::to_string(dst));
}

LinkId Topology::next_link(VertexId at, VertexId dst) const {
  if (switched_) {
    if (at < chips_) {
      // A chip reaches its node's NVSwitch and the chips on it over NVLink, the rest
      // through its NIC.
      if (dst == node_switch(at)) return up_link_[at];
      const bool chip_in_node = dst < chips_ && at / chips_per_group_ == dst / chips_per_group_;
      return chip_in_node ? up_link_[at] : nic_up_[at];
    }
    if (at < first_leaf_) return down_link_[dst];  // a node switch serves its own chips
    if (at < first_leaf_ + leaves_) {
      // A leaf: down to its own chips, else up to the spine.
      if (dst < chips_ && fabric_switch(dst) == at) return nic_down_[dst];
      return leaf_up_[at - first_leaf_];
    }
    // The spine: down to the destination's leaf.
    const VertexId leaf = dst < chips_ ? fabric_switch(dst) : dst;
    return leaf_down_[leaf - first_leaf_];
  }
  if (at >= chips_) return down_link_[dst];  // the DCN switch forwards straight to the chip
  const bool same_group = dst < chips_ && at / chips_per_group_ == dst / chips_per_group_;
  if (!same_group) return up_link_[at];
  return grid_next_link(at, dst);
}

std::vector<LinkId> Topology::route(VertexId src, VertexId dst) const {
  std::vector<LinkId> path;
  VertexId at = src;
  while (at != dst) {
    const LinkId l = next_link(at, dst);
    path.push_back(l);
    at = links_[l].dst;
  }
  return path;
}

int Topology::hops(ChipId src, ChipId dst) const {
  if (src == dst) return 0;
  const bool same_group = src / chips_per_group_ == dst / chips_per_group_;
  if (switched_ && !same_group && fabric_switch(src) != fabric_switch(dst)) return 4;
  if (switched_ || !same_group) return 2;
  const std::uint32_t base = src - src % chips_per_group_;
  return grid_->distance(src - base, dst - base);
}

const char* tier_name(LinkTier t) {
  switch (t) {
    case LinkTier::kNodeSwitch:
      return "node-switch";
    case LinkTier::kScaleOut:
      return "scale-out";
    case LinkTier::kDcn:
      return "dcn";
    default:
      return "ici";
  }
}

std::string link_label(const Topology& topo, LinkId id) {
  const auto& l = topo.link(id);
  if (l.tier == LinkTier::kIci) return topo.axes()[static_cast<std::size_t>(l.axis)].name + (l.dir > 0 ? "+" : "-");
  return std::string(tier_name(l.tier)) + (l.dir > 0 ? " up" : " down");
}

}  // namespace podsim::topology
