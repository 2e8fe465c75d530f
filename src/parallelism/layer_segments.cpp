#include "parallelism/layer_segments.hpp"

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
}  // namespace

std::vector<Segment> time_segments(const std::vector<workload::WorkItem>& items,
                                   const hardware::ChipSpec& chip, const Precision& precision) {
  const hardware::DType other = activation_dtype(precision);
  const hardware::DType attention = attention_dtype(precision);
  std::vector<Segment> out;
  for (const auto& item : items) {
    if (item.sync != workload::TpSync::kNone) {
      out.push_back(Segment{true, op_of(item.sync)});
      continue;
    }
    const hardware::DType dtype = item.math == workload::MathClass::kLinear      ? precision.compute
                                  : item.math == workload::MathClass::kAttention ? attention
                                                                                 : other;
    const hardware::OpTime t = hardware::op_time(chip, dtype, item.cost);
    if (out.empty() || out.back().collective) out.push_back(Segment{});
    // Each op is at most kMaxStepPs (from_seconds checks), so one addition cannot overflow.
    out.back().duration_ps += t.time_ps;
    if (out.back().duration_ps > kMaxStepPs) {
      throw SimulationError("one layer's compute would take longer than 2^60 ps (13 simulated days)");
    }
    out.back().flops += t.flops;
    out.back().padded_flops += t.padded_flops;
  }
  return out;
}

}  // namespace podsim::parallelism
