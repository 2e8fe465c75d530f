#include "workload/remat_policy.hpp"

namespace podsim::workload {

namespace {

constexpr TensorSet kQkv = bit(Tensor::kQ) | bit(Tensor::kK) | bit(Tensor::kV);
/// JAX checkpoint_dots_with_no_batch_dims: the outputs of every weight matmul (the attention
/// dots QKᵀ and AV have batch dimensions and are not saved).
constexpr TensorSet kDots = kQkv | bit(Tensor::kOutProj) | bit(Tensor::kMlpWi) | bit(Tensor::kMlpWo);

}  // namespace

const char* recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
    case Recompute::kNothingSaveable:
      return "nothing_saveable";
    case Recompute::kEarlyStop:
      return "early_stop";
    case Recompute::kMinimal:
      return "minimal";
    case Recompute::kMinimalFlash:
      return "minimal_flash";
    case Recompute::kSaveDotExceptMlpwi:
      return "save_dot_except_mlpwi";
    case Recompute::kSaveDotExceptMlp:
      return "save_dot_except_mlp";
    case Recompute::kSaveQkvProj:
      return "save_qkv_proj";
    case Recompute::kSaveOutProj:
      return "save_out_proj";
    case Recompute::kQkvProjOffloaded:
      return "qkv_proj_offloaded";
    case Recompute::kMinimalOffloaded:
      return "minimal_offloaded";
    default:
      return "none";
  }
}

TensorSet needed_by_backward(bool flash, bool dropout, bool parallel_block) {
  // Weight gradients read each projection's input; the attention backward reads Q, K, V and
  // the scores (flash: its output, the context, which the output projection reads anyway);
  // norms and the MLP activation read their inputs; dropout backward reads its mask.
  TensorSet s = bit(Tensor::kInput) | bit(Tensor::kNorm1Out) | kQkv | bit(Tensor::kContext) |
                bit(Tensor::kMlpWi) | bit(Tensor::kMlpAct);
  if (!flash) s |= bit(Tensor::kScores);
  if (!parallel_block) s |= bit(Tensor::kNorm2In) | bit(Tensor::kNorm2Out);
  if (dropout) s |= bit(Tensor::kAttnMask) | bit(Tensor::kMlpMask);
  return s;
}

TensorSet saveable(Recompute r, bool flash, bool dropout, bool parallel_block) {
  const TensorSet all = needed_by_backward(flash, dropout, parallel_block);
  const TensorSet input = bit(Tensor::kInput);
  switch (r) {
    case Recompute::kNone:
      return all;
    case Recompute::kSelective:
      return all & ~bit(Tensor::kScores);
    case Recompute::kFull:
    case Recompute::kNothingSaveable:
    case Recompute::kEarlyStop:
    case Recompute::kQkvProjOffloaded:
    case Recompute::kMinimalOffloaded:
      return input;
    case Recompute::kMinimal:
      return input | kDots;
    case Recompute::kMinimalFlash:
      return input | kDots | bit(Tensor::kContext);
    case Recompute::kSaveDotExceptMlpwi:
      return input | kQkv | bit(Tensor::kOutProj) | bit(Tensor::kMlpWo);
    case Recompute::kSaveDotExceptMlp:
      return input | kQkv | bit(Tensor::kOutProj);
    case Recompute::kSaveQkvProj:
      return input | kQkv;
    case Recompute::kSaveOutProj:
      return input | bit(Tensor::kOutProj);
  }
  return all;
}

TensorSet offloadable(Recompute r) {
  if (r == Recompute::kQkvProjOffloaded) return kQkv;
  if (r == Recompute::kMinimalOffloaded) return kDots;
  return 0;
}

bool reruns_whole_layer(Recompute r) { return r == Recompute::kFull; }

bool reruns_until_last_saved(Recompute r) { return r == Recompute::kEarlyStop; }

}  // namespace podsim::workload
