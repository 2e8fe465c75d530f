#include "runtime/step_work.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "collectives/transfer_estimate.hpp"
#include "parallelism/work_bounds.hpp"
#include "util/units.hpp"

namespace podsim::runtime {

namespace {

using parallelism::CommAxis;
using parallelism::CommOp;

collectives::Op op_of(CommOp op) {
  switch (op) {
    case CommOp::kAllGather: return collectives::Op::kAllGather;
    case CommOp::kReduceScatter: return collectives::Op::kReduceScatter;
    case CommOp::kSendRecv: return collectives::Op::kSendRecv;
    default: return collectives::Op::kAllReduce;
  }
}

const char* axis_name(CommAxis axis) {
  switch (axis) {
    case CommAxis::kTp: return "tp";
    case CommAxis::kDp: return "dp";
    case CommAxis::kDpReplica: return "dp_replica";
    default: return "pp";
  }
}

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// A logical axis of the mesh: its groups' shape and how many of them run at once (in one
/// pipeline stage; the pipeline axis's groups all at once).
struct Axis {
  collectives::Group shape;
  double per_stage = 0;
};

std::map<CommAxis, Axis> axes_of(const topology::DeviceMesh& mesh, std::uint32_t chips) {
  std::map<CommAxis, Axis> axes;
  const int pp = mesh.find_axis("pp");
  const double stages = pp < 0 ? 1 : mesh.axes()[static_cast<std::size_t>(pp)].size;
  for (const CommAxis a : {CommAxis::kTp, CommAxis::kDp, CommAxis::kDpReplica, CommAxis::kPp}) {
    const int logical = mesh.find_axis(axis_name(a));
    if (logical < 0 || mesh.axes()[static_cast<std::size_t>(logical)].size < 2) continue;
    const double count = static_cast<double>(chips) / mesh.axes()[static_cast<std::size_t>(logical)].size;
    axes[a] = Axis{mesh.first_group(logical), a == CommAxis::kPp ? count : count / stages};
  }
  return axes;
}

std::string collective_text(CommAxis axis, collectives::Op op, std::uint64_t size, double together,
                            std::uint32_t chips) {
  return std::string(axis_name(axis)) + " " + std::string(collectives::op_name(op)) +
         (size > 0 ? " of " + units::format_bytes(static_cast<double>(size)) : std::string()) + " on " + sci(together) +
         (together == 1 ? " group" : " groups") + " of " + std::to_string(chips) + " chips";
}

/// Adds a collective of `transfers` (weighted) whose largest schedule is `schedule`, each
/// simulated transfer costing `each` seconds.
void add(CommWork& w, double transfers, double schedule, double each, CommAxis axis, const std::string& what) {
  ++w.collectives;
  w.transfers += transfers;
  w.seconds += transfers * each;
  if (schedule > w.largest) {
    w.largest = schedule;
    w.largest_what = what;
    w.largest_axis = axis;
  }
}

void finish(CommWork& w) { w.memory_bytes = w.largest * kBytesPerTransfer; }

}  // namespace

const char* axis_key(CommAxis axis) {
  switch (axis) {
    case CommAxis::kTp: return "parallelism.tp";
    case CommAxis::kDp: return "parallelism.dp";
    case CommAxis::kDpReplica: return "parallelism.zero_group";
    default: return "parallelism.pp";
  }
}

double seconds_per_transfer(const network::NetworkSpec& net, double chips, double mean_bytes) {
  const bool flows = network::contention_model_for(net, mean_bytes) == network::ContentionModel::kFlow;
  // The chunks the chunk model cuts a message into.
  const auto bytes = static_cast<std::uint64_t>(std::max(0.0, mean_bytes));
  const double chunks = std::max(1.0, std::ceil(mean_bytes / static_cast<double>(network::chunk_bytes(net, bytes))));
  const double base = net.fidelity == network::Fidelity::kAnalytical ? kAnalyticalSecondsPerTransfer
                      : flows                                        ? kFlowSecondsPerTransfer
                                                                     : kChunkedSecondsPerTransfer + kSecondsPerChunk * chunks;
  return base * std::pow(std::max(1.0, chips / kCacheChips), kCacheExponent);
}

double repeated_step_seconds(const Scenario& s) {
  return static_cast<double>(topology::chip_count(s.topology)) * kSecondsPerChip +
         parallelism::estimate_work(s.model, s.parallel, s.training).tasks * kSecondsPerRepeatedTask;
}

CommWork estimate_comm_work(
    const parallelism::StepPlan& plan, const topology::Topology& topo, const topology::DeviceMesh& mesh,
    const network::NetworkSpec& net,
    const std::function<bool(parallelism::CommAxis, parallelism::CommOp, double, int)>& one_group) {
  const bool contention = net.fidelity != network::Fidelity::kAnalytical;
  std::map<CommAxis, Axis> axes = axes_of(mesh, topo.chips());
  CommWork w;
  std::set<std::tuple<int, int, std::uint64_t, int, int>> seen;
  for (std::size_t st = 0; st < plan.stages.size(); ++st) {
    for (const auto& t : plan.stages[st].tasks) {
      if (t.kind != parallelism::TaskKind::kCollective && t.kind != parallelism::TaskKind::kSend) continue;
      const auto size = static_cast<std::uint64_t>(t.bytes + 0.5);
      const auto axis = t.kind == parallelism::TaskKind::kSend ? CommAxis::kPp : t.axis;
      const bool pairs = axis == CommAxis::kPp || axis == CommAxis::kOther;
      if (size == 0 || (!pairs && axes.count(axis) == 0)) continue;
      const int peer = pairs ? t.peer : -1;
      // insert, not emplace: emplace makes the node before it looks, and nearly every task repeats a key.
      if (!seen.insert({int(axis), int(t.op), size, static_cast<int>(st), peer}).second) continue;
      if (pairs) {
        // A message or a tied-embedding sum: one transfer (a pair's ring of one step) per
        // pipeline group, all in one schedule on either network.
        const double groups = axes.count(CommAxis::kPp) != 0 ? axes[CommAxis::kPp].per_stage : 1;
        const double transfers = groups * (t.kind == parallelism::TaskKind::kSend ? 1 : 2);
        add(w, transfers, transfers, seconds_per_transfer(net, topo.chips(), t.bytes), CommAxis::kPp,
            "pipeline messages between " + sci(groups) + " pairs of chips");
      } else {
        const Axis& a = axes[axis];
        const collectives::CollectiveSpec spec{op_of(t.op), collectives::Algorithm::kAuto, size};
        const double together = contention ? a.per_stage : 1;
        // Groups that are images of the first on links of their own are timed by it alone.
        const bool alone = contention && together > 1 && one_group && one_group(axis, t.op, t.bytes, plan.stages[st].stage);
        const double schedule =
            collectives::estimate_cost(topo, spec, a.shape, static_cast<std::size_t>(alone ? 1 : together));
        // The analytical network maps one group's loads onto every group: a walk of each
        // chip's routes, about a transfer per chip.
        // A transfer's mean size: the bytes every chip of every group sends over the
        // transfers that carry them (what network.contention auto decides by).
        // (A symmetric collective's period has its whole's mean: count the whole.)
        const double n = a.shape.size();
        const double whole = collectives::estimate_cost(topo, spec, a.shape, static_cast<std::size_t>(together),
                                                        collectives::Symmetry::kWhole);
        const double mean = collectives::bus_bandwidth_factor(spec.op, a.shape.size()) * t.bytes * n * together /
                            std::max(1.0, whole);
        add(w, schedule + (contention ? 0 : a.per_stage * n), schedule, seconds_per_transfer(net, topo.chips(), mean),
            axis,
            collective_text(axis, spec.op, size, alone ? 1 : together, a.shape.size()));
      }
    }
  }
  finish(w);
  return w;
}

CommWork bound_comm_work(const topology::Topology& topo, const topology::DeviceMesh& mesh,
                         const network::NetworkSpec& net) {
  const bool contention = net.fidelity != network::Fidelity::kAnalytical;
  const std::map<CommAxis, Axis> axes = axes_of(mesh, topo.chips());
  const double stages = axes.count(CommAxis::kPp) != 0 ? axes.at(CommAxis::kPp).shape.size() : 1;
  CommWork w;
  for (const auto& [axis, a] : axes) {
    if (axis == CommAxis::kPp) {
      // Each stage's messages to its neighbours, forward and backward.
      add(w, 2 * stages * a.per_stage, a.per_stage,
          seconds_per_transfer(net, topo.chips(), static_cast<double>(kTypicalCollectiveBytes)), axis,
          "pipeline messages between " + sci(a.per_stage) + " pairs");
      continue;
    }
    const double together = contention ? a.per_stage : 1;
    const auto groups = static_cast<std::size_t>(together);
    // The largest schedule any size could need (memory), and the time at a typical size (an
    // activation or gradient bucket): NCCL's choice depends on the size, and a tree at its
    // piece cap is far from what it runs for the sizes a step has.
    const double schedule = collectives::max_cost(topo, collectives::Op::kAllReduce, a.shape, groups);
    const double typical = collectives::estimate_cost(
        topo, {collectives::Op::kAllReduce, collectives::Algorithm::kAuto, kTypicalCollectiveBytes}, a.shape, groups);
    const double each = typical + (contention ? 0 : a.per_stage * a.shape.size());
    const double whole = collectives::estimate_cost(
        topo, {collectives::Op::kAllReduce, collectives::Algorithm::kAuto, kTypicalCollectiveBytes}, a.shape, groups,
        collectives::Symmetry::kWhole);
    const double mean = collectives::bus_bandwidth_factor(collectives::Op::kAllReduce, a.shape.size()) *
                        static_cast<double>(kTypicalCollectiveBytes) * a.shape.size() * together /
                        std::max(1.0, whole);
    add(w, each * kCollectivesPerAxis * stages, schedule, seconds_per_transfer(net, topo.chips(), mean), axis,
        collective_text(axis, collectives::Op::kAllReduce, 0, together, a.shape.size()));
    w.collectives += static_cast<std::size_t>(kCollectivesPerAxis * stages) - 1;
  }
  finish(w);
  return w;
}

std::optional<std::string> over_budget(const CommWork& work, const network::NetworkSpec& net) {
  const bool schedule = work.largest > kScheduleBudget;
  if (!schedule && work.seconds <= kCommSecondsBudget) return std::nullopt;
  const std::string network = net.fidelity == network::Fidelity::kAnalytical ? "analytical" : "contention-aware";
  std::string why = "simulating this step's communication would take about " + units::format_fixed(work.seconds, 0) +
                    " s on one core: " + std::to_string(work.collectives) + " distinct collectives, " +
                    sci(work.transfers) + " transfers on the " + network + " network; the largest, " +
                    work.largest_what + ", is " + sci(work.largest) + " transfers (about " +
                    units::format_bytes(work.memory_bytes) + " of memory)";
  why += schedule ? "; podsim's budget is " + sci(kScheduleBudget) + " transfers in one collective ("
                  : "; podsim's budget is ";
  why += schedule ? units::format_bytes(kScheduleBudget * kBytesPerTransfer) + ")"
                  : units::format_fixed(kCommSecondsBudget, 0) + " s of communication per step";
  return why + ": use smaller groups on that axis (more tensor or pipeline parallelism, hybrid ZeRO groups), " +
         (net.fidelity == network::Fidelity::kAnalytical ? "" : "the analytical network, ") + "or pass --force";
}

}  // namespace podsim::runtime
