#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "hardware/dtype.hpp"
#include "util/sim_time.hpp"

namespace podsim::hardware {

/// Calibration constants of one hardware generation (configs/hardware/*.yaml says how each
/// was measured or fitted). Never set per scenario.
struct Efficiency {
  /// Fraction of the dtype peak a bare GEMM kernel reaches; with op_overhead, the kernel model
  /// measured on a kernel table where one exists (tools/fit-gemm), else the end-to-end fit.
  double matmul = 0.8;
  double memory = 0.85;      ///< fraction of HBM bandwidth a streaming op reaches
  SimTime op_overhead_ps = 0;  ///< fixed cost of every op (launch, dispatch)
  double ici = 1.0;          ///< fraction of link bandwidth collectives reach on the fast tier
  double dcn = 1.0;          ///< ... on the slow tier (DCN, scale-out)
  /// Fraction of the dtype peak a fused (flash) attention kernel's matmuls reach; 0: as
  /// `matmul` (the hardware file gives it where a measurement says the kernel reaches less).
  double flash_attention = 0;
  /// Fraction of the dtype peak the Triton FlashAttention kernel reaches (MPT's
  /// flash_attn_triton.py, llm-foundry's attn_impl: triton); 0: not measured on this chip.
  double triton_attention = 0;
  /// The one end-to-end constant: the fraction of the bare kernel's rate a training step's
  /// GEMMs reach (epilogues, transformer shapes, what a kernel table does not see), fitted on
  /// published training runs (tools/calibrate). 1: none (the chip's matmul is the fit itself).
  double training = 1.0;
  bool operator==(const Efficiency&) const = default;
};

/// Which fused-attention kernel a step runs (`training.flash_kernel`).
enum class FlashKernel : std::uint8_t {
  kNative,  ///< the chip's own (FlashAttention-2 on GPUs, Pallas on TPUs): efficiency.flash_attention
  kTriton,  ///< the Triton FlashAttention MPT ships: efficiency.triton_attention
};

/// The software that trains on the chip, whose defaults the overlap options take
/// (parallelism::default_overlap).
enum class SoftwareStack : std::uint8_t {
  kMegatron,  ///< Megatron-LM with NCCL (GPUs)
  kXla,       ///< XLA's SPMD partitioner and scheduler, as MaxText runs it (TPUs)
};

/// One accelerator chip.
struct ChipSpec {
  std::string name;
  std::map<DType, double> peak_flops;  ///< dense FLOP/s per dtype the chip has
  double hbm_capacity_bytes = 0;
  /// HBM a training program cannot use: the runtime's reserve, allocator fragmentation (the
  /// hardware file says what it includes and where the figure comes from).
  double hbm_reserved_bytes = 0;
  double hbm_bandwidth_Bps = 0;
  double host_bandwidth_Bps = 0;  ///< chip ↔ host memory, one direction (0: not known)
  int matmul_tile = 128;  ///< matmul dims are padded up to a multiple of this
  /// Streaming multiprocessors (GPUs). NCCL's kernels hold some of them while a collective
  /// runs, and compute beside it gets the rest; 0: communication takes no compute units
  /// (TPUs move ICI and DCN traffic with DMA engines).
  int sms = 0;
  /// Its GEMM kernels run a persistent grid: one CTA per SM, each working through a list of
  /// tiles (cuBLAS on Hopper). While communication holds SMs, such a GEMM launched on all of
  /// them runs its extra CTAs as a second wave and takes twice as long (docs/runtime.md §4).
  bool persistent_matmuls = false;
  SoftwareStack stack = SoftwareStack::kMegatron;
  Efficiency efficiency;
  bool operator==(const ChipSpec&) const = default;
};

inline constexpr std::array<FlashKernel, 2> kFlashKernels{FlashKernel::kNative, FlashKernel::kTriton};
/// "native", "triton" — as written in scenarios.
const char* flash_kernel_name(FlashKernel k);
/// Whether `chip` has a rate for `kernel` (the native one always has: its matmul efficiency
/// if nothing else).
bool has_flash_kernel(const ChipSpec& chip, FlashKernel kernel);
/// `chip` as a step that runs `kernel` times it: with kTriton its fused attention runs at
/// efficiency.triton_attention. Throws InputError if the chip has no rate for the kernel.
ChipSpec with_flash_kernel(const ChipSpec& chip, FlashKernel kernel);

}  // namespace podsim::hardware
