#include "parallelism/layer_segments.hpp"

#include <algorithm>
#include <utility>

#include "hardware/compute_model.hpp"
#include "util/error.hpp"

namespace podsim::parallelism {

namespace {
CommOp op_of(workload::TpSync sync) {
  switch (sync) {
    case workload::TpSync::kAllGather:
      return CommOp::kAllGather;
    case workload::TpSync::kReduceScatter:
      return CommOp::kReduceScatter;
    default:
      return CommOp::kAllReduce;
  }
}
/// A linear GEMM, or the fp8 cast of its input that Transformer Engine runs right before it.
bool gemm_part(const workload::WorkItem& item) {
  return item.math == workload::MathClass::kLinear || item.math == workload::MathClass::kGemmCast;
}

/// The items [begin, end) of the GEMMs next to collective `i` on the side `partner` names.
std::pair<std::size_t, std::size_t> partner_run(const std::vector<workload::WorkItem>& items, std::size_t i,
                                                Partner partner) {
  std::size_t begin = i, end = i;
  if (partner == Partner::kNext) {
    begin = end = i + 1;
    while (end < items.size() && items[end].sync == workload::TpSync::kNone && gemm_part(items[end])) ++end;
  } else {
    while (begin > 0 && items[begin - 1].sync == workload::TpSync::kNone && gemm_part(items[begin - 1])) --begin;
  }
  return {begin, end};
}

}  // namespace

SegmentShape segment_shape(const std::vector<workload::WorkItem>& items, TpOverlap overlap) {
  // Under collective matmul each collective's partner GEMMs start a run of their own and end it.
  SegmentShape shape;
  shape.partner.assign(items.size(), Partner::kNone);
  shape.starts_run.assign(items.size() + 1, false);
  if (overlap != TpOverlap::kCollectiveMatmul) return shape;
  std::vector<bool> claimed(items.size(), false);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].sync == workload::TpSync::kNone) continue;
    const Partner side = items[i].sync == workload::TpSync::kAllGather ? Partner::kNext : Partner::kPrevious;
    const auto [begin, end] = partner_run(items, i, side);
    // Nothing to overlap with (e.g. the embedding's reduction), or GEMMs another collective took.
    const auto first = claimed.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto last = claimed.begin() + static_cast<std::ptrdiff_t>(end);
    if (begin == end || std::any_of(first, last, [](bool c) { return c; })) continue;
    std::fill(first, last, true);
    shape.partner[i] = side;
    shape.starts_run[begin] = true;
    shape.starts_run[end] = true;
  }
  return shape;
}

double task_count(const std::vector<workload::WorkItem>& items, TpOverlap overlap) {
  const SegmentShape shape = segment_shape(items, overlap);
  double n = 0;
  bool in_run = false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].sync != workload::TpSync::kNone) {
      // A collective with its partner: the partner's run split in two, and (reduce-scatter or
      // all-reduce) a wait or all-gather after it.
      n += shape.partner[i] == Partner::kNone ? 1 : shape.partner[i] == Partner::kNext ? 2 : 3;
      in_run = false;
    } else if (!in_run || shape.starts_run[i]) {
      n += 1;
      in_run = true;
    }
  }
  return n;
}

namespace {
/// A run lasts the longer of its kernels and the host's issue of them. The host issues kernels
/// asynchronously and runs ahead of the GPU wherever it is the faster, so over a run the slower
/// of the two sets the pace (a run that starts with an empty queue pays the first issue too; a
/// pipelined host hides it, and podsim assumes it does). Paces each run once, when it closes.
void pace_by_host(Segment& s) {
  if (s.collective || s.host_ps <= s.duration_ps) return;
  s.host_bound_ps = s.host_ps - s.duration_ps;
  s.duration_ps = s.host_ps;
}
}  // namespace

std::vector<Segment> time_segments(const std::vector<workload::WorkItem>& items, const hardware::ChipSpec& chip,
                                   const Precision& precision, TpOverlap overlap, const workload::HostCost& host) {
  const hardware::DType other = activation_dtype(precision);
  const hardware::DType attention = attention_dtype(precision);
  const SegmentShape shape = segment_shape(items, overlap);
  std::vector<Segment> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    if (item.sync != workload::TpSync::kNone) {
      if (!out.empty()) pace_by_host(out.back());
      out.push_back(Segment{true, op_of(item.sync), shape.partner[i]});
      continue;
    }
    const hardware::DType dtype = item.math == workload::MathClass::kLinear      ? precision.compute
                                  : item.math == workload::MathClass::kAttention ? attention
                                                                                 : other;
    const hardware::OpTime t = hardware::op_time(chip, dtype, item.cost);
    if (out.empty() || out.back().collective || shape.starts_run[i]) {
      if (!out.empty()) pace_by_host(out.back());
      out.push_back(Segment{});
    }
    // Each op is at most kMaxStepPs (from_seconds checks), so one addition cannot overflow.
    out.back().duration_ps += t.time_ps;
    if (out.back().duration_ps > kMaxStepPs) {
      throw SimulationError("one layer's compute would take longer than 2^60 ps (13 simulated days)");
    }
    out.back().memory_ps += t.memory_ps;
    // A linear layer's GEMM (a cuBLAS kernel on GPUs) when its FLOPs, not its bytes, set its time.
    const bool gemm = item.math == workload::MathClass::kLinear && t.memory_ps == 0 && t.padded_flops > 0;
    if (gemm) out.back().gemm_ps += t.time_ps;
    out.back().flops += t.flops;
    out.back().padded_flops += t.padded_flops;
    out.back().host_ps += static_cast<SimTime>(item.host_calls * static_cast<double>(host.dispatch_ps) +
                                               item.kernels * static_cast<double>(host.launch_ps) + 0.5);
  }
  if (!out.empty()) pace_by_host(out.back());
  return out;
}

}  // namespace podsim::parallelism
