#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "topology/collective_policy.hpp"
#include "util/sim_time.hpp"

namespace podsim::topology {

/// One direction of a link: its bandwidth and its latency (per hop).
struct LinkSpec {
  double bandwidth_Bps = 0;  ///< bytes per second, per direction
  SimTime latency_ps = 0;    ///< time for the first byte to cross the link

  bool operator==(const LinkSpec&) const = default;
};

/// A grid of chips joined by nearest-neighbour links: a torus, a mesh, or a mix
/// (wraparound chosen per axis), optionally twisted (TPU v4/v5p k×k×2k and k×2k×2k).
struct GridSpec {
  std::vector<int> dims;         ///< chips along x, y, z (1 to 3 axes)
  std::vector<bool> wraparound;  ///< one flag per entry of dims
  /// Crossing the wrap of a short axis (extent k) also moves k along every long axis
  /// (extent 2k): the twisted torus of Cámara et al. used by TPU v4 and v5p slices.
  bool twisted = false;
  LinkSpec link;  ///< every grid link, per direction

  bool operator==(const GridSpec&) const = default;
};

/// The scale-out network of a GPU cluster: every GPU's NIC on a leaf switch, leaves joined
/// by one non-blocking spine. The defaults are one non-blocking switch for every NIC.
struct FabricSpec {
  /// Nodes whose NICs share a leaf (or a set of rail switches); 0 = all nodes.
  int nodes_per_leaf = 0;
  /// Rail-optimised: GPU i of every node of a leaf group is on rail switch i, so traffic
  /// between GPUs of the same index stays on their rail; other pairs cross the spine.
  bool rail_optimized = false;
  /// Down-link over up-link bandwidth of a leaf (1 = non-blocking): a leaf's link to the
  /// spine carries (its NICs' bandwidth) / oversubscription each way.
  double oversubscription = 1;

  bool operator==(const FabricSpec&) const = default;
};

/// GPU cluster: nodes of `chips_per_node` GPUs on a node switch (NVSwitch), every GPU also
/// on the scale-out network through its own NIC.
struct SwitchSpec {
  int nodes = 1;
  int chips_per_node = 8;
  LinkSpec intra;      ///< GPU <-> node switch, per GPU per direction
  LinkSpec scale_out;  ///< GPU NIC <-> leaf switch, per GPU per direction (and every switch hop)
  FabricSpec fabric{};

  bool operator==(const SwitchSpec&) const = default;
};

/// `slices` identical ICI grids joined by the data-centre network (DCN).
struct MultisliceSpec {
  int slices = 2;
  GridSpec slice;
  LinkSpec dcn;  ///< per chip, per direction (host NIC bandwidth divided by chips per host)

  bool operator==(const MultisliceSpec&) const = default;
};

/// A machine's interconnect, as a config describes it.
struct TopologySpec {
  std::string name;
  std::variant<GridSpec, SwitchSpec, MultisliceSpec> layout;
  CollectivePolicy collectives{};  ///< how its collective library runs collectives

  bool operator==(const TopologySpec&) const = default;
};

/// `spec` with every link's bandwidth scaled: by `fast` on the fast tier (ICI, node switch)
/// and by `slow` on the slow one (DCN, scale-out) — the fraction collectives reach in
/// practice, a calibration constant of the hardware.
TopologySpec with_link_efficiency(TopologySpec spec, double fast, double slow);

/// Number of chips of `spec` (without building its graph).
std::uint64_t chip_count(const TopologySpec& spec);

/// Domains of the fast tier the slow one joins: the slices of a multislice, the nodes of a
/// GPU cluster; 1 for a single grid. Hybrid sharding's natural ZeRO group is one domain.
int fast_domains(const TopologySpec& spec);

/// Names of the chips' coordinate axes, in order: x, y, z of a grid (as many as it has),
/// then "slice" for a multislice; "gpu" (index in the node) and "node" for a switch.
std::vector<std::string> axis_names(const TopologySpec& spec);

}  // namespace podsim::topology
