// A layout's per-microbatch compute, timed (layer_times.hpp): moved out of the program builder
// so that the planner's lower bound times exactly what the builder schedules.
#include "parallelism/layer_times.hpp"

#include "parallelism/program_builder.hpp"
#include "workload/activation_sizes.hpp"

namespace podsim::parallelism {

namespace {

/// A layer whose offload (or reload) transfer of `transfer_ps` outlasts its compute waits
/// for it at its end: the last compute run is stretched to the transfer's length.
void wait_for_transfer(std::vector<Segment>& segments, SimTime transfer_ps) {
  const SimTime compute = compute_ps(segments);
  if (transfer_ps <= compute) return;
  for (auto it = segments.rbegin(); it != segments.rend(); ++it) {
    if (!it->collective) {
      it->duration_ps += transfer_ps - compute;
      return;
    }
  }
}

}  // namespace

SimTime compute_ps(const std::vector<Segment>& segments) {
  SimTime t = 0;
  for (const Segment& s : segments) t += s.duration_ps;  // a collective segment's is 0
  return t;
}

LayerTimes layer_times(const workload::ModelSpec& model, const hardware::ChipSpec& chip, const ParallelSpec& parallel,
                       const TrainingSpec& training) {
  const auto& prec = training.precision;
  const workload::Slicing slicing = slicing_of(parallel, training);
  const workload::LayerWork layer = workload::transformer_layer(model, slicing);
  const workload::EdgeWork edges = workload::edge_layers(model, slicing);
  const TpOverlap tp_overlap = training.overlap.tp;
  LayerTimes t;
  t.layer_forward = time_segments(layer.forward, chip, prec, tp_overlap, training.host);
  t.layer_backward = time_segments(layer.backward, chip, prec, tp_overlap, training.host);
  t.remat = workload::apply_remat(model, layer, training.recompute, slicing);
  t.layer_recompute = time_segments(t.remat.rerun, chip, prec, tp_overlap, training.host);
  const double offload_bytes = workload::tensors_bytes(model, slicing, t.remat.host);
  if (offload_bytes > 0 && chip.host_bandwidth_Bps > 0) {
    // Offloaded tensors go to host memory during the layer's forward and come back for its
    // backward (pinned-host DMA beside the compute).
    const SimTime transfer = transfer_time_ps(offload_bytes, chip.host_bandwidth_Bps);
    wait_for_transfer(t.layer_forward, transfer);
    wait_for_transfer(t.layer_recompute.empty() ? t.layer_backward : t.layer_recompute, transfer);
  }
  t.embedding_forward = time_segments(edges.embedding_forward, chip, prec, tp_overlap);
  t.embedding_backward = time_segments(edges.embedding_backward, chip, prec, tp_overlap);
  t.head_forward = time_segments(edges.head_forward, chip, prec, tp_overlap);
  t.head_backward = time_segments(edges.head_backward, chip, prec, tp_overlap);
  return t;
}

hardware::OpTime optimizer_time(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                                const ParallelSpec& parallel, const TrainingSpec& training, int stage) {
  const double params = stage_param_count(model, parallel, stage);
  const double updated = parallel.zero >= 1 ? params / zero_shard(parallel) : params;
  double bytes = updated * optimizer_bytes_per_param(training.precision, parallel.zero);
  // fp16 needs loss scaling: every gradient is read once more to unscale and check it.
  if (training.precision.compute == hardware::DType::kFp16) bytes += params * hardware::dtype_bytes(training.precision.grads);
  return hardware::op_time(chip, activation_dtype(training.precision), hardware::OpCost{0, 0, 0, 0, bytes});
}

}  // namespace podsim::parallelism
