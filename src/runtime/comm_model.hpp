#pragma once

#include "collectives/collective_spec.hpp"
#include "parallelism/step_program.hpp"
#include "util/sim_time.hpp"

namespace podsim::runtime {

/// The collectives module's operation for a step program's.
inline collectives::Op collective_op(parallelism::CommOp op) {
  switch (op) {
    case parallelism::CommOp::kAllGather:
      return collectives::Op::kAllGather;
    case parallelism::CommOp::kReduceScatter:
      return collectives::Op::kReduceScatter;
    case parallelism::CommOp::kSendRecv:
      return collectives::Op::kSendRecv;
    default:
      return collectives::Op::kAllReduce;
  }
}

/// How long communication takes. The executor asks; implementations simulate it on a
/// network (NetworkCommModel) or, in tests, answer with closed forms.
class CommModel {
 public:
  virtual ~CommModel() = default;
  /// A collective of `bytes` (S, nccl-tests sense) on `axis`, run by every group of that
  /// axis at once. `stage`/`peer` identify the stages of a kOther collective.
  virtual SimTime collective(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage,
                             int peer) = 0;
  /// A pipeline message of `bytes` from every chip of stage `from` to its peer in `to`.
  virtual SimTime send(int from, int to, double bytes) = 0;
  /// Chips in one group of `axis` (to turn S into bytes each chip sends).
  virtual int group_size(parallelism::CommAxis axis) const = 0;
};

}  // namespace podsim::runtime
