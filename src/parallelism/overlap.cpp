#include "parallelism/overlap.hpp"

namespace podsim::parallelism {

const char* tp_overlap_name(TpOverlap o) {
  return o == TpOverlap::kCollectiveMatmul ? "collective-matmul" : "none";
}

OverlapSpec default_overlap(const hardware::ChipSpec& chip) {
  OverlapSpec o;
  o.tp = chip.stack == hardware::SoftwareStack::kXla ? TpOverlap::kCollectiveMatmul : TpOverlap::kNone;
  o.dp_serial = chip.stack != hardware::SoftwareStack::kXla;
  return o;
}

}  // namespace podsim::parallelism
