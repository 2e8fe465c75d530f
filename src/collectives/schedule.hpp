#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "topology/topology.hpp"

namespace podsim::collectives {

using topology::ChipId;
using topology::VertexId;
using TransferIndex = std::uint32_t;

/// A dependency a chip observes on another chip's behalf: a symmetric lowering simulates one
/// line (or slice) of chips and lets the others wait as their representative would
/// (Frontier::mirror). Set on a dependency's index, such a dependency is met when the
/// transfer's last byte has left its source (kOnDeparture) or reached its destination
/// (kOnArrival), wherever the waiting chip is. Without either, which is meant follows from
/// the chips (Schedule).
inline constexpr TransferIndex kOnDeparture = TransferIndex{1} << 31;
inline constexpr TransferIndex kOnArrival = TransferIndex{1} << 30;
inline constexpr TransferIndex kDependencyIndex = kOnArrival - 1;

/// One point-to-point transfer of a lowered collective. Its ends are chips, or a switch
/// that reduces or multicasts in the network (NVLS, CollNet).
struct PlannedTransfer {
  VertexId src = 0;
  VertexId dst = 0;
  std::uint64_t bytes = 0;       ///< on the wire (a protocol's flags included)
  std::uint32_t collective = 0;  ///< which of the schedule's collectives it belongs to
  std::uint32_t phase = 0;       ///< which of its sequential phases (see Schedule::next_phase)
};

/// A lowered collective (or several running at once): transfers and the transfers each
/// must wait for. It is a DAG because a transfer only depends on earlier ones.
class Schedule {
 public:
  /// Adds a transfer that may start `delay_ps` after every transfer in `deps` has arrived.
  TransferIndex add(VertexId src, VertexId dst, std::uint64_t bytes, std::span<const TransferIndex> deps,
                    SimTime delay_ps = 0, SimTime arrival_delay_ps = 0);
  /// Transfers added from now on belong to collective `index`.
  void begin_collective(std::uint32_t index) { current_collective_ = index; }

  /// Phases: a lowering whose parts run one after the other (reduce-scatter inside the
  /// slices, then across them; one torus axis after another) marks each part a phase, so a
  /// link's load can be told apart by when it is carried. Parts that run at once share a
  /// phase. Transfers added from now on belong to phase `p`.
  void set_phase(std::uint32_t p) {
    current_phase_ = p;
    phases_ = std::max(phases_, p + 1);
  }
  /// The phase after the current one.
  void next_phase() { set_phase(current_phase_ + 1); }
  /// Puts the transfers from `first` on in phase `p` (a part of a pipeline, whose parts'
  /// phases a lowering assigns itself); recount_phases() then makes the count right again.
  void set_phase_of(TransferIndex first, std::uint32_t p);
  /// The phase count made 1 + the highest phase of any transfer; `current` becomes current.
  void recount_phases(std::uint32_t current);
  /// A pipeline: its phases are the sets of links its parts load (a hierarchical collective's
  /// inside and across the slices), which overlap in time, in `pieces` pieces, so a phase's
  /// busiest link is not added to the others' but waits only for one piece of them
  /// (NetworkCommModel::charge). 1: phases run one after the other. Set by a lowering that
  /// is the only one on its schedule.
  void set_pipeline_pieces(int pieces) { pipeline_pieces_ = pieces; }
  int pipeline_pieces() const { return pipeline_pieces_; }
  std::uint32_t phase() const { return current_phase_; }
  /// 1 + the highest phase any transfer was added in.
  std::uint32_t phases() const { return phases_; }

  std::size_t size() const { return transfers_.size(); }
  /// Bytes over all transfers.
  double total_bytes() const { return total_bytes_; }
  /// A symmetric lowering's transfers left out (standing for them through link images):
  /// counted here so that the mean message is the whole collective's.
  void add_left_out(double transfers, double bytes) {
    left_out_transfers_ += transfers;
    left_out_bytes_ += bytes;
  }
  /// The mean message of the collective the schedule stands for (0 when empty).
  double mean_bytes() const {
    const double n = static_cast<double>(transfers_.size()) + left_out_transfers_;
    return n == 0 ? 0.0 : (total_bytes_ + left_out_bytes_) / n;
  }
  std::uint32_t collectives() const { return current_collective_ + 1; }
  const PlannedTransfer& transfer(TransferIndex i) const { return transfers_[i]; }
  /// Software time at the source before transfer i's first byte leaves.
  SimTime delay_ps(TransferIndex i) const { return delays_.empty() ? 0 : delays_[i].start_ps; }
  /// Software latency at the destination after transfer i's last byte.
  SimTime arrival_delay_ps(TransferIndex i) const { return delays_.empty() ? 0 : delays_[i].arrival_ps; }
  /// The transfers i waits for (each may carry kOnDeparture or kOnArrival).
  std::span<const TransferIndex> deps(TransferIndex i) const {
    return {dep_items_.data() + dep_begin_[i], dep_begin_[i + 1] - dep_begin_[i]};
  }
  /// True when some chip waits on another's behalf (a mirrored dependency): such a schedule
  /// must run in one process, where every transfer is observed.
  bool mirrored() const { return mirrored_; }

  /// A schedule that stands for a larger, periodic one (lower_ring on many identical
  /// nodes): the links its transfers use carry, in the larger one, their load to every
  /// link paired with them here. A run's link usage is reported through this map (each
  /// source link's load moves to its images); empty: as simulated.
  using LinkImage = std::pair<topology::LinkId, topology::LinkId>;
  /// A hop of the schedule (source << 32 | destination) and a hop of the larger one it stands
  /// for, which carries, phase by phase, what this one carries.
  using HopImage = std::pair<std::uint64_t, std::uint64_t>;
  struct Images {
    std::vector<LinkImage> links;  ///< sorted
    std::vector<HopImage> hops;    ///< sorted; every hop the schedule's transfers take has its images
  };
  void set_images(Images images) {
    link_images_ = std::move(images.links);
    hop_images_ = std::move(images.hops);
  }
  std::span<const LinkImage> link_images() const { return link_images_; }
  /// The hops `hop` stands for (itself where the schedule stands for nothing larger).
  std::span<const HopImage> hop_images(std::uint64_t hop) const;

 private:
  struct Delays {
    SimTime start_ps = 0;
    SimTime arrival_ps = 0;
  };
  std::vector<PlannedTransfer> transfers_;
  std::vector<Delays> delays_;  ///< empty until a transfer has one (most schedules: none)
  std::vector<std::uint32_t> dep_begin_{0};
  std::vector<TransferIndex> dep_items_;
  std::uint32_t current_collective_ = 0;
  std::uint32_t current_phase_ = 0;
  double total_bytes_ = 0;
  double left_out_transfers_ = 0;
  double left_out_bytes_ = 0;
  std::uint32_t phases_ = 1;
  int pipeline_pieces_ = 1;
  std::vector<LinkImage> link_images_;
  std::vector<HopImage> hop_images_;
  bool mirrored_ = false;
};

/// Per vertex (chips first): the transfers that must have arrived before it may start its
/// next phase (its last send and its last receive of the phase before).
///
/// Sparse: a lowering makes one per phase of every group, over every vertex of the machine,
/// and a group touches few of them. Only the vertices given something hold a list, and a
/// frontier nothing was added to allocates nothing.
class Frontier {
 public:
  explicit Frontier(std::size_t vertices) : vertices_(vertices) {}
  std::span<const TransferIndex> ready(VertexId c) const {
    if (slot_.empty() || slot_[c] == kNoSlot) return {};
    return lists_[slot_[c]];
  }
  void add(VertexId c, TransferIndex t) { list(c).push_back(t); }
  /// Chip `to` waits for what chip `from` waits for, as `from` would (kOnDeparture for what
  /// `from` sent, kOnArrival for what it received): `to` stands where `from` does in a part
  /// of the collective that is not simulated, being its image.
  void mirror(const Schedule& schedule, VertexId from, VertexId to);
  /// Adds everything `other` holds (used to join concurrent phases).
  void merge(const Frontier& other);
  std::size_t chips() const { return vertices_; }

 private:
  static constexpr std::uint32_t kNoSlot = 0xFFFF'FFFFu;
  /// Vertex c's list, made on first use.
  std::vector<TransferIndex>& list(VertexId c);
  std::size_t vertices_ = 0;
  std::vector<std::uint32_t> slot_;               ///< per vertex: its list, or kNoSlot (empty: none yet)
  std::vector<VertexId> owners_;                  ///< per list: its vertex, in the order first given
  std::vector<std::vector<TransferIndex>> lists_;
};

/// Appends a ring pass to `schedule`: `steps` steps in which every chip of `ring` sends
/// `chunk_bytes` to the next chip of the ring (cyclic). Step k of a chip waits for its own
/// step k−1 send and for the step k−1 chunk it received (it forwards or reduces that
/// data); step 0 waits for `start`. Records each chip's last send and receive in `end`.
///
/// n−1 steps is a reduce-scatter or an all-gather, 2(n−1) an all-reduce.
void ring_pass(Schedule& schedule, const std::vector<ChipId>& ring, int steps,
               std::uint64_t chunk_bytes, const Frontier& start, Frontier& end);

/// A pipelined chain: chip order[0] sends `pieces` pieces of `piece_bytes` down the chain
/// order[0] → order[1] → …; each chip forwards a piece once it has it and has sent the
/// previous one.
void chain_pass(Schedule& schedule, const std::vector<ChipId>& order, int pieces,
                std::uint64_t piece_bytes, const Frontier& start, Frontier& end);

/// Pairwise exchange: in round k = 1..n−1, member i sends `bytes` to member (i+k) mod n,
/// after its round k−1 send and receive.
void pairwise_exchange(Schedule& schedule, const std::vector<ChipId>& members,
                       std::uint64_t bytes, const Frontier& start, Frontier& end);

}  // namespace podsim::collectives
