#include "parallelism/overlap.hpp"

namespace podsim::parallelism {

const char* tp_overlap_name(TpOverlap o) {
  return o == TpOverlap::kCollectiveMatmul ? "collective-matmul" : "none";
}

OverlapSpec default_overlap(workload::Stack stack) {
  const workload::StackProfile& profile = workload::stack_profile(stack);
  const bool xla = profile.family == hardware::SoftwareStack::kXla;
  OverlapSpec o;
  o.tp = xla ? TpOverlap::kCollectiveMatmul : TpOverlap::kNone;
  o.dp_serial = !xla;
  o.fsdp_reduce_limit = profile.fsdp_reduce_limit;
  return o;
}

}  // namespace podsim::parallelism
