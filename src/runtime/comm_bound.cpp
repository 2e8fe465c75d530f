#include "runtime/comm_bound.hpp"

#include "collectives/schedule_runner.hpp"
#include "parallelism/program_builder.hpp"
#include "runtime/network_comm_model.hpp"
#include "topology/device_mesh.hpp"

namespace podsim::runtime {

namespace {

/// Calls `measure(comm)` with the analytical network's communication model of `s`, sharing
/// measurements through `memo`.
template <typename Measure>
void with_analytical_model(const Scenario& s, const topology::Topology& topo, CommMemo& memo, Measure measure) {
  const auto& eff = s.chip.efficiency;
  const topology::TopologySpec links = topology::with_link_efficiency(s.topology, eff.ici, eff.dcn);
  const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(s.parallel));
  network::NetworkSpec net = s.network;
  net.fidelity = network::Fidelity::kAnalytical;
  collectives::SequentialExecutor here;
  NetworkCommModel comm(topo, mesh, net, here);
  comm.share_measurements(memo, memo.context(links, net, mesh.describe()));
  measure(comm);
}

}  // namespace

parallelism::TpTimes tp_alone_times(const Scenario& s, const topology::Topology& topo, CommMemo& memo,
                                    const std::array<bool, 3>& ops) {
  if (s.parallel.tp < 2) return {};
  parallelism::TpTimes out{std::vector<std::array<SimTime, 3>>(static_cast<std::size_t>(s.parallel.pp)), ops};
  const double bytes = parallelism::tp_buffer_bytes(s.model, s.training);
  using parallelism::CommOp;
  with_analytical_model(s, topo, memo, [&](NetworkCommModel& comm) {
    for (int stage = 0; stage < s.parallel.pp; ++stage) {
      for (CommOp op : {CommOp::kAllReduce, CommOp::kAllGather, CommOp::kReduceScatter}) {
        if (!ops[static_cast<std::size_t>(op)]) continue;  // left 0
        out.per_stage[static_cast<std::size_t>(stage)][static_cast<std::size_t>(op)] =
            comm.alone_ps(parallelism::CommAxis::kTp, op, bytes, stage);
      }
    }
  });
  return out;
}

std::vector<parallelism::Zero3Times> zero3_alone_times(const Scenario& s, const topology::Topology& topo,
                                                       CommMemo& memo) {
  const auto& p = s.parallel;
  if (p.zero != 3 || p.dp < 2 || s.training.zero3_collectives != parallelism::Zero3Collectives::kFlat) return {};
  std::vector<parallelism::Zero3Times> out(static_cast<std::size_t>(p.pp));
  const auto& prec = s.training.precision;
  // As the program builder sizes them: a layer's parameters per chip (÷ tp), in the
  // communication dtype to gather, in the reduction's to reduce-scatter.
  const double params = workload::count_params(s.model).per_layer / p.tp;
  const double gather = params * hardware::dtype_bytes(prec.comm);
  const double reduce = params * hardware::dtype_bytes(parallelism::reduce_dtype(prec));
  using parallelism::CommOp;
  with_analytical_model(s, topo, memo, [&](NetworkCommModel& comm) {
    for (int stage = 0; stage < p.pp; ++stage) {
      auto& t = out[static_cast<std::size_t>(stage)];
      t.gather_ps = comm.alone_ps(parallelism::CommAxis::kDp, CommOp::kAllGather, gather, stage);
      t.reduce_ps = comm.alone_ps(parallelism::CommAxis::kDp, CommOp::kReduceScatter, reduce, stage);
    }
  });
  return out;
}

}  // namespace podsim::runtime
