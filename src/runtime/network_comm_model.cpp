#include "runtime/network_comm_model.hpp"


#include "collectives/lowering.hpp"
#include "collectives/schedule_runner.hpp"

namespace podsim::runtime {

namespace {

using parallelism::CommAxis;
using parallelism::CommOp;

/// The position of "tp", "dp", "pp" in axis_index_.
std::size_t slot(CommAxis axis) { return axis == CommAxis::kTp ? 0 : axis == CommAxis::kDp ? 1 : 2; }

}  // namespace

std::vector<collectives::Group> NetworkCommModel::representative_or_all(std::vector<collectives::Group> groups) const {
  // Without contention, groups of one axis cannot slow each other, and every group has
  // the same shape: one of them gives the time (and, by symmetry, the busiest link).
  if (net_.fidelity == network::Fidelity::kAnalytical && groups.size() > 1) groups.resize(1);
  return groups;
}

NetworkCommModel::NetworkCommModel(const topology::Topology& topo, const topology::DeviceMesh& mesh,
                                   const network::NetworkSpec& net, collectives::ScheduleExecutor& executor)
    : topo_(topo),
      mesh_(mesh),
      net_(net),
      executor_(executor),
      link_count_(topo.links().size()),
      axis_index_{mesh.axis_index("tp"), mesh.axis_index("dp"), mesh.axis_index("pp")} {}

std::vector<LinkLoad> NetworkCommModel::link_loads() const {
  std::vector<LinkLoad> loads(link_count_);
  for (const auto& [key, result] : cache_) {
    for (const auto& [link, load] : result.links) {
      loads[link].bytes += static_cast<double>(result.uses) * load.bytes;
      loads[link].busy_ps += static_cast<SimTime>(result.uses) * load.busy_ps;
    }
  }
  return loads;
}

int NetworkCommModel::group_size(CommAxis axis) const {
  if (axis == CommAxis::kOther) return 2;
  return mesh_.axes()[static_cast<std::size_t>(axis_index_[slot(axis)])].size;
}

const std::vector<collectives::Group>& NetworkCommModel::groups_of(int logical_axis) {
  auto it = groups_.find(logical_axis);
  if (it == groups_.end()) it = groups_.emplace(logical_axis, mesh_.groups(logical_axis)).first;
  return it->second;
}

std::vector<collectives::Group> NetworkCommModel::axis_groups(int logical_axis, int stage) {
  // The groups of this axis inside pipeline stage `stage`: they run this collective
  // together (the other stages run theirs at other times).
  const int pp = axis_index_[2];
  std::vector<collectives::Group> in_stage;
  for (const auto& mg : groups_of(logical_axis)) {
    if (mesh_.coords(mg.chips.front())[static_cast<std::size_t>(pp)] == stage) in_stage.push_back(mg);
  }
  return representative_or_all(std::move(in_stage));
}

NetworkCommModel::Result NetworkCommModel::run(const collectives::Schedule& schedule) {
  // One analytical group is tiny: every process runs it whole (the answer is the same).
  const collectives::ScheduleResult r = net_.fidelity == network::Fidelity::kAnalytical
                                            ? collectives::run_schedule(topo_, net_, schedule)
                                            : executor_.run(topo_, net_, schedule);
  Result out;
  out.time_ps = r.finish_ps.empty() ? 0 : r.finish_ps[0];
  for (std::size_t l = 0; l < r.links.size(); ++l) {
    if (r.links[l].bytes > 0) out.links.push_back({static_cast<topology::LinkId>(l), LinkLoad{r.links[l].bytes, r.links[l].busy_ps}});
  }
  return out;
}

SimTime NetworkCommModel::collective(CommAxis axis, CommOp op, double bytes, int stage, int peer) {
  const auto size = static_cast<std::uint64_t>(bytes + 0.5);
  if (size == 0) return 0;
  if (axis == CommAxis::kOther) {
    // The tied-embedding sum: every chip of one stage with its peer in the other stage.
    const int lo = std::min(stage, peer);
    const int hi = std::max(stage, peer);
    return use(Key{int(axis), int(op), size, lo, hi}, [&] {
      const int pp = axis_index_[2];
      std::vector<collectives::Group> pairs;
      for (const auto& mg : representative_or_all(groups_of(pp))) {
        pairs.push_back(collectives::Group{{}, {mg.chips[static_cast<std::size_t>(lo)], mg.chips[static_cast<std::size_t>(hi)]}});
        pairs.back().dims.push_back({mg.dims.empty() ? 0 : mg.dims[0].axis, 2, false});
      }
      collectives::Schedule schedule;
      collectives::lower_collective(topo_, {collective_op(op), collectives::Algorithm::kRing, size}, pairs, 0, schedule);
      return run(schedule);
    });
  }
  const int logical = axis_index_[slot(axis)];
  if (group_size(axis) < 2) return 0;
  return use(Key{int(axis), int(op), size, stage, -1}, [&] {
    collectives::Schedule schedule;
    collectives::lower_collective(topo_, {collective_op(op), collectives::Algorithm::kAuto, size}, axis_groups(logical, stage),
                                  0, schedule);
    return run(schedule);
  });
}

SimTime NetworkCommModel::send(int from, int to, double bytes) {
  const auto size = static_cast<std::uint64_t>(bytes + 0.5);
  return use(Key{int(CommAxis::kPp), int(CommOp::kSendRecv), size, from, to}, [&] {
    // Every chip of stage `from` sends to its counterpart in stage `to` at once.
    collectives::Schedule schedule;
    const int pp = axis_index_[2];
    for (const auto& mg : representative_or_all(groups_of(pp))) {
      schedule.add(mg.chips[static_cast<std::size_t>(from)], mg.chips[static_cast<std::size_t>(to)], size, {});
    }
    return run(schedule);
  });
}

}  // namespace podsim::runtime
