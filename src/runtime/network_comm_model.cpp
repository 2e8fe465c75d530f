#include "runtime/network_comm_model.hpp"

#include <algorithm>
#include <set>

#include "collectives/lowering.hpp"
#include "collectives/schedule_runner.hpp"
#include "collectives/transfer_estimate.hpp"
#include "util/byte_buffer.hpp"
#include "util/error.hpp"

namespace podsim::runtime {

namespace {

using parallelism::CommAxis;
using parallelism::CommOp;

/// The position of "tp", "dp", "pp", "dp_replica" in axis_index_.
std::size_t slot(CommAxis axis) {
  switch (axis) {
    case CommAxis::kTp:
      return 0;
    case CommAxis::kDp:
      return 1;
    case CommAxis::kDpReplica:
      return 3;
    default:
      return 2;
  }
}

/// The two chips at positions `a` and `b` of pipeline group `mg` (a message or a tied-embedding
/// sum between two stages), as a group of 2 along its axis.
collectives::Group pair_of(const collectives::Group& mg, int a, int b) {
  collectives::Group pair{{}, {mg.chips[static_cast<std::size_t>(a)], mg.chips[static_cast<std::size_t>(b)]}};
  pair.dims.push_back({mg.dims.empty() ? 0 : mg.dims[0].axis, 2, false});
  return pair;
}

/// Busiest link's busy time in `r`.
SimTime busiest(const collectives::ScheduleResult& r) {
  SimTime most = 0;
  for (const auto& l : r.links) most = std::max(most, l.busy_ps);
  return most;
}

}  // namespace

NetworkCommModel::NetworkCommModel(const topology::Topology& topo, const topology::DeviceMesh& mesh,
                                   const network::NetworkSpec& net, collectives::ScheduleExecutor& executor)
    : topo_(topo),
      mesh_(mesh),
      net_(net),
      executor_(executor),
      link_count_(topo.links().size()),
      axis_index_{mesh.axis_index("tp"), mesh.axis_index("dp"), mesh.axis_index("pp"), mesh.find_axis("dp_replica")} {
  // Link classes: (tier, axis, direction, pipeline stage of the chip end; -1 between switches).
  std::map<std::tuple<int, int, int, int>, std::uint32_t> classes;
  const auto pp = static_cast<std::size_t>(axis_index_[2]);
  link_class_.reserve(link_count_);
  for (const auto& link : topo.links()) {
    const topology::VertexId chip_end = link.src < topo.chips() ? link.src : link.dst;
    const int stage = chip_end < topo.chips() ? mesh.coords(chip_end)[pp] : -1;
    const auto key = std::make_tuple(static_cast<int>(link.tier), link.axis, link.dir, stage);
    const auto [it, added] = classes.emplace(key, static_cast<std::uint32_t>(classes.size()));
    link_class_.push_back(it->second);
    if (added) {
      const std::string label = topology::link_label(topo, static_cast<topology::LinkId>(link_class_.size() - 1));
      class_label_.push_back(stage < 0 ? label : "stage " + std::to_string(stage) + " · " + label);
    }
  }
  class_count_ = classes.size();
}

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

void NetworkCommModel::reset_uses() {
  for (auto& [key, result] : cache_) result.uses = 0;
}

int NetworkCommModel::group_size(CommAxis axis) const {
  if (axis == CommAxis::kOther) return 2;
  const int logical = axis_index_[slot(axis)];
  return logical < 0 ? 1 : mesh_.axes()[static_cast<std::size_t>(logical)].size;
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
  return in_stage;
}

collectives::ScheduleResult NetworkCommModel::run(const collectives::Schedule& schedule) {
  // An analytical run is cheap: every process runs it whole (the answer is the same).
  if (net_.fidelity == network::Fidelity::kAnalytical) return collectives::run_schedule(topo_, net_, schedule);
  return executor_.run(topo_, net_, schedule);
}

std::uint8_t NetworkCommModel::how_run(const collectives::Schedule& schedule) const {
  const std::uint8_t period = schedule.link_images().empty() ? 0 : Measured::kPeriod;
  return period | (collectives::contention_model(net_, schedule) == network::ContentionModel::kFlow ? Measured::kFlows
                                                                                                   : Measured::kChunks);
}

NetworkCommModel::ContentionCounts NetworkCommModel::contention_counts() const {
  // Over the step's communications, however each came here (measured, prefetched by another
  // process, or remembered): the same on every process.
  ContentionCounts c;
  for (const auto& [key, result] : cache_) {
    c.flows += (result.how & Measured::kFlows) != 0 ? 1 : 0;
    c.chunks += (result.how & Measured::kChunks) != 0 ? 1 : 0;
    c.one_group += (result.how & Measured::kOneGroup) != 0 ? 1 : 0;
    c.periods += (result.how & Measured::kPeriod) != 0 ? 1 : 0;
    c.renamed += (result.how & Measured::kRenamed) != 0 ? 1 : 0;
  }
  return c;
}

NetworkCommModel::Result NetworkCommModel::profile_of(const Loads& all, SimTime own_time,
                                                      SimTime own_bandwidth) const {
  Result out;
  const SimTime bandwidth = all.bandwidth_ps;
  out.profile.bandwidth_ps = bandwidth;
  out.profile.latency_ps = std::max<SimTime>(0, own_time - own_bandwidth);
  std::vector<double> fraction = all.class_share.empty() ? std::vector<double>(class_count_, 0.0) : all.class_share;
  for (std::size_t l = 0; l < all.links.links.size(); ++l) {
    const auto& usage = all.links.links[l];
    if (usage.bytes <= 0) continue;
    out.links.push_back({static_cast<topology::LinkId>(l), LinkLoad{usage.bytes, usage.busy_ps}});
    if (bandwidth > 0 && all.class_share.empty()) {
      double& f = fraction[link_class_[l]];
      f = std::max(f, static_cast<double>(usage.busy_ps) / static_cast<double>(bandwidth));
    }
  }
  // The bytes are spread over the collective's whole time: a ring's steps each wait their
  // latency and then move their chunk, and NCCL's channels stream at the rate they achieve, so
  // the links carry the bytes at the achieved rate all along, not at line rate and then idle.
  // The bandwidth part is the whole time alone, and each class (and HBM, step_executor) is
  // loaded at the share of it its busiest link is busy. Front-loading them instead made a
  // faster link slow the compute and collectives beside a rate-limited collective: the same
  // bytes squeezed into less time (a data-parallel reduce-scatter capped by NCCL's two ring
  // channels, 400 → 800 Gb/s InfiniBand: Llama-2 70B's step +9 ms).
  double scale = 1.0;
  if (bandwidth > 0 && out.profile.latency_ps > 0) {
    const SimTime whole = bandwidth + out.profile.latency_ps;
    scale = static_cast<double>(bandwidth) / static_cast<double>(whole);
    out.profile.bandwidth_ps = whole;
    out.profile.latency_ps = 0;
  }
  for (std::size_t c = 0; c < class_count_; ++c) {
    if (fraction[c] > 0) out.profile.uses.push_back({static_cast<std::uint32_t>(c), fraction[c] * scale});
  }
  return out;
}

const std::vector<topology::LinkId>& NetworkCommModel::route(std::uint64_t pair) const {
  auto it = routes_.find(pair);
  if (it != routes_.end()) return it->second;
  const auto src = static_cast<topology::VertexId>(pair >> 32);
  const auto dst = static_cast<topology::VertexId>(pair & 0xFFFF'FFFFu);
  std::vector<topology::LinkId> links;
  for (topology::VertexId at = src; at != dst;) {
    links.push_back(topo_.next_link(at, dst));
    at = topo_.link(links.back()).dst;
  }
  return routes_.emplace(pair, std::move(links)).first->second;
}

NetworkCommModel::PhasePairs NetworkCommModel::sorted(
    std::vector<std::unordered_map<std::uint64_t, std::uint64_t>>&& bytes_of) {
  PhasePairs out;
  for (auto& phase : bytes_of) {
    out.emplace_back(phase.begin(), phase.end());
    std::sort(out.back().begin(), out.back().end());
  }
  return out;
}

NetworkCommModel::Loads NetworkCommModel::charge(const PhasePairs& phases,
                                                 const std::vector<collectives::Group>* groups, int pieces) const {
  // What the analytical network charges each link (AnalyticalNetwork::send), summed without
  // simulating: loads do not depend on when the transfers run. Phases run one after the
  // other, so the bandwidth part is the sum over phases of each phase's busiest link: a
  // slow DCN phase and a shared ICI phase add up, they do not hide each other. The sharing
  // solver spreads a communication's load over its whole bandwidth part, so a class is
  // charged its largest share in any phase: two phased collectives in step contend in every
  // phase (the sharing errs towards contention, as for uneven classes). A pipeline's phases
  // (a hierarchical collective in P pieces: the links inside the slices, the links across)
  // overlap: its bandwidth part is its busiest phase's plus 1/P of each other phase's, what
  // the first and last pieces leave outside the busiest (docs/collectives.md).
  // Byte counts are integers, so the per-pair sums are exact in any order; the pairs are
  // walked in sorted order so the links' floating-point sums are reproducible.
  Loads out;
  out.links.links.resize(link_count_);
  std::vector<SimTime> in_phase(phases.size() > 1 ? link_count_ : 0, 0);
  if (phases.size() > 1) out.class_share.assign(class_count_, 0.0);
  std::vector<topology::LinkId> touched;
  std::vector<SimTime> phase_most;  // each phase's busiest link
  auto add = [&](std::uint64_t pair, double size) {
    for (const topology::LinkId id : route(pair)) {
      const SimTime busy = transfer_time_ps(size, topo_.link(id).bandwidth_Bps);
      out.links.links[id].bytes += size;
      out.links.links[id].busy_ps += busy;
      if (!in_phase.empty()) {
        if (in_phase[id] == 0) touched.push_back(id);
        in_phase[id] += busy;
      }
    }
  };
  for (const auto& pairs : phases) {
    if (groups == nullptr) {
      for (const auto& [key, total] : pairs) add(key, static_cast<double>(total));
    } else {
      for (const auto& g : *groups) {
        for (const auto& [key, total] : pairs) {
          add((std::uint64_t{g.chips[key >> 32]} << 32) | g.chips[key & 0xFFFF'FFFFu], static_cast<double>(total));
        }
      }
    }
    if (in_phase.empty()) continue;
    SimTime most = 0;
    for (const topology::LinkId id : touched) most = std::max(most, in_phase[id]);
    for (const topology::LinkId id : touched) {
      if (most > 0) {
        double& share = out.class_share[link_class_[id]];
        share = std::max(share, static_cast<double>(in_phase[id]) / static_cast<double>(most));
      }
      in_phase[id] = 0;
    }
    touched.clear();
    phase_most.push_back(most);
  }
  if (in_phase.empty()) {
    out.bandwidth_ps = busiest(out.links);
  } else {
    // In one piece (phases in turn) this is the sum of the phases, exactly: integers.
    const SimTime largest = *std::max_element(phase_most.begin(), phase_most.end());
    SimTime all = 0;
    for (const SimTime m : phase_most) all += m;
    out.bandwidth_ps = largest + (all - largest) / pieces;
  }
  return out;
}

NetworkCommModel::PhasePairs NetworkCommModel::whole_pairs(const collectives::Schedule& schedule) {
  // A ring sends 2(n−1) times between the same neighbours: bytes are summed per (source,
  // destination) first, so each route is walked once (routing dominates on big tori). A
  // period's hops, summed so, are then added onto every hop each stands for: the whole
  // collective's traffic.
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> bytes_of(schedule.phases());
  for (collectives::TransferIndex i = 0; i < schedule.size(); ++i) {
    const collectives::PlannedTransfer& t = schedule.transfer(i);
    bytes_of[t.phase][(std::uint64_t{t.src} << 32) | t.dst] += t.bytes;
  }
  if (schedule.link_images().empty()) return sorted(std::move(bytes_of));
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> whole(bytes_of.size());
  for (std::size_t p = 0; p < bytes_of.size(); ++p) {
    for (const auto& [hop, bytes] : bytes_of[p]) {
      const auto images = schedule.hop_images(hop);
      if (images.empty()) throw SimulationError("a symmetric period's transfer stands for no hop of its whole");
      for (const auto& [from, to] : images) whole[p][to] += bytes;
    }
  }
  return sorted(std::move(whole));
}

NetworkCommModel::Loads NetworkCommModel::route_loads(const collectives::Schedule& schedule) const {
  return charge(whole_pairs(schedule), nullptr, schedule.pipeline_pieces());
}

bool NetworkCommModel::same_shape(const std::vector<collectives::Group>& groups) {
  for (const auto& g : groups) {
    if (g.chips.size() != groups.front().chips.size() || g.dims.size() != groups.front().dims.size()) return false;
    for (std::size_t d = 0; d < g.dims.size(); ++d) {
      const auto& x = g.dims[d];
      const auto& y = groups.front().dims[d];
      if (x.axis != y.axis || x.size != y.size || x.wraps != y.wraps) return false;
    }
  }
  return true;
}

std::optional<NetworkCommModel::PhasePairs> NetworkCommModel::position_pairs(const collectives::Schedule& first,
                                                                             const collectives::Group& group) {
  // The group's traffic (the whole collective's, where `first` is a period of it) between
  // member positions. Not when a transfer starts or ends off the group's chips (at an NVLS or
  // SHARP switch): those have no positions.
  std::unordered_map<topology::ChipId, std::uint32_t> position;
  for (std::uint32_t i = 0; i < group.chips.size(); ++i) position.emplace(group.chips[i], i);
  const PhasePairs whole = whole_pairs(first);
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> bytes_of(whole.size());
  for (std::size_t p = 0; p < whole.size(); ++p) {
    for (const auto& [hop, bytes] : whole[p]) {
      const auto src = position.find(static_cast<topology::ChipId>(hop >> 32));
      const auto dst = position.find(static_cast<topology::ChipId>(hop & 0xFFFF'FFFFu));
      if (src == position.end() || dst == position.end()) return std::nullopt;
      bytes_of[p][(std::uint64_t{src->second} << 32) | dst->second] += bytes;
    }
  }
  return sorted(std::move(bytes_of));
}

std::optional<NetworkCommModel::Loads> NetworkCommModel::mapped_loads(
    const collectives::Schedule& first, const std::vector<collectives::Group>& groups) const {
  // The first group's traffic between member positions, replayed on every group's chips.
  const auto pairs = position_pairs(first, groups.front());
  if (!pairs) return std::nullopt;
  return charge(*pairs, &groups, first.pipeline_pieces());
}

bool NetworkCommModel::disjoint_images(const PhasePairs& pairs, const std::vector<collectives::Group>& groups) const {
  // Each group's routes between member positions cross links of the same bandwidth and
  // latency, hop by hop, as the first group's; the first group's links map one to one onto
  // the group's (two of its routes share a link exactly where the first group's do); and no
  // link carries two groups' traffic. Then every group runs exactly as the first does alone,
  // on any network model.
  constexpr std::uint32_t kNone = 0xFFFF'FFFFu;
  std::vector<std::uint32_t> owner(link_count_, kNone);     // the group whose traffic a link carries
  std::vector<topology::LinkId> preimage(link_count_, 0);   // the first group's link it stands for
  std::vector<std::uint32_t> imaged(link_count_, kNone);    // the group whose image of a first-group link...
  std::vector<topology::LinkId> image(link_count_, 0);      // ...is this link
  for (std::uint32_t g = 0; g < groups.size(); ++g) {
    for (const auto& phase : pairs) {
      for (const auto& [key, bytes] : phase) {
        const auto& mine = route((std::uint64_t{groups[g].chips[key >> 32]} << 32) | groups[g].chips[key & 0xFFFF'FFFFu]);
        const auto& first =
            route((std::uint64_t{groups[0].chips[key >> 32]} << 32) | groups[0].chips[key & 0xFFFF'FFFFu]);
        if (mine.size() != first.size()) return false;
        for (std::size_t h = 0; h < mine.size(); ++h) {
          const topology::Link& a = topo_.link(mine[h]);
          const topology::Link& b = topo_.link(first[h]);
          if (a.bandwidth_Bps != b.bandwidth_Bps || a.latency_ps != b.latency_ps) return false;
          if (owner[mine[h]] == kNone) {
            owner[mine[h]] = g;
            preimage[mine[h]] = first[h];
          } else if (owner[mine[h]] != g || preimage[mine[h]] != first[h]) {
            return false;  // another group's link, or one link standing for two of the first's
          }
          if (imaged[first[h]] != g) {
            imaged[first[h]] = g;
            image[first[h]] = mine[h];
          } else if (image[first[h]] != mine[h]) {
            return false;  // one of the first group's links split over two of this group's
          }
        }
      }
    }
  }
  return true;
}

NetworkCommModel::Loads NetworkCommModel::loads_of(const collectives::Schedule& schedule,
                                                   collectives::ScheduleResult&& run) const {
  if (schedule.phases() > 1) {
    // Per phase, as the analytical network charges it (what a link carries does not depend
    // on when); the links' loads as run.
    Loads phased = route_loads(schedule);
    phased.links = std::move(run);
    return phased;
  }
  const SimTime bandwidth = busiest(run);
  return Loads{std::move(run), bandwidth, {}};
}

template <typename Lower>
NetworkCommModel::Result NetworkCommModel::measure(const std::vector<collectives::Group>& groups, Lower&& lower,
                                                   bool period_together, const Lowered* known) {
  if (net_.fidelity != network::Fidelity::kAnalytical) {
    // `known`: lowered already, and whether the first alone stands for all decided (lowered()).
    if (groups.size() > 1 && (known != nullptr ? known->one_group : same_shape(groups))) {
      // Groups that are images of the first on links of their own (a torus's parallel rings)
      // cannot delay each other: the first, simulated alone, times them all.
      collectives::Schedule one;
      lower(one, std::vector<collectives::Group>(groups.begin(), groups.begin() + 1));
      const auto pairs = known != nullptr ? std::optional(known->pairs) : position_pairs(one, groups.front());
      if (pairs && (known != nullptr || disjoint_images(*pairs, groups))) {
        const collectives::ScheduleResult own = run(one);
        const SimTime time = own.finish_ps.empty() ? 0 : own.finish_ps[0];
        const Loads loads = charge(*pairs, &groups, one.pipeline_pieces());
        Result r = profile_of(loads, time, loads.bandwidth_ps);
        r.how = Measured::kOneGroup | how_run(one);
        return r;
      }
    }
    // Simulated together: the time already includes what the groups do to each other.
    collectives::Schedule all;
    lower(all, groups);
    collectives::ScheduleResult every = run(all);
    const SimTime time = every.finish_ps.empty() ? 0 : every.finish_ps[0];
    const std::uint8_t how = how_run(all);
    const Loads loads = loads_of(all, std::move(every));
    Result r = profile_of(loads, time, loads.bandwidth_ps);
    r.how = how;
    return r;
  }
  // The first group alone times every group; where it is a symmetric period (link images),
  // that period stands for its whole.
  const std::vector<collectives::Group> first(groups.begin(), groups.begin() + 1);
  collectives::Schedule one;
  lower(one, first);
  collectives::ScheduleResult own = run(one);
  const SimTime own_time = own.finish_ps.empty() ? 0 : own.finish_ps[0];
  const Loads own_loads = loads_of(one, std::move(own));
  const SimTime own_bandwidth = own_loads.bandwidth_ps;
  if (groups.size() == 1) return profile_of(own_loads, own_time, own_bandwidth);
  // Every group's load along its routes, summed without simulating: the groups lowered
  // together when that is a symmetric period too (a hierarchical collective's first two
  // slices), else the first group's transfers replayed on every group's chips.
  collectives::Schedule all;
  if (!one.link_images().empty() && period_together) {
    lower(all, groups);
    if (!all.link_images().empty()) return profile_of(route_loads(all), own_time, own_bandwidth);
  }
  if (same_shape(groups)) {
    if (const auto mapped = mapped_loads(one, groups)) return profile_of(*mapped, own_time, own_bandwidth);
  }
  if (all.size() == 0) lower(all, groups);
  return profile_of(route_loads(all), own_time, own_bandwidth);
}

NetworkCommModel::KeyLowering NetworkCommModel::lowering_of(const Key& key) {
  const auto axis = static_cast<CommAxis>(std::get<0>(key));
  const auto op = static_cast<CommOp>(std::get<1>(key));
  const std::uint64_t size = std::get<2>(key);
  const int stage = std::get<3>(key);
  const int peer = std::get<4>(key);
  KeyLowering out;
  if (axis == CommAxis::kPp && peer >= 0) {
    // A pipeline message: every chip of stage `stage` sends to its counterpart in `peer`.
    out.groups = groups_of(axis_index_[2]);
    out.lower = [stage, peer, size](collectives::Schedule& schedule, const std::vector<collectives::Group>& some) {
      for (const auto& mg : some) {
        schedule.add(mg.chips[static_cast<std::size_t>(stage)], mg.chips[static_cast<std::size_t>(peer)], size, {});
      }
    };
    out.compute_units = collectives::nccl_p2p_ctas(topo_, pair_of(out.groups.front(), stage, peer));
    return out;
  }
  if (axis == CommAxis::kOther) {
    // The tied-embedding sum: every chip of stage `stage` with its peer in stage `peer`.
    for (const auto& mg : groups_of(axis_index_[2])) out.groups.push_back(pair_of(mg, stage, peer));
    const collectives::CollectiveSpec spec{collective_op(op), collectives::Algorithm::kRing, size};
    out.lower = [this, spec](collectives::Schedule& schedule, const std::vector<collectives::Group>& some) {
      collectives::lower_collective(topo_, spec, some, 0, schedule);
    };
    out.compute_units = collectives::resolve_collective(topo_, spec, out.groups.front()).nccl_ctas;
    return out;
  }
  const collectives::CollectiveSpec spec{collective_op(op), collectives::Algorithm::kAuto, size};
  out.groups = axis_groups(axis_index_[slot(axis)], stage);
  out.lower = [this, spec](collectives::Schedule& schedule, const std::vector<collectives::Group>& some) {
    collectives::lower_collective(topo_, spec, some, 0, schedule);
  };
  out.period_together = collectives::period_spans_groups(topo_, spec, out.groups.front());
  out.compute_units = collectives::resolve_collective(topo_, spec, out.groups.front()).nccl_ctas;
  return out;
}

NetworkCommModel::Result NetworkCommModel::measure_key(const Key& key, Lowered* done) {
  if (done == nullptr) {
    if (auto image = image_of_measured(key)) return std::move(*image);
  }
  KeyLowering l = lowering_of(key);
  if (done != nullptr) {
    // Lowered already (looking for its images): each schedule is taken once, as measure() asks.
    l.lower = [&l, done, lower = std::move(l.lower)](collectives::Schedule& schedule,
                                                     const std::vector<collectives::Group>& some) {
      collectives::Schedule& kept = some.size() == l.groups.size() ? done->all : done->first;
      if (kept.size() > 0 && schedule.size() == 0) {
        schedule = std::move(kept);
        kept = collectives::Schedule{};
      } else {
        lower(schedule, some);
      }
    };
  }
  Result r = measure(l.groups, l.lower, l.period_together, done);
  r.profile.compute_units = l.compute_units;
  return r;
}

bool NetworkCommModel::images_of_stage_zero(CommAxis axis, const collectives::CollectiveSpec& spec, int stage) {
  const int logical = axis_index_[slot(axis)];
  std::vector<collectives::Group> both = axis_groups(logical, 0);
  const std::vector<collectives::Group> mine = axis_groups(logical, stage);
  if (both.empty() || mine.empty()) return false;
  // A hierarchical collective's loads come from its groups lowered together (measure()).
  if (collectives::period_spans_groups(topo_, spec, both.front())) return false;
  both.insert(both.end(), mine.begin(), mine.end());
  return first_stands_for_all(spec, both);
}

bool NetworkCommModel::first_stands_for_all(const collectives::CollectiveSpec& spec,
                                            const std::vector<collectives::Group>& groups) const {
  if (!same_shape(groups)) return false;
  collectives::Schedule one;
  collectives::lower_collective(topo_, spec, {groups.front()}, 0, one);
  const auto pairs = position_pairs(one, groups.front());
  return pairs && disjoint_images(*pairs, groups);
}

SimTime NetworkCommModel::alone_ps(CommAxis axis, CommOp op, double bytes, int stage) {
  const auto key = key_of(axis, op, bytes, stage, -1);
  if (key && memo_ != nullptr) {
    if (const SimTime* known = memo_->alone(memo_context_, *key)) return *known;
  }
  const SimTime alone = [&] {
    if (net_.fidelity == network::Fidelity::kAnalytical && key && stage > 0 && axis != CommAxis::kPp &&
        axis != CommAxis::kOther && cache_.find(*key) == cache_.end() &&
        (memo_ == nullptr || memo_->find(memo_context_, *key) == nullptr)) {
      const collectives::CollectiveSpec spec{collective_op(op), collectives::Algorithm::kAuto, std::get<2>(*key)};
      if (images_of_stage_zero(axis, spec, stage)) return collective(axis, op, bytes, 0, -1).alone_ps();
    }
    return collective(axis, op, bytes, stage, -1).alone_ps();
  }();
  if (key && memo_ != nullptr) memo_->add_alone(memo_context_, *key, alone);
  return alone;
}

bool NetworkCommModel::timed_by_one_group(CommAxis axis, CommOp op, double bytes, int stage, double budget) {
  if (net_.fidelity == network::Fidelity::kAnalytical || group_size(axis) < 2) return false;
  if (axis == CommAxis::kPp || axis == CommAxis::kOther) return false;
  const auto size = static_cast<std::uint64_t>(bytes + 0.5);
  if (size == 0) return false;
  const std::vector<collectives::Group> groups = axis_groups(axis_index_[slot(axis)], stage);
  if (groups.size() < 2) return false;
  const collectives::CollectiveSpec spec{collective_op(op), collectives::Algorithm::kAuto, size};
  if (collectives::estimate_cost(topo_, spec, groups.front(), 1) > budget) return false;
  const bool one = first_stands_for_all(spec, groups);
  stands_for_all_[Key{int(axis), int(op), size, stage, -1}] = one;  // lowered() asks it again
  return one;
}

std::optional<NetworkCommModel::Key> NetworkCommModel::key_of(CommAxis axis, CommOp op, double bytes, int stage,
                                                              int peer) const {
  const auto size = static_cast<std::uint64_t>(bytes + 0.5);
  if (size == 0) return std::nullopt;
  if (axis == CommAxis::kOther) return Key{int(axis), int(op), size, std::min(stage, peer), std::max(stage, peer)};
  if (group_size(axis) < 2) return std::nullopt;
  return Key{int(axis), int(op), size, stage, -1};
}

const CommProfile& NetworkCommModel::collective(CommAxis axis, CommOp op, double bytes, int stage, int peer) {
  static const CommProfile kNothing{};
  const auto key = key_of(axis, op, bytes, stage, peer);
  if (!key) return kNothing;
  return use(*key, [&] { return measure_key(*key); });
}

void NetworkCommModel::repeat_collective(CommAxis axis, CommOp op, double bytes, int stage, int peer,
                                         std::uint64_t times) {
  const auto key = key_of(axis, op, bytes, stage, peer);
  if (key) (void)use(*key, [&] { return measure_key(*key); }, times);
}

void NetworkCommModel::repeat_send(int from, int to, double bytes, std::uint64_t times) {
  const Key key = send_key(from, to, bytes);
  (void)use(key, [&] { return measure_key(key); }, times);
}

NetworkCommModel::Key NetworkCommModel::send_key(int from, int to, double bytes) {
  return Key{int(CommAxis::kPp), int(CommOp::kSendRecv), static_cast<std::uint64_t>(bytes + 0.5), from, to};
}

const CommProfile& NetworkCommModel::send(int from, int to, double bytes) {
  const Key key = send_key(from, to, bytes);
  return use(key, [&] { return measure_key(key); });
}

void NetworkCommModel::prefetch(const parallelism::StepPlan& plan) {
  // Analytical measurements are cheap and run on every process as the step asks for them.
  if (net_.fidelity == network::Fidelity::kAnalytical) return;
  std::vector<Key> keys;
  std::set<Key> seen;
  for (const auto& program : plan.stages) {
    for (const auto& t : program.tasks) {
      std::optional<Key> key;
      if (t.kind == parallelism::TaskKind::kCollective) {
        key = key_of(t.axis, t.op, t.bytes, program.stage, t.peer);
      } else if (t.kind == parallelism::TaskKind::kSend) {
        key = send_key(program.stage, t.peer, t.bytes);
      }
      if (!key || cache_.count(*key) != 0 || !seen.insert(*key).second) continue;
      if (memo_ != nullptr && memo_->find(memo_context_, *key) != nullptr) continue;
      keys.push_back(*key);
    }
  }
  // Families: the communications of one axis, operation and size, in the order the step asks
  // for them. Within one, a communication that is an earlier one (or one measured before) on
  // other chips and links — a pipeline's stages on a torus — takes that one's measurement
  // renamed instead of being simulated. A family is one piece of work, dealt out whole: the
  // process that takes it both proves its images and simulates the rest, and every process
  // would decide alike.
  std::vector<std::vector<Key>> families;
  std::map<Key, std::size_t> family_of;
  for (const Key& key : keys) {
    const auto [it, fresh] = family_of.try_emplace(family_start(key), families.size());
    if (fresh) families.emplace_back();
    families[it->second].push_back(key);
  }
  // What each costs, for dealing them out, in transfers: a message per pipeline, or about a
  // group's size of them from each chip of the stage; the rest of a family mostly images,
  // proved by lowering them (a quarter of simulating, about).
  const double chips_in_stage = static_cast<double>(topo_.chips()) / group_size(CommAxis::kPp);
  std::vector<double> costs;
  for (const auto& family : families) {
    const auto axis = static_cast<CommAxis>(std::get<0>(family.front()));
    const bool pairs = axis == CommAxis::kOther || (axis == CommAxis::kPp && std::get<4>(family.front()) >= 0);
    const double one = pairs ? 2 * chips_in_stage : chips_in_stage * group_size(axis);
    costs.push_back(one * (1 + 0.25 * static_cast<double>(family.size() - 1)));
  }
  const auto results = executor_.share(costs, [&](std::size_t f) { return measure_family(families[f]); });
  for (std::size_t f = 0; f < families.size(); ++f) {
    ByteReader reader(results[f]);
    for (const Key& key : families[f]) {
      const auto it = cache_.emplace(key, Result{measured_from_bytes(reader.block()), 0}).first;
      if (memo_ != nullptr) memo_->add(memo_context_, key, it->second);
    }
  }
}

}  // namespace podsim::runtime
