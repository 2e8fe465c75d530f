#include "memory/memory_model.hpp"

#include <algorithm>
#include <cstdio>

#include "parallelism/pipeline_schedule.hpp"
#include "parallelism/program_builder.hpp"
#include "parallelism/stage_layers.hpp"
#include "parallelism/zero3_collectives.hpp"
#include "workload/activation_sizes.hpp"

namespace podsim::memory {

namespace {
workload::LayerRemat remat_of(const workload::ModelSpec& m, const workload::Slicing& s, parallelism::Recompute r) {
  return workload::apply_remat(m, workload::transformer_layer(m, s), r, s);
}
}  // namespace

double layer_activation_bytes(const workload::ModelSpec& m, const workload::Slicing& s,
                              parallelism::Recompute recompute) {
  return workload::tensors_bytes(m, s, remat_of(m, s, recompute).kept);
}

double layer_host_bytes(const workload::ModelSpec& m, const workload::Slicing& s, parallelism::Recompute recompute) {
  return workload::tensors_bytes(m, s, remat_of(m, s, recompute).host);
}

double layer_recompute_bytes(const workload::ModelSpec& m, const workload::Slicing& s,
                             parallelism::Recompute recompute) {
  if (recompute == parallelism::Recompute::kNone) return 0;
  const workload::TensorSet needed = workload::needed_by_backward(s.flash_attention, m.dropout, m.parallel_block);
  return workload::tensors_bytes(m, s, needed & ~remat_of(m, s, recompute).kept);
}

std::vector<MemoryBreakdown> stage_memory(const workload::ModelSpec& m, const hardware::ChipSpec& chip,
                                          const parallelism::ParallelSpec& p,
                                          const parallelism::TrainingSpec& t, parallelism::PipelineOrders* orders) {
  using hardware::dtype_bytes;
  const auto& prec = t.precision;
  const workload::Slicing slicing = parallelism::slicing_of(p, t);
  const workload::LayerRemat remat = remat_of(m, slicing, t.recompute);
  const double per_layer = workload::tensors_bytes(m, slicing, remat.kept);
  const double per_layer_host = workload::tensors_bytes(m, slicing, remat.host);
  const workload::TensorSet needed =
      workload::needed_by_backward(slicing.flash_attention, m.dropout, m.parallel_block);
  const double recompute =
      t.recompute == parallelism::Recompute::kNone ? 0.0 : workload::tensors_bytes(m, slicing, needed & ~remat.kept);
  const int m_micro = parallelism::microbatches(p, t);
  const auto vs_layers = parallelism::virtual_stage_layers(m, p);
  const double layer_params = workload::count_params(m).per_layer / p.tp;
  const double dp = parallelism::zero_shard(p);  // the replicas ZeRO shards over
  const bool working_copy = parallelism::working_weight_copy(prec, p.zero);
  // ZeRO-3 gathered once a step: the stage's parameters stay gathered and its gradients
  // accumulate whole (in the reduction's dtype) from the first forward to the step's end.
  const bool gathered_once = parallelism::fsdp_gathers_once(p, t);

  std::vector<MemoryBreakdown> out;
  for (int stage = 0; stage < p.pp; ++stage) {
    MemoryBreakdown mem;
    const double params = parallelism::stage_param_count(m, p, stage);
    const double shard = params / dp;
    if (p.zero == 3) {
      mem.weights = shard * dtype_bytes(prec.params);
      if (gathered_once) mem.weights += params * dtype_bytes(prec.comm);
    } else if (working_copy) {
      mem.weights = params * dtype_bytes(parallelism::activation_dtype(prec));
    } else {
      mem.weights = params * dtype_bytes(prec.params);
    }
    mem.gradients = gathered_once ? params * dtype_bytes(parallelism::reduce_dtype(prec))
                                  : (p.zero >= 2 ? shard : params) * dtype_bytes(prec.grads);
    const double optimizer_params = p.zero >= 1 ? shard : params;
    double master = parallelism::separate_master_weights(prec) ? dtype_bytes(prec.optimizer) : 0.0;
    if (working_copy) master = dtype_bytes(prec.params);  // the stored weights are the sharded master
    mem.optimizer = optimizer_params * (2 * dtype_bytes(prec.optimizer) + master);

    std::vector<parallelism::PipelineAction> own;
    const std::vector<parallelism::PipelineAction>& order =
        orders != nullptr
            ? orders->of(p.schedule, p.pp, p.virtual_stages, m_micro, stage, p.microbatch_group)
            : (own = parallelism::stage_schedule(p.schedule, p.pp, p.virtual_stages, m_micro, stage, p.microbatch_group));
    std::vector<double> kept(static_cast<std::size_t>(p.virtual_stages)), host(kept.size());
    bool offloads = false;
    int layers = 0;
    for (int chunk = 0; chunk < p.virtual_stages; ++chunk) {
      const int n = vs_layers[static_cast<std::size_t>(chunk * p.pp + stage)];
      layers += n;
      kept[static_cast<std::size_t>(chunk)] = n * per_layer;
      host[static_cast<std::size_t>(chunk)] = n * per_layer_host;
      offloads = offloads || host[static_cast<std::size_t>(chunk)] != 0;
    }
    mem.activations = parallelism::peak_live(order, kept);
    // Nothing offloaded peaks at exactly 0, which is what the walk would give.
    mem.offloaded = offloads ? parallelism::peak_live(order, host) : 0.0;
    if (layers > 0) mem.temporary += recompute;
    const bool last = stage == p.pp - 1;
    if (last) {
      // The logits and their gradient for the microbatch being run backwards (loss_kernels.hpp).
      const double per_logit = workload::loss_live_bytes(slicing.loss_kernel, slicing.act_bytes, slicing.loss_bytes);
      mem.temporary += per_logit * t.micro_batch * double(t.seq_len) * m.vocab / p.tp;
    }
    // One gradient bucket, in the dtype the reduction moves.
    if (p.dp > 1 && p.zero < 3) {
      mem.temporary += std::min(t.dp_bucket_bytes, params * dtype_bytes(parallelism::reduce_dtype(prec)));
    }
    // ZeRO-3: the layer computing and the fsdp_prefetch layers gathered ahead of it.
    if (p.zero == 3 && p.dp > 1 && !gathered_once) {
      mem.temporary += (t.overlap.fsdp_prefetch + 1.0) * layer_params * dtype_bytes(prec.comm);
    }
    mem.total = mem.weights + mem.gradients + mem.optimizer + mem.activations + mem.temporary;
    mem.capacity = std::max(0.0, chip.hbm_capacity_bytes - chip.hbm_reserved_bytes);
    out.push_back(mem);
  }
  return out;
}

std::optional<std::string> does_not_fit(const std::vector<MemoryBreakdown>& stages) {
  std::size_t worst = 0;
  bool fits = true;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    fits = fits && stages[i].fits();
    if (stages[i].total - stages[i].capacity > stages[worst].total - stages[worst].capacity) worst = i;
  }
  if (fits) return std::nullopt;
  char text[160];
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  std::snprintf(text, sizeof text, "a chip of pipeline stage %zu needs %.1f GiB of %.1f GiB", worst,
                stages[worst].total / kGiB, stages[worst].capacity / kGiB);
  return std::string(text);
}

}  // namespace podsim::memory
