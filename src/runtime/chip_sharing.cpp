#include "runtime/chip_sharing.hpp"

#include <algorithm>

namespace podsim::runtime {

namespace {
/// The least share of HBM bandwidth memory-bound compute keeps beside communication.
constexpr double kFairShare = 0.5;
}  // namespace

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

void ChipSharing::draw(double before, double after) {
  drawing_ += (after > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
  drawn_ = drawing_ == 0 ? 0.0 : drawn_ + (after - before);
}

double ChipSharing::rate(double memory_fraction) const {
  const double units = units_ > 0 && taken_ > 0
                           ? static_cast<double>(units_ - std::min(taken_, units_ - 1)) / units_
                           : 1.0;
  const double hbm = hbm_ > 0 && drawn_ > 0 ? std::max(1.0 - drawn_ / hbm_, kFairShare) : 1.0;
  if (units == 1.0 && hbm == 1.0) return 1.0;
  const double f = std::clamp(memory_fraction, 0.0, 1.0);
  if (f == 0) return units;
  if (f == 1) return hbm;
  return 1.0 / (f / hbm + (1.0 - f) / units);
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
