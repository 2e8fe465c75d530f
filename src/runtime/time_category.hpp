#pragma once

#include <array>
#include <cstddef>
#include <string_view>

#include "parallelism/step_program.hpp"
#include "util/sim_time.hpp"

namespace podsim::runtime {

/// Where a chip's time goes (DESIGN §5). Per chip these partition the step exactly.
enum class TimeCategory : std::uint8_t {
  kForward,
  kBackward,
  kRecompute,
  kOptimizer,
  kCommTp,     ///< exposed tensor-parallel communication
  kCommDp,     ///< exposed data-parallel communication (gradients, ZeRO gathers)
  kCommPp,     ///< pipeline messages in flight while the receiver waits
  kCommOther,  ///< e.g. the tied-embedding gradient sum between first and last stage
  kBubble,     ///< waiting for another pipeline stage to compute
  kInputStall, ///< waiting for the host's next microbatch
  kIdle,       ///< anything else (should be ~0)
};
inline constexpr std::size_t kCategories = 11;

/// "compute.forward", "comm.tp", "bubble", … as in outputs.
std::string_view category_name(TimeCategory c);
/// HDF5/JSON column form: "compute_forward_s", "comm_tp_s", "bubble_s", …
std::string_view category_column(TimeCategory c);
/// "tensor-parallel comm", "bubble", …: words for people.
std::string_view category_label(TimeCategory c);

/// The category of a compute op's time.
TimeCategory compute_category(parallelism::ComputeCategory c);
/// The category of a communication's time on its axis.
TimeCategory comm_category(parallelism::CommAxis axis);

/// Picoseconds per category.
using CategoryTimes = std::array<SimTime, kCategories>;

}  // namespace podsim::runtime
