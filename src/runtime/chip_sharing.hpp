#pragma once

// What communication in flight takes from one chip's compute, and so how fast compute beside
// it progresses (docs/runtime.md §4, "Compute beside communication").
//
// - Compute units: on a GPU each NCCL channel is one CTA that holds an SM alone while its
//   collective runs (NVIDIA/nccl issue #689). One axis is one communicator, whose operations
//   NCCL runs one at a time (issue #574), so an axis holds the largest of its communications'
//   CTAs; axes add up. Compute-bound work runs on the units left, (U − u)/U (at least one);
//   memory-bound work does not need every SM to keep HBM busy and is not slowed by them.
// - Persistent GEMMs: a GEMM whose grid is one CTA per SM, each looping over its tiles (cuBLAS
//   on Hopper), launched on all U SMs while u are held, finds room for U − u CTAs; the other u
//   start only when SMs free up and then do their whole share: ⌈U / (U − u)⌉ waves, twice the
//   time for any u ≤ U/2 (pytorch/pytorch issue #143988: H100 matmuls under FSDP "take 2x as
//   long" beside NCCL, "a form of wave quantization"). A GEMM launched on the SMs left to it
//   (an SM-count target) runs at (U − u)/U like any compute.
// - HBM bandwidth: every byte a chip sends is read from its HBM and every byte it receives
//   written to it, and a reduction reads its own operand too; memory-bound work runs on the
//   bandwidth left, (H − h)/H, but never below half of it: two streams of requests contending
//   for the memory controllers each get at least a fair share (NVIDIA/nccl issue #1433: "you
//   may not compete for SMs but still compete for memory bandwidth").
//
// A task whose nominal time is a share f HBM-bound, g in such GEMMs and 1 − f − g other
// compute-bound work progresses at 1 / (f / r_hbm + g / r_waves + (1 − f − g) / r_units): its
// parts slow each by its own resource.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "collectives/collective_spec.hpp"
#include "parallelism/step_program.hpp"

namespace podsim::runtime {

class ChipSharing {
 public:
  /// `compute_units`: the chip's SMs (0: communication holds none); `hbm_bytes_per_ps`: the
  /// bandwidth memory-bound work runs at (0: not shared); `gemm_waves`: GEMMs run persistent
  /// grids on all SMs (StepPlan::gemm_waves).
  ChipSharing(int compute_units, double hbm_bytes_per_ps, bool gemm_waves = false)
      : units_(compute_units), hbm_(hbm_bytes_per_ps), gemm_waves_(gemm_waves) {}

  /// A communication on `axis` takes (`sign` +1) or gives back (−1) `units` compute units.
  void hold(parallelism::CommAxis axis, int units, int sign);
  /// A communication's HBM traffic goes from `before` to `after` bytes per ps.
  void draw(double before, double after) {
    drawing_ += (after > 0 ? 1 : 0) - (before > 0 ? 1 : 0);
    drawn_ = drawing_ == 0 ? 0.0 : drawn_ + (after - before);
  }
  /// The rate (≤ 1) of a compute task whose nominal time is `memory_fraction` HBM-bound and
  /// `gemm_fraction` in compute-bound GEMMs.
  double rate(double memory_fraction, double gemm_fraction = 0) const {
    const bool held = units_ > 0 && taken_ > 0;
    const int free = held ? units_ - std::min(taken_, units_ - 1) : units_;
    const double units = held ? static_cast<double>(free) / units_ : 1.0;
    const double hbm = hbm_ > 0 && drawn_ > 0 ? std::max(1.0 - drawn_ / hbm_, kFairShare) : 1.0;
    if (units == 1.0 && hbm == 1.0) return 1.0;
    const double f = std::clamp(memory_fraction, 0.0, 1.0);
    const double g = gemm_waves_ && held ? std::clamp(gemm_fraction, 0.0, 1.0 - f) : 0.0;
    if (f == 0 && g == 0) return units;
    if (f == 1) return hbm;
    // ⌈U / (U − u)⌉ waves of a grid of U CTAs on the U − u SMs left.
    const double waves = g > 0 ? 1.0 / static_cast<double>((units_ + free - 1) / free) : 1.0;
    return 1.0 / (f / hbm + g / waves + (1.0 - f - g) / units);
  }

  /// HBM bytes a chip moves for a communication in which it sends `sent` bytes: it reads them
  /// and writes what it receives (as much, in a ring or a pairwise exchange), and a reduction
  /// reads its own operand for every byte received. An all-reduce is half reduce-scatter, half
  /// all-gather. A pipeline send: the sender reads it, the receiver writes it (`sent` each).
  static double hbm_bytes(collectives::Op op, double sent);
  /// Appends what rate() and later holds and draws depend on (steady_state.hpp compares it).
  void append_state(std::vector<std::uint64_t>& out) const {
    for (const auto& units : held_) {
      out.push_back(units.size());
      out.insert(out.end(), units.begin(), units.end());
    }
    out.push_back(static_cast<std::uint64_t>(taken_));
    out.push_back(std::bit_cast<std::uint64_t>(drawn_));
    out.push_back(static_cast<std::uint64_t>(drawing_));
  }

 private:
  /// The least share of HBM bandwidth memory-bound compute keeps beside communication.
  static constexpr double kFairShare = 0.5;
  int units_;
  double hbm_;
  bool gemm_waves_;
  /// Per CommAxis (one NCCL communicator each: hybrid sharding's replicas have their own):
  /// units of each communication in flight.
  std::array<std::vector<int>, parallelism::kCommAxisCount> held_{};
  int taken_ = 0;                           ///< Σ over axes of the largest held
  double drawn_ = 0;                        ///< bytes per ps communication moves through HBM now
  int drawing_ = 0;                         ///< communications drawing (0: drawn_ is exactly 0)
};

}  // namespace podsim::runtime
