// What Megatron-LM's GPT layer asks of the host, item by item. Counted in
// microsoft/Megatron-DeepSpeed at f4157bea (megatron/model/transformer.py, fused_layer_norm.py,
// fused_softmax.py, fused_bias_gelu.py, core/tensor_parallel/layers.py, model/distributed.py;
// the QKV split as 6acc370a wrote it, transformer.py:675-724): the layer run on CPU under
// PyTorch 1.13's autograd profiler for the calls (views, allocations, autograd nodes, Function
// applies, the main_grad accumulation hooks), the CUDA-only internals (dropout, apex's
// layer-norm and softmax extensions) read from their source; fp16, tp 1, fused bias-GeLU and
// bias-dropout-add (TorchScript/nvFuser, each fused call counted as one call), one kernel per
// cuBLAS GEMM. Per layer: forward 16 kernels and 123 calls, backward 46 kernels and 220 calls.
//
// Left out: Megatron-DeepSpeed's MoE-loss placeholders (two torch.tensor(0.0, device=cuda) per
// layer, each a host-blocking copy) and the activation checkpoint's own bookkeeping (23 calls
// and 3 kernels per layer in the backward), which Megatron-LM does not share; the output
// head, loss and optimizer (a few per step, against L layers); with tensor parallelism the
// counts change by a few calls (the copy Functions), which is left out too.
#include "workload/host_dispatch.hpp"

#include <map>
#include <string>

#include "workload/layer_ops.hpp"

namespace podsim::workload {

namespace {

struct Count {
  double calls;
  double kernels;
};

/// Forward items (a recompute re-runs them as they are).
const std::map<std::string, Count>& forward_counts() {
  static const std::map<std::string, Count> counts{
      {"norm1", {6, 1}},              // FusedLayerNormAffineFunction (fused_layer_norm.py:89-104)
      {"qkv", {24, 2}},               // ColumnParallelLinear with its bias (layers.py:611-663)
      {"attention.scores", {13, 1}},  // views, the baddbmm (transformer.py:295-320)
      {"attention.softmax", {12, 1}}, // FusedScaleMaskSoftmax (fused_softmax.py:9-38, 174-184)
      {"attention.dropout", {6, 1}},  // transformer.py:332-334
      {"attention.values", {14, 2}},  // bmm, permute + contiguous (transformer.py:346-371)
      {"attention.flash", {14, 1}},   // one kernel; the context's reshapes as attention.values's
      {"attention.out", {12, 1}},     // RowParallelLinear, skip_bias_add (layers.py:770-809)
      {"residual1", {3, 1}},          // fused bias-dropout-add (transformer.py:880-900)
      {"norm2", {6, 1}},
      {"mlp.up", {12, 1}},            // dense_h_to_4h, skip_bias_add
      {"mlp.activation", {1, 1}},     // fused bias-GeLU (fused_bias_gelu.py:14-43)
      {"mlp.down", {13, 2}},          // dense_4h_to_h with its bias (transformer.py:151-160)
      {"residual2", {1, 1}},          // fused bias-dropout-add
  };
  return counts;
}

/// Backward items: each autograd node, the kernels it launches, AccumulateGrad and the
/// main_grad hook (one add_ per parameter, distributed.py:174-184). A linear layer's node is
/// split evenly between its dgrad and wgrad items.
const std::map<std::string, Count>& backward_counts() {
  static const std::map<std::string, Count> counts{
      {"norm1.backward", {17, 6}},
      {"qkv.dgrad", {23.5, 4}},
      {"qkv.wgrad", {23.5, 4}},  // with the split's cat and the bias gradient
      {"attention.scores.backward", {27, 4}},
      {"attention.softmax.backward", {11, 1}},
      {"attention.dropout.backward", {4, 1}},
      {"attention.values.backward", {26, 2}},
      {"attention.flash.backward", {26, 2}},  // as attention.values's
      {"attention.out.dgrad", {8.5, 1.5}},
      {"attention.out.wgrad", {8.5, 1.5}},
      {"residual1.backward", {7, 3}},
      {"norm2.backward", {17, 6}},
      {"mlp.up.dgrad", {8.5, 1.5}},
      {"mlp.up.wgrad", {8.5, 1.5}},
      {"mlp.activation.backward", {6, 3}},
      {"mlp.down.dgrad", {11.5, 2.5}},
      {"mlp.down.wgrad", {11.5, 2.5}},
      {"residual2.backward", {1, 1}},
  };
  return counts;
}

void set_counts(std::vector<WorkItem>& items, const std::map<std::string, Count>& counts) {
  for (WorkItem& w : items) {
    const auto it = counts.find(w.name);
    if (it == counts.end()) continue;  // collectives; fp8 casts (Transformer Engine, not counted)
    w.host_calls = it->second.calls;
    w.kernels = it->second.kernels;
  }
}

}  // namespace

void count_host_calls(LayerWork& layer) {
  set_counts(layer.forward, forward_counts());
  set_counts(layer.backward, backward_counts());
}

}  // namespace podsim::workload
