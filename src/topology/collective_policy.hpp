#pragma once

// How a machine's collective library runs collectives: part of what a topology file
// describes, because the same links run XLA's torus collectives on a TPU pod and NCCL's
// on a GPU cluster. Plain data; the collectives module gives it meaning.

#include <optional>

#include "util/sim_time.hpp"

namespace podsim::topology {

/// How a collective is lowered to point-to-point transfers (collectives/collective_spec.hpp
/// names them; docs/collectives.md describes each).
enum class CollectiveAlgorithm {
  kAuto,               ///< the machine's choice: NCCL's tuning model on an NCCL cluster, else
                       ///< hierarchical across slices/nodes, torus on ICI grids, else ring
  kRing,               ///< one ring through the group (on an NCCL cluster: NCCL's ring)
  kBidirectionalRing,  ///< two rings, one each way, half the data each
  kTorus,              ///< per-axis phases on every grid axis at once (how XLA runs on TPU tori)
  kHierarchical,       ///< inside slices/nodes, then across them, then inside again
  kDimensionOrdered,   ///< reduce-scatter along each axis in turn, back in reverse order
  kTree,               ///< NCCL's double binary tree (chains inside nodes)
  kNvls,               ///< NCCL NVLS: reduction in the NVSwitch (NVLink SHARP)
  kNvlsTree,           ///< NCCL NVLS inside nodes, trees across them
  kCollNet,            ///< NCCL CollNet: reduction in the scale-out switches (IB SHARP)
};

/// NCCL's protocols: how data and its ready flag travel (NVIDIA/nccl issue #281).
enum class CollectiveProtocol {
  kAuto,    ///< NCCL's tuning model chooses
  kLL,      ///< 8-byte stores, 4 B data + 4 B flag: lowest latency, half the wire is flags
  kLL128,   ///< 128-byte lines, 120 B data + 8 B flag
  kSimple,  ///< bulk copies, a memory fence and a flag per step
};

/// GPU architecture classes NCCL's tuning tables distinguish (tuning.cc compCapIndex).
enum class GpuArch { kVolta, kAmpere, kHopper };

/// What NCCL finds on a GPU cluster (a switch topology) and the one fitted constant.
struct NcclSpec {
  GpuArch arch = GpuArch::kAmpere;
  /// NVSwitch with NVLink SHARP (3rd-generation NVSwitch and Hopper): enables NVLS.
  bool nvls = false;
  /// Scale-out switches reduce in the network (InfiniBand SHARP): enables CollNet.
  bool collnet = false;
  /// Fixed cost of one collective that NCCL's tuning model leaves out (kernel launch,
  /// the benchmark loop issuing it): fitted per GPU generation (docs/calibration.md).
  SimTime launch_ps = 0;

  bool operator==(const NcclSpec&) const = default;
};

/// The collective implementation of a machine.
struct CollectivePolicy {
  /// What a collective asking for kAuto runs, where that algorithm can run the operation
  /// on the group; kAuto = the machine's default choice.
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::kAuto;
  CollectiveProtocol protocol = CollectiveProtocol::kAuto;  ///< NCCL protocol, on NCCL clusters
  std::optional<NcclSpec> nccl;  ///< set on GPU clusters whose collectives NCCL runs
  /// Pieces a hierarchical collective is cut into so that its parts inside and across
  /// slices/nodes overlap (docs/collectives.md): 0 = the α-β optimum, 1 = the parts in turn.
  int hierarchical_pieces = 0;

  bool operator==(const CollectivePolicy&) const = default;
};

}  // namespace podsim::topology
