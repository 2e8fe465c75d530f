#pragma once

#include <filesystem>

#include "hardware/chip_spec.hpp"

namespace podsim::config {

/// Reads a hardware file (configs/hardware/*.yaml). Throws InputError with file and line.
hardware::ChipSpec load_hardware(const std::filesystem::path& file);

}  // namespace podsim::config
