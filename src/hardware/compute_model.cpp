#include "hardware/compute_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "util/error.hpp"

namespace podsim::hardware {

double pad_to_tile(double x, int tile) {
  if (tile <= 1 || x <= 0) return x;
  return std::ceil(x / tile) * tile;
}

OpTime op_time(const ChipSpec& chip, DType dtype, const OpCost& op) {
  OpTime t;
  t.flops = op.flops();
  const int tile = chip.matmul_tile;
  t.padded_flops =
      2.0 * op.batch * pad_to_tile(op.m, tile) * pad_to_tile(op.n, tile) * pad_to_tile(op.k, tile);
  double compute_s = 0;
  if (t.padded_flops > 0) {
    const auto peak = chip.peak_flops.find(dtype);
    if (peak == chip.peak_flops.end()) {
      throw InputError("hardware " + chip.name + " has no " + std::string(dtype_name(dtype)) +
                       " peak; choose another compute dtype");
    }
    const Efficiency& e = chip.efficiency;
    const double efficiency =
        op.fused_attention && e.flash_attention > 0 ? e.flash_attention : e.matmul * e.training;
    compute_s = t.padded_flops / (peak->second * efficiency);
  }
  const double memory_s = op.bytes / (chip.hbm_bandwidth_Bps * chip.efficiency.memory);
  t.time_ps = from_seconds(std::max(compute_s, memory_s)) + chip.efficiency.op_overhead_ps;
  if (memory_s > compute_s) t.memory_ps = t.time_ps - chip.efficiency.op_overhead_ps;
  return t;
}

}  // namespace podsim::hardware
