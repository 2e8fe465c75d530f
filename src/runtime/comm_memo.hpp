#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "network/network_spec.hpp"
#include "runtime/comm_model.hpp"
#include "topology/topology.hpp"
#include "topology/topology_cache.hpp"
#include "topology/topology_spec.hpp"

namespace podsim::runtime {

/// Load one directed link carried during a step.
struct LinkLoad {
  double bytes = 0;
  SimTime busy_ps = 0;
};

/// What NetworkCommModel measured for one communication: its profile and its load on every
/// link it used (every group).
struct Measured {
  CommProfile profile;
  std::vector<std::pair<topology::LinkId, LinkLoad>> links;
  /// How the contention-aware network simulated it: kFlows or kChunks, with kOneGroup when
  /// one group stood for all, kPeriod when one period of its symmetry stood for the whole
  /// (collectives::Symmetry), kRenamed when it was another's renamed (0: the analytical network).
  std::uint8_t how = 0;
  static constexpr std::uint8_t kFlows = 1;
  static constexpr std::uint8_t kChunks = 2;
  static constexpr std::uint8_t kOneGroup = 4;
  static constexpr std::uint8_t kPeriod = 8;
  /// Not simulated: an earlier communication's measurement, renamed (it is that one on other
  /// chips and links; runtime/schedule_image.hpp).
  static constexpr std::uint8_t kRenamed = 16;
};

/// A measurement as bytes, to hand between processes (exact: every number as stored).
std::vector<char> to_bytes(const Measured& m);
/// The measurement to_bytes() packed.
Measured measured_from_bytes(const std::vector<char>& bytes);

/// Measurements kept across the simulations of one process — a sweep's points, a plan's
/// layouts — that run on the same machine, network settings and placement: a measurement
/// depends on nothing else, so a point that changes only the recompute policy or the ZeRO
/// stage reuses its neighbours' instead of lowering and timing the same collectives again.
/// Results are exactly what measuring would give, so outputs do not depend on which points
/// one process happened to run before (or on the number of processes).
class CommMemo {
 public:
  /// (axis, operation, bytes, stage, peer): as NetworkCommModel keys a communication.
  using Key = std::tuple<int, int, std::uint64_t, int, int>;

  /// The id of a machine (with its link efficiencies applied), network settings and
  /// placement (DeviceMesh::describe); equal ones get the same id.
  std::uint32_t context(const topology::TopologySpec& topology, const network::NetworkSpec& network,
                        const std::string& mesh);
  /// How many times the contexts were dropped (past kMaxContexts): a context id names the
  /// same context only within one generation.
  std::uint64_t generation() const { return generation_; }
  /// The machine of `topology` (with its link efficiencies applied), built once for every
  /// simulation that shares this memo.
  const topology::Topology& topology(const topology::TopologySpec& topology) { return topologies_.get(topology); }
  /// The measurement of `key` in `context`, or nullptr.
  const Measured* find(std::uint32_t context, const Key& key) const;
  /// Keeps a measurement. Past a bound on what is kept (links summed over measurements),
  /// everything is dropped and collected again: memory stays bounded on huge sweeps.
  void add(std::uint32_t context, const Key& key, const Measured& measured);
  /// What NetworkCommModel::alone_ps answered for `key` in `context`, or nullptr. A stage's
  /// time alone is often another stage's, which takes a proof that one's groups are images of
  /// the other's (network_comm_images.cpp); a plan asks it of thousands of layouts that share
  /// a placement, each through a model of its own, so the answer is kept here.
  const SimTime* alone(std::uint32_t context, const Key& key) const;
  void add_alone(std::uint32_t context, const Key& key, SimTime alone_ps);

 private:
  struct Context {
    topology::TopologySpec topology;
    network::NetworkSpec network;
    std::string mesh;
  };
  static constexpr std::size_t kMaxLinkEntries = 4'000'000;  // ~100 MB
  static constexpr std::size_t kMaxContexts = 4096;
  topology::TopologyCache topologies_;
  std::vector<Context> contexts_;
  std::map<std::pair<std::uint32_t, Key>, Measured> entries_;
  std::map<std::pair<std::uint32_t, Key>, SimTime> alone_;
  std::size_t link_entries_ = 0;
  std::uint64_t generation_ = 0;
};

}  // namespace podsim::runtime
