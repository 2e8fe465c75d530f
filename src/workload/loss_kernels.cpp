#include "workload/loss_kernels.hpp"

namespace podsim::workload {

const char* loss_kernel_name(LossKernel k) {
  switch (k) {
    case LossKernel::kPyTorch: return "pytorch";
    case LossKernel::kFused: return "fused";
    case LossKernel::kMegatron: break;
  }
  return "megatron";
}

LossTraffic loss_traffic(LossKernel kernel, double act_bytes, double loss_bytes) {
  const double a = act_bytes;
  const double l = loss_bytes;
  // A cast to the loss dtype reads the logits and writes them in it; its backward the reverse.
  const double cast = a == l ? 0.0 : a + l;
  switch (kernel) {
    case LossKernel::kPyTorch: return {cast + 4 * l, l + 4 * l + cast};
    case LossKernel::kFused: return {2 * a, 2 * a};
    case LossKernel::kMegatron: break;
  }
  // max, sub_, exp, sum, div_: 1 + 2 + 2 + 1 + 2 passes; backward mul_ on the saved softmax.
  return {cast + 8 * l, 2 * l + cast};
}

double loss_live_bytes(LossKernel kernel, double act_bytes, double loss_bytes) {
  return 2 * (kernel == LossKernel::kFused ? act_bytes : loss_bytes);
}

double train_metrics_bytes(int metrics, double act_bytes, double loss_bytes) {
  return metrics * loss_traffic(LossKernel::kPyTorch, act_bytes, loss_bytes).forward;
}

}  // namespace podsim::workload
