#include "workload/activation_sizes.hpp"

namespace podsim::workload {

double tensor_bytes(const ModelSpec& m, const Slicing& s, Tensor t) {
  const double tp = s.tp;
  const double sb = double(s.seq_len) * s.micro_batch;
  const double whole = sb * m.hidden / (s.sequence_parallel ? tp : 1.0);
  const double heads = double(m.heads) / tp;
  const double kv_heads = m.kv_heads >= s.tp ? double(m.kv_heads) / tp : 1.0;
  const double a = s.act_bytes;
  const double lin = s.linear_input_bytes;
  const double ffn = double(m.ffn_hidden) / tp;
  switch (t) {
    case Tensor::kInput:
    case Tensor::kNorm2In:
    case Tensor::kOutProj:
    case Tensor::kMlpWo:
      return a * whole;
    case Tensor::kNorm1Out:
    case Tensor::kNorm2Out:
      return lin * whole;
    case Tensor::kAttnMask:
    case Tensor::kMlpMask:
      return m.dropout ? whole : 0.0;
    case Tensor::kQ:
      return a * sb * heads * m.head_dim;
    case Tensor::kK:
    case Tensor::kV:
      return a * sb * kv_heads * m.head_dim;
    case Tensor::kScores: {
      if (s.flash_attention) return 0.0;
      const double per_score = m.dropout ? 2 * a + 1 : a;  // softmax out (+ mask + dropped copy)
      return per_score * heads * double(s.seq_len) * s.seq_len * s.micro_batch;
    }
    case Tensor::kContext:
      return lin * sb * heads * m.head_dim;
    case Tensor::kMlpWi:
      return (m.mlp == MlpKind::kSwiglu ? 2.0 : 1.0) * a * sb * ffn;
    case Tensor::kMlpAct:
      return lin * sb * ffn;
  }
  return 0.0;
}

double tensors_bytes(const ModelSpec& m, const Slicing& s, TensorSet set) {
  double total = 0;
  for (int i = 0; i < kTensors; ++i) {
    const auto t = static_cast<Tensor>(i);
    if (contains(set, t)) total += tensor_bytes(m, s, t);
  }
  return total;
}

}  // namespace podsim::workload
