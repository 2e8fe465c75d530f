#include "runtime/chip_sharing.hpp"

#include <algorithm>

namespace podsim::runtime {

void ChipSharing::hold(parallelism::CommAxis axis, int units, int sign) {
  auto& held = held_[static_cast<std::size_t>(axis)];
  if (sign > 0) {
    held.push_back(units);
  } else {
    held.erase(std::find(held.begin(), held.end(), units));
  }
  taken_ = 0;
  for (const auto& h : held_) {
    if (!h.empty()) taken_ += *std::max_element(h.begin(), h.end());
  }
}

double ChipSharing::hbm_bytes(collectives::Op op, double sent) {
  switch (op) {
    case collectives::Op::kAllGather:
      return 2 * sent;
    case collectives::Op::kReduceScatter:
      return 3 * sent;
    case collectives::Op::kAllReduce:
      return 2.5 * sent;
    case collectives::Op::kSendRecv:
      return sent;
    default:
      return 2 * sent;
  }
}

}  // namespace podsim::runtime
