#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "network/link_sharing.hpp"
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

/// How one communication occupies the network: what the shared-link solver needs.
///
/// Alone it takes latency_ps + bandwidth_ps. The bandwidth part is the busy time of its
/// busiest link; while other communications share its links it stretches (their rates are
/// max-min fair, network/link_sharing.hpp). The latency part (α terms, pipeline fill, waits
/// inside the algorithm) does not.
struct CommProfile {
  SimTime latency_ps = 0;
  SimTime bandwidth_ps = 0;
  /// Link classes it loads at full speed, as fractions of each class's busiest link
  /// (1 on its own bottleneck). Empty: it shares nothing (tests' closed forms).
  std::vector<network::ResourceUse> uses;
  /// Compute units (a GPU's SMs) its kernels hold on each chip while it is in flight: NCCL's
  /// CTAs, one per channel, each alone on an SM. Compute beside it runs on the rest. 0: it
  /// takes none (TPU DMA engines, closed forms).
  int compute_units = 0;

  SimTime alone_ps() const { return latency_ps + bandwidth_ps; }
};

/// How communication occupies the network. The executor asks; implementations simulate it
/// on a network (NetworkCommModel) or, in tests, answer with closed forms.
class CommModel {
 public:
  virtual ~CommModel() = default;
  /// A collective of `bytes` (S, nccl-tests sense) on `axis`, run by every group of that
  /// axis at once. `stage`/`peer` identify the stages of a kOther collective.
  virtual const CommProfile& collective(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage,
                                        int peer) = 0;
  /// A pipeline message of `bytes` from every chip of stage `from` to its peer in `to`.
  virtual const CommProfile& send(int from, int to, double bytes) = 0;
  /// The same collective asked `times` more times, by periods of repeated microbatches the
  /// executor added without simulating them (steady_state.hpp): whatever counts the step's
  /// communications counts them as if asked.
  virtual void repeat_collective(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage, int peer,
                                 std::uint64_t times) {
    for (std::uint64_t i = 0; i < times; ++i) (void)collective(axis, op, bytes, stage, peer);
  }
  virtual void repeat_send(int from, int to, double bytes, std::uint64_t times) {
    for (std::uint64_t i = 0; i < times; ++i) (void)send(from, to, bytes);
  }
  /// Chips in one group of `axis` (to turn S into bytes each chip sends).
  virtual int group_size(parallelism::CommAxis axis) const = 0;
  /// Resources (link classes) that profiles' uses refer to.
  virtual std::size_t resources() const = 0;
  /// A reader's name for resource `r` (the trace's link counters), e.g. "stage 3 · x+".
  virtual std::string resource_label(std::size_t r) const { return "link class " + std::to_string(r); }
};

}  // namespace podsim::runtime
