#pragma once

#include <cstdint>

#include "hardware/chip_spec.hpp"

namespace podsim::hardware {

/// What one op does on one chip, independent of the chip: a batch of matmuls
/// [m×k]·[k×n] (batch may be 0 for a pure memory op) plus the HBM bytes it moves.
struct OpCost {
  double batch = 0;  ///< number of independent matmuls (e.g. heads × microbatch)
  double m = 0;
  double n = 0;
  double k = 0;
  double bytes = 0;  ///< HBM bytes read + written
  /// A fused attention kernel (flash attention): its matmuls run at the chip's
  /// efficiency.flash_attention where the hardware file gives one.
  bool fused_attention = false;

  /// Useful FLOPs: 2·m·n·k per matmul. Element-wise arithmetic is not counted: it is
  /// memory-bound, and FLOP conventions (MFU, HFU) count matmuls only.
  double flops() const { return 2.0 * batch * m * n * k; }
};

/// Time of an op on a chip, and what it spent.
struct OpTime {
  SimTime time_ps = 0;
  double flops = 0;         ///< useful
  double padded_flops = 0;  ///< executed, with every matmul dim padded up to the tile
  /// The part of time_ps bound by HBM bandwidth (all of it but the overhead when the bytes
  /// term wins, else 0): what slows when communication takes HBM bandwidth beside it.
  SimTime memory_ps = 0;
};

/// Roofline: max(padded FLOPs / (peak(dtype) × matmul × training efficiency),
/// bytes / (HBM bandwidth × memory efficiency)) + the fixed per-op overhead.
/// Throws InputError if the chip has no peak for `dtype`.
OpTime op_time(const ChipSpec& chip, DType dtype, const OpCost& op);

/// `x` rounded up to a multiple of `tile`.
double pad_to_tile(double x, int tile);

}  // namespace podsim::hardware
