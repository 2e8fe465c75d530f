#pragma once

// Internal to collectives: how one NCCL collective's transfers are added to a schedule.
//
// Model (docs/collectives.md, "NCCL"): a transfer of `payload` bytes puts
// payload × wire_factor bytes on the links (LL's flags, LL128's, NVLS's packet overhead:
// the link is busy for them, nothing is discounted); NCCL's per-step latency that the
// route's wire latency does not cover is added where the data arrives (pipelined: the
// link and the sender carry on); a rate below the link's (LL's GPU-side limit, NCCL's
// channel bandwidths) is a wait at the sender before the bytes leave. A chip's first
// send also waits NCCL's base latency plus the launch cost.
//
// Invariant: on uncontended links a chain of steps takes NCCL's own prediction,
// base + launch + Σ (step latency + payload / rate), and every link is busy exactly
// wire bytes / its bandwidth. Transfers leaving a vertex on the same link go in the
// order they were added (a FIFO), so even the analytical network never runs two at once
// on one link of one collective.

#include <utility>
#include <vector>

#include "collectives/schedule.hpp"
#include "topology/topology.hpp"

namespace podsim::collectives::detail {

class NcclEmitter {
 public:
  /// `start` holds what each chip waits for before its first send.
  NcclEmitter(const topology::Topology& topo, Schedule& schedule, const Frontier& start, double wire_factor,
              SimTime start_ps);

  /// Wire bytes per payload byte of the transfers added from now on.
  void set_wire_factor(double f) { wire_factor_ = f; }

  /// Adds a transfer of `payload` bytes after `deps` (a chip's first send without deps is
  /// an initial one: it waits the start time); `rate_Bps` (0: link speed) is the
  /// payload rate of the sender (NCCL's per-rank bus rate: the sends of one rank on one
  /// link go one after the other, each no faster), `step_latency_ps` NCCL's latency for
  /// this hop.
  TransferIndex send(VertexId src, VertexId dst, double payload, std::vector<TransferIndex> deps, double rate_Bps,
                     SimTime step_latency_ps);

  Schedule& schedule() { return schedule_; }

  /// Every chip's last send and last receive, for the phase that follows.
  void finish(Frontier& end) const;

 private:
  const topology::Topology& topo_;
  Schedule& schedule_;
  const Frontier& start_;
  double wire_factor_;
  SimTime start_ps_;
  std::vector<std::int64_t> last_on_link_;  // per link: the last transfer that leaves on it
  std::vector<std::int64_t> last_sent_;             // per vertex
  /// Per chip: the last transfer from each source that reaches it.
  std::vector<std::vector<std::pair<VertexId, TransferIndex>>> arrivals_;
};

}  // namespace podsim::collectives::detail
