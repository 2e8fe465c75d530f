#include "validation/layer_time.hpp"

#include "collectives/schedule_runner.hpp"
#include "parallelism/layer_segments.hpp"
#include "parallelism/program_builder.hpp"
#include "runtime/network_comm_model.hpp"
#include "topology/topology.hpp"

namespace podsim::validation {

double layer_seconds(const runtime::Scenario& s) {
  const auto& eff = s.chip.efficiency;
  const topology::Topology topo(topology::with_link_efficiency(s.topology, eff.ici, eff.dcn));
  parallelism::check_layout(s.model, s.chip, s.parallel, s.training, topo.chips());
  const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(s.parallel));
  collectives::SequentialExecutor executor;
  runtime::NetworkCommModel comm(topo, mesh, s.network, executor);

  const workload::Slicing slicing = parallelism::slicing_of(s.parallel, s.training);
  const workload::LayerWork layer = workload::transformer_layer(s.model, slicing);
  const auto& prec = s.training.precision;
  // Each tensor-parallel collective moves the whole b·s·h activation (program_builder).
  const double tp_bytes = double(s.training.micro_batch) * s.training.seq_len * s.model.hidden *
                          hardware::dtype_bytes(prec.comm);
  SimTime total = 0;
  for (const auto* items : {&layer.forward, &layer.backward}) {
    for (const auto& seg : parallelism::time_segments(*items, s.chip, prec, parallelism::TpOverlap::kNone, s.training.host)) {
      total += seg.collective ? comm.collective(parallelism::CommAxis::kTp, seg.op, tp_bytes, 0, -1).alone_ps() : seg.duration_ps;
    }
  }
  const auto recompute = workload::recompute_work(s.model, layer, s.training.recompute, slicing);
  for (const auto& seg : parallelism::time_segments(recompute, s.chip, prec, parallelism::TpOverlap::kNone, s.training.host)) {
    total += seg.collective ? comm.collective(parallelism::CommAxis::kTp, seg.op, tp_bytes, 0, -1).alone_ps() : seg.duration_ps;
  }
  return to_seconds(total);
}

}  // namespace podsim::validation
