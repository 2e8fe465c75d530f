#include "hardware/chip_spec.hpp"
#include "util/error.hpp"

namespace podsim::hardware {

const char* flash_kernel_name(FlashKernel k) { return k == FlashKernel::kTriton ? "triton" : "native"; }

bool has_flash_kernel(const ChipSpec& chip, FlashKernel kernel) {
  return kernel == FlashKernel::kNative || chip.efficiency.triton_attention > 0;
}

ChipSpec with_flash_kernel(const ChipSpec& chip, FlashKernel kernel) {
  if (!has_flash_kernel(chip, kernel)) {
    throw InputError("hardware " + chip.name + " has no efficiency.triton_attention (no rate measured for the "
                     "Triton FlashAttention kernel on it)");
  }
  ChipSpec timed = chip;
  if (kernel == FlashKernel::kTriton) timed.efficiency.flash_attention = chip.efficiency.triton_attention;
  return timed;
}

}  // namespace podsim::hardware
