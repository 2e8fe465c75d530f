#include "memory/memory_model.hpp"

#include <algorithm>
#include <cstdio>

#include "parallelism/pipeline_schedule.hpp"
#include "parallelism/program_builder.hpp"

namespace podsim::memory {

double layer_activation_bytes(const workload::ModelSpec& m, const workload::Slicing& s,
                              parallelism::Recompute recompute) {
  const double t = s.tp;
  const double a = s.act_bytes;
  const double sb = double(s.seq_len) * s.micro_batch;
  const double sbh = sb * m.hidden;
  const double whole_divisor = s.sequence_parallel ? t : 1.0;
  if (recompute == parallelism::Recompute::kFull) return a * sbh / whole_divisor;
  // Kept whole on every rank: two norm inputs, the attention input, the MLP input (act
  // bytes each) and two 1-byte dropout masks.
  const double whole = (4 * a + 2) * sbh;
  const double heads = double(m.heads) / t;
  const double kv_heads = m.kv_heads >= s.tp ? double(m.kv_heads) / t : 1.0;
  // Split over tp: Q, K, V and the attention output; the MLP intermediates.
  const double qkvo = a * sb * m.head_dim * (2 * heads + 2 * kv_heads);
  const double mlp = (m.mlp == workload::MlpKind::kSwiglu ? 3 : 2) * a * sb * m.ffn_hidden / t;
  double split = qkvo + mlp;
  const bool keeps_scores = recompute == parallelism::Recompute::kNone && !s.flash_attention;
  if (keeps_scores) split += (2 * a + 1) * heads * double(s.seq_len) * s.seq_len * s.micro_batch;
  return whole / whole_divisor + split;
}

std::vector<MemoryBreakdown> stage_memory(const workload::ModelSpec& m, const hardware::ChipSpec& chip,
                                          const parallelism::ParallelSpec& p,
                                          const parallelism::TrainingSpec& t) {
  using hardware::dtype_bytes;
  const auto& prec = t.precision;
  const workload::Slicing slicing = parallelism::slicing_of(p, t);
  const double per_layer = layer_activation_bytes(m, slicing, t.recompute);
  const int m_micro = parallelism::microbatches(p, t);
  const int virtual_total = p.pp * p.virtual_stages;
  const int layers_per_chunk = m.layers / virtual_total;
  const double layer_params = workload::count_params(m).per_layer / p.tp;
  const double dp = p.dp;

  std::vector<MemoryBreakdown> out;
  for (int stage = 0; stage < p.pp; ++stage) {
    MemoryBreakdown mem;
    const double params = parallelism::stage_param_count(m, p, stage);
    const double shard_params = p.zero >= 1 ? params / dp : params;
    mem.weights = (p.zero == 3 ? params / dp : params) * dtype_bytes(prec.params);
    mem.gradients = (p.zero >= 2 ? params / dp : params) * dtype_bytes(prec.grads);
    const double master = parallelism::separate_master_weights(prec) ? dtype_bytes(prec.optimizer) : 0.0;
    mem.optimizer = shard_params * (2 * dtype_bytes(prec.optimizer) + master);

    const auto order = parallelism::stage_schedule(p.schedule, p.pp, p.virtual_stages, m_micro, stage);
    mem.activations = parallelism::peak_in_flight(order) * layers_per_chunk * per_layer;
    if (t.recompute == parallelism::Recompute::kFull) {
      // While one layer is recomputed and run backwards, its full activations exist.
      mem.activations += layer_activation_bytes(m, slicing, parallelism::Recompute::kNone);
    }
    const bool last = stage == p.pp - 1;
    if (last) {
      // fp32 logits and their gradient for the microbatch being run backwards.
      mem.temporary += 2 * 4.0 * t.micro_batch * double(t.seq_len) * m.vocab / p.tp;
    }
    if (p.dp > 1 && p.zero < 3) mem.temporary += std::min(t.dp_bucket_bytes, params * dtype_bytes(prec.comm));
    if (p.zero == 3 && p.dp > 1) mem.temporary += 2 * layer_params * dtype_bytes(prec.comm);
    mem.total = mem.weights + mem.gradients + mem.optimizer + mem.activations + mem.temporary;
    mem.capacity = chip.hbm_capacity_bytes;
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
