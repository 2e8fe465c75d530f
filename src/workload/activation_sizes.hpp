#pragma once

// Sizes of the tensors one transformer layer's forward leaves for its backward, per chip and
// per microbatch: Korthikanti et al. 2022 (arXiv 2205.05198) §4.1 generalised to GQA,
// SwiGLU, parallel blocks, flash attention, no dropout and fp8 GEMM inputs.
//
// With s tokens per sequence, b sequences, hidden h, t = tp:
// - "whole" tensors (the layer input, the norms' inputs and outputs, the dropout masks and the
//   branch outputs out_proj/mlpwo) are replicated on every tensor-parallel rank, or split
//   over t with sequence parallelism: s·b·h/(SP ? t : 1) values;
// - Q (heads/t heads), K and V (kv_heads/t heads, one when kv_heads < t), the attention output
//   (heads/t heads) and the MLP intermediates (ffn/t; SwiGLU's up projection is two tensors)
//   are split over t;
// - the scores (without flash attention): softmax output, and with dropout its 1-byte mask and
//   dropped-out copy, heads/t · s² · b values each.
// Values are act_bytes wide, dropout masks 1 byte, and the inputs of linear-layer GEMMs
// (the first norm's output, the attention output, the second norm's output, the MLP
// activation's output) linear_input_bytes wide (1 with fp8 GEMMs: Transformer Engine saves
// the fp8 cast). For MHA, ffn = 4h, dropout and 16-bit values, the sum over
// needed_by_backward is s·b·h·(10 + 24/t + 5·a·s/(h·t)), and s·b·h/t·(34 + 5·a·s/h) with
// sequence parallelism (Korthikanti Table 2).

#include "workload/layer_ops.hpp"
#include "workload/model_spec.hpp"
#include "workload/remat_policy.hpp"

namespace podsim::workload {

/// Bytes of tensor `t` of one layer, per chip, per microbatch.
double tensor_bytes(const ModelSpec& model, const Slicing& slicing, Tensor t);

/// Bytes of every tensor of `set`.
double tensors_bytes(const ModelSpec& model, const Slicing& slicing, TensorSet set);

}  // namespace podsim::workload
