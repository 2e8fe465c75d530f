#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topology/grid_geometry.hpp"
#include "topology/topology_spec.hpp"

namespace podsim::topology {

/// Vertex of the interconnect graph: chips are 0..chips()-1, switches follow.
using VertexId = std::uint32_t;
using ChipId = std::uint32_t;
using LinkId = std::uint32_t;

/// What a link is made of; decides which parallelism traffic it carries in reports.
enum class LinkTier { kIci, kNodeSwitch, kScaleOut, kDcn };
/// The data-centre network and a scale-out fabric: the tiers between slices or nodes.
inline bool is_slow_tier(LinkTier t) { return t == LinkTier::kDcn || t == LinkTier::kScaleOut; }

/// One direction of a physical link.
struct Link {
  VertexId src = 0;
  VertexId dst = 0;
  double bandwidth_Bps = 0;
  SimTime latency_ps = 0;
  LinkTier tier = LinkTier::kIci;
  int axis = -1;  ///< topology axis the link belongs to
  int dir = 0;    ///< +1 / −1 along a grid axis; +1 = towards a switch, −1 = from it
};

/// A named coordinate axis of the chips (x, y, z of a grid; slice; gpu and node).
struct Axis {
  std::string name;
  int size = 1;
  bool wraparound = false;  ///< a grid axis whose ends are joined
  /// A line of chips along this axis is a ring: it wraps back onto itself. Not on a twisted
  /// torus's short axes, whose wraparound moves k along the long axes into another line.
  bool ring = false;
  LinkTier tier = LinkTier::kIci;
  double link_bandwidth_Bps = 0;  ///< per direction, of the links this axis uses
  SimTime link_latency_ps = 0;
};

/// The interconnect: chips, switches, directed links, coordinates and routing.
///
/// Routing is minimal and deterministic: on a grid, dimension order (x, then y, then z,
/// the shorter way round, + on a tie); between slices or nodes, through the switch. On a
/// GPU cluster with several leaf switches, between leaves through the spine.
///
/// Vertices: chips, then node switches (GPU clusters), then the scale-out or DCN switches
/// (leaves, then the spine when there is more than one leaf).
class Topology {
 public:
  explicit Topology(const TopologySpec& spec);

  const std::string& name() const { return name_; }
  /// "torus", "mesh", "twisted torus", "torus/mesh" (mixed wrap), "switch" or "multislice".
  const std::string& kind() const { return kind_; }
  std::uint32_t chips() const { return chips_; }
  std::uint32_t vertices() const { return vertices_; }
  const std::vector<Link>& links() const { return links_; }
  const Link& link(LinkId id) const { return links_[id]; }
  const std::vector<Axis>& axes() const { return axes_; }
  /// How collectives run on this machine (TopologySpec::collectives).
  const CollectivePolicy& collectives() const { return collectives_; }
  /// Index of the axis called `name`, nullopt if there is none.
  std::optional<int> axis_index(const std::string& name) const;

  /// Coordinates of a chip, one per axis (in axes() order).
  Coord coord(ChipId chip) const;
  /// The chip at `c` (one entry per axis).
  ChipId chip_at(const Coord& c) const;

  /// The first link of a minimal route from vertex `at` to vertex `dst` (at != dst). A
  /// switch is a destination only for the chips attached to it (and a leaf for the spine).
  LinkId next_link(VertexId at, VertexId dst) const;
  /// Every link of the route from vertex `src` to vertex `dst` (empty if equal).
  std::vector<LinkId> route(VertexId src, VertexId dst) const;
  /// Hop count of the route from `src` to `dst`.
  int hops(ChipId src, ChipId dst) const;

  /// Outgoing links of a vertex.
  const std::vector<LinkId>& out_links(VertexId v) const { return out_[v]; }

  /// GPU clusters: the NVSwitch of `chip`'s node.
  VertexId node_switch(ChipId chip) const { return chips_ + chip / chips_per_group_; }
  /// GPU clusters: the scale-out switch `chip`'s NIC is on (its leaf, or its rail switch).
  VertexId fabric_switch(ChipId chip) const;
  /// GPU clusters: the lowest scale-out switch every chip of `chips` reaches (their common
  /// leaf, else the spine), where a fabric reducing in the network (SHARP) reduces them.
  VertexId common_fabric_switch(const std::vector<ChipId>& chips) const;

 private:
  void build_grid(const GridSpec& grid, std::uint32_t chip_offset, std::uint32_t slice);
  void build_switch(const SwitchSpec& layout);
  LinkId add_link(VertexId src, VertexId dst, const LinkSpec& spec, LinkTier tier, int axis,
                  int dir);
  LinkId grid_next_link(ChipId at, ChipId dst) const;

  std::string name_;
  std::string kind_;
  std::vector<std::string> axis_names_;
  std::uint32_t chips_ = 0;
  std::uint32_t vertices_ = 0;
  std::vector<Link> links_;
  std::vector<std::vector<LinkId>> out_;
  std::vector<Axis> axes_;

  // Layout details used by coordinates and routing.
  std::optional<GridGeometry> grid_;  // grid or each slice of a multislice
  std::uint32_t chips_per_group_ = 0;  // chips per slice or per node
  std::uint32_t groups_ = 1;           // slices or nodes
  enum class Layout { kGrid, kMultislice, kSwitch } layout_ = Layout::kGrid;
  bool switched_ = false;              // layout_ == kSwitch, tested on the routing hot path
  /// grid_link_[chip_in_slice_offset... ]: link id of (chip, axis, dir) in a grid.
  std::vector<LinkId> grid_link_;
  std::vector<Coord> local_coord_;  // coordinates of each chip of one grid (slice)
  std::vector<LinkId> up_link_;    // chip -> node switch / DCN switch
  std::vector<LinkId> down_link_;  // node switch / DCN switch -> chip
  std::vector<LinkId> nic_up_;     // GPU -> its leaf
  std::vector<LinkId> nic_down_;   // leaf -> GPU
  // Scale-out fabric of a GPU cluster: leaves [first_leaf_, first_leaf_ + leaves_), then the
  // spine (only when leaves_ > 1); nodes_per_leaf_ nodes per leaf group, rails_ leaves per group.
  VertexId first_leaf_ = 0;
  std::uint32_t leaves_ = 1;
  std::uint32_t nodes_per_leaf_ = 1;
  std::uint32_t rails_ = 1;
  std::vector<LinkId> leaf_up_;    // leaf -> spine
  std::vector<LinkId> leaf_down_;  // spine -> leaf
  CollectivePolicy collectives_;
};

/// "ici", "node-switch", "scale-out", "dcn".
const char* tier_name(LinkTier tier);
/// "x+" for an ICI link (its axis and direction); "scale-out up" / "dcn down" for the others.
std::string link_label(const Topology& topo, LinkId link);

}  // namespace podsim::topology
