#include "parallelism/work_bounds.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "parallelism/layer_segments.hpp"
#include "parallelism/program_builder.hpp"
#include "parallelism/zero3_collectives.hpp"
#include "util/sim_time.hpp"
#include "util/units.hpp"

namespace podsim::parallelism {

namespace {

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

WorkEstimate estimate_work(const workload::ModelSpec& model, const ParallelSpec& parallel,
                           const TrainingSpec& training) {
  WorkEstimate w;
  const double per_step = double(parallel.dp) * training.micro_batch;
  w.microbatches = std::ceil(training.global_batch / per_step);
  const workload::Slicing slicing = slicing_of(parallel, training);
  const workload::LayerWork layer = workload::transformer_layer(model, slicing);
  const TpOverlap overlap = training.overlap.tp;
  const double recompute = task_count(workload::recompute_work(model, layer, training.recompute, slicing), overlap);
  // ZeRO-3 adds a gather per layer and pass and a reduce-scatter per layer's backward; per
  // tensor, at most one of each per parameter tensor and pass (zero3_collectives.hpp); hybrid
  // sharding an all-reduce of the replicas after each reduce-scatter.
  // A stack that limits the outstanding reduce-scatters waits once per layer's backward.
  const double wait = training.overlap.fsdp_reduce_limit > 0 ? 1 : 0;
  double zero3 = parallel.zero == 3 && parallel.dp > 1 ? (hybrid_shard(parallel) ? 4 : 3) + wait : 0;
  // Gathered once a step: a gather and a reduce-scatter (and its replicas' all-reduce) per layer.
  const bool once = fsdp_gathers_once(parallel, training);
  if (once) zero3 = 0;
  if (zero3 > 0 && training.zero3_collectives == Zero3Collectives::kPerTensor) {
    zero3 = 4.0 * static_cast<double>(workload::layer_param_tensors(model).size());
  }
  // ZeRO-2 reduce-scatters every microbatch's gradients in buckets: at most one bucket per
  // block whose gradients become ready (and its replicas' all-reduce under hybrid sharding);
  // as FSDP's SHARD_GRAD_OP, a gather in the forward and a reduce-scatter per layer.
  double zero2 = parallel.zero == 2 && parallel.dp > 1 ? (hybrid_shard(parallel) ? 2 : 1) : 0;
  if (zero2 > 0 && workload::stack_profile(training.stack).zero2_shard_grad_op) zero2 += 1 + wait;
  w.layers = model.layers;
  w.ops_per_layer =
      task_count(layer.forward, overlap) + task_count(layer.backward, overlap) + recompute + zero3 + zero2;
  // Every microbatch crosses every layer once forward and once backward, on some stage;
  // each pass of a virtual stage adds a receive (or input) and a send.
  const double passes = w.microbatches * parallel.pp * parallel.virtual_stages * 2;
  w.tasks = w.microbatches * model.layers * w.ops_per_layer + passes * 2 + 64.0 * parallel.pp;
  if (once) w.tasks += model.layers * (hybrid_shard(parallel) ? 3.0 : 2.0);
  w.memory_bytes = w.tasks * kBytesPerTask;
  return w;
}

std::optional<std::string> over_budget(const WorkEstimate& work, const TrainingSpec& training) {
  if (work.tasks <= kTaskBudget) return std::nullopt;
  return "this step would build about " + sci(work.tasks) + " tasks (about " +
         units::format_bytes(work.memory_bytes) + " of memory): " + sci(work.microbatches) +
         " microbatches per replica (of " + std::to_string(training.micro_batch) + " sequences) × " +
         std::to_string(work.layers) + " layers × " + sci(work.ops_per_layer) +
         " operations per layer; podsim's budget is " + sci(kTaskBudget) +
         " tasks (" + units::format_bytes(kTaskBudget * kBytesPerTask) +
         "): use a larger training.micro_batch or a smaller global_batch, or pass --force";
}

void check_representable(const workload::ModelSpec& model, const hardware::ChipSpec& chip,
                         const ParallelSpec& parallel, const TrainingSpec& training, std::uint32_t chips) {
  const double limit_s = to_seconds(kMaxStepPs);
  const std::string beyond = ", beyond the " + units::format_fixed(limit_s / 86400, 1) +
                             " simulated days (2^60 ps) podsim's clock holds for one step";
  // Compute at the chip's peak is a lower bound of the step: if even that is beyond the
  // clock, nothing about the network can save it.
  const auto peak = chip.peak_flops.find(training.precision.compute);
  if (peak != chip.peak_flops.end()) {
    const double tokens = double(training.global_batch) * training.seq_len;
    const double flops_per_chip = workload::model_flops_per_token(model, training.seq_len) * tokens / chips;
    const double seconds = flops_per_chip / peak->second;
    if (!(seconds < limit_s)) {
      // Which input makes it so: attention (quadratic in seq_len) or the batch.
      const double dense = workload::model_flops_per_token(model, 1);
      const bool attention = workload::model_flops_per_token(model, training.seq_len) > 2 * dense;
      throw LayoutError(attention ? "training.seq_len" : "training.global_batch",
                        "one step is " + sci(flops_per_chip) + " FLOP per chip (" + std::to_string(training.global_batch) +
                            " sequences of " + std::to_string(training.seq_len) + " tokens): " + sci(seconds) +
                            " s at the " + std::string(hardware::dtype_name(training.precision.compute)) + " peak of " +
                            units::format_fixed(peak->second / 1e12, 1) + " TFLOP/s" + beyond);
    }
  }
  const double per_replica = double(training.global_batch) / parallel.dp;
  if (training.input.samples_per_s > 0 && !(per_replica / training.input.samples_per_s < limit_s)) {
    throw LayoutError("training.input.samples_per_s",
                      "each host needs " + sci(per_replica / training.input.samples_per_s) + " s to produce its " +
                          sci(per_replica) + " samples of a step at " + sci(training.input.samples_per_s) +
                          " samples/s" + beyond);
  }
  // Pipeline messages are numbered per (direction, virtual stage, microbatch) in 32 bits.
  const double microbatches = std::ceil(per_replica / training.micro_batch);
  if (microbatches * 2.0 * parallel.pp * parallel.virtual_stages >= 4294967296.0) {
    throw LayoutError("training.global_batch", sci(microbatches) + " microbatches per replica through " +
                                                   std::to_string(parallel.pp * parallel.virtual_stages) +
                                                   " pipeline stages are more than podsim numbers (2^32 messages)");
  }
}

}  // namespace podsim::parallelism
