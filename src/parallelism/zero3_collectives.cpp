#include "parallelism/zero3_collectives.hpp"

#include "hardware/compute_model.hpp"
#include "parallelism/parallel_spec.hpp"
#include "workload/stack_profile.hpp"

#include <algorithm>

namespace podsim::parallelism {

bool fsdp_gathers_once(const ParallelSpec& parallel, const TrainingSpec& training) {
  const workload::StackProfile& stack = workload::stack_profile(training.stack);
  const bool fsdp = parallel.zero == 3 ? training.zero3_collectives == Zero3Collectives::kFlat
                                       : parallel.zero == 2 && stack.zero2_shard_grad_op;
  return fsdp && parallel.dp > 1 && parallel.pp > 1 && stack.fsdp_pipeline_gathers_once;
}

const char* zero3_collectives_name(Zero3Collectives z) {
  return z == Zero3Collectives::kPerTensor ? "per-tensor" : "flat";
}

PerTensorCalls per_tensor_calls(std::span<const double> tensors, bool adjacent, bool recomputed) {
  PerTensorCalls calls;
  // Elements of the block used after each tensor in its forward.
  std::vector<double> after(tensors.size(), 0.0);
  for (std::size_t i = tensors.size(); i-- > 1;) after[i - 1] = after[i] + tensors[i];
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const double n = tensors[i];
    calls.reduce.push_back(n);
    if (n < kPersistenceThreshold) continue;  // kept whole: never gathered
    calls.forward.push_back(n);
    if (recomputed) calls.recompute.push_back(n);
    // Between this tensor's last forward use and its backward: the forward and the backward
    // of the tensors after it in the block (stage3.py's reuse distance, in elements).
    const bool kept = adjacent && 2.0 * after[i] < kMaxReuseDistance;
    if (!kept) calls.backward.push_back(n);
  }
  // The backward runs the block's modules in reverse order.
  std::reverse(calls.backward.begin(), calls.backward.end());
  std::reverse(calls.reduce.begin(), calls.reduce.end());
  return calls;
}

PerTensorPlan per_tensor_plan(const workload::ModelSpec& model, int tp, double embedding_params,
                              double head_params, bool recompute_gathers) {
  std::vector<double> layer = workload::layer_param_tensors(model);
  for (double& n : layer) n /= tp;
  const workload::ParamCount p = workload::count_params(model);
  std::vector<double> embedding{embedding_params - p.position};
  if (p.position > 0) embedding.push_back(p.position);
  const double norm = model.hidden;
  std::vector<double> head{norm};
  if (p.final_norm > norm) head.push_back(p.final_norm - norm);  // a layernorm's bias
  if (head_params - p.final_norm >= 1) head.push_back(head_params - p.final_norm);
  return {per_tensor_calls(layer, recompute_gathers, recompute_gathers), per_tensor_calls(embedding, false, false),
          per_tensor_calls(head, true, false)};
}

SimTime list_copies_ps(int dp, double bytes, const hardware::ChipSpec& chip) {
  // Each copy is one operation on the chip moving its shard through HBM (read and written);
  // with no FLOPs the dtype is never consulted.
  const hardware::OpCost copy{0, 0, 0, 0, 2.0 * bytes / dp};
  return static_cast<SimTime>(dp) * hardware::op_time(chip, hardware::DType::kBf16, copy).time_ps;
}

}  // namespace podsim::parallelism
