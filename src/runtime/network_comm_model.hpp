#pragma once

#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "collectives/group.hpp"
#include "collectives/schedule.hpp"
#include "collectives/schedule_runner.hpp"
#include "network/network_model.hpp"
#include "runtime/comm_model.hpp"
#include "topology/device_mesh.hpp"

namespace podsim::runtime {

/// Load one directed link carried during a step.
struct LinkLoad {
  double bytes = 0;
  SimTime busy_ps = 0;
};

/// Communication simulated on the network model of a scenario.
///
/// Every distinct communication (axis, operation, size, stage) is lowered with the
/// collectives module — every group of that parallelism axis in that pipeline stage at
/// once, as a sharded program runs them — and simulated once on the network (analytical or
/// contention-aware); the time is then reused for every occurrence. So contention between the groups of one axis is modelled;
/// contention between different axes overlapping in time is not (docs/runtime.md).
/// Each occurrence adds the simulated per-link load to the step's link totals. On the
/// analytical network groups cannot interfere and all have one shape, so one group per
/// axis is simulated: the times are the same, and link loads cover that group's links.
class NetworkCommModel final : public CommModel {
 public:
  /// `topo` should already carry the hardware's link efficiencies. Contention-aware runs
  /// go through `executor` (which may split them over MPI processes).
  NetworkCommModel(const topology::Topology& topo, const topology::DeviceMesh& mesh,
                   const network::NetworkSpec& net, collectives::ScheduleExecutor& executor);

  SimTime collective(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage, int peer) override;
  SimTime send(int from, int to, double bytes) override;
  int group_size(parallelism::CommAxis axis) const override;

  /// Per directed link: load summed over every communication of the step so far.
  std::vector<LinkLoad> link_loads() const;
  /// Distinct communications simulated (cache misses).
  std::size_t simulated() const { return cache_.size(); }

 private:
  struct Result {
    SimTime time_ps = 0;
    std::vector<std::pair<topology::LinkId, LinkLoad>> links;  // links it used
    std::uint64_t uses = 0;                                     // occurrences in the step
  };
  using Key = std::tuple<int, int, std::uint64_t, int, int>;

  /// The time of communication `key`, simulated on first use; counts the occurrence.
  template <typename Simulate>
  SimTime use(const Key& key, Simulate&& simulate) {
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, simulate()).first;
    ++it->second.uses;
    return it->second.time_ps;
  }
  Result run(const collectives::Schedule& schedule);
  std::vector<collectives::Group> axis_groups(int logical_axis, int stage);
  std::vector<collectives::Group> representative_or_all(std::vector<collectives::Group> groups) const;
  /// mesh_.groups(axis), computed once per axis (it walks every chip).
  const std::vector<collectives::Group>& groups_of(int logical_axis);

  const topology::Topology& topo_;
  const topology::DeviceMesh& mesh_;
  network::NetworkSpec net_;
  collectives::ScheduleExecutor& executor_;
  std::map<Key, Result> cache_;
  std::map<int, std::vector<collectives::Group>> groups_;
  std::size_t link_count_;
  int axis_index_[3];  // the mesh's logical axes "tp", "dp", "pp"
};

}  // namespace podsim::runtime
