#pragma once

// Knobs a published row leaves open, chosen as the original system would: the planner
// (src/plan) enumerates every layout with the row's stated knobs fixed and its system's
// conventions (no GPipe; tensor parallelism within a GPU node, Megatron-LM's first
// takeaway, Narayanan et al. SC21 §3.2), prunes what breaks a layout rule, does not fit in
// HBM or is dominated, simulates the rest on the analytical network and keeps the fastest.
// A memory figure (not a run) may fall back to layouts that do not fit.

#include <string>

#include "runtime/comm_memo.hpp"
#include "runtime/scenario.hpp"
#include "validation/row_case.hpp"

namespace podsim::validation {

struct LayoutChoice {
  runtime::Scenario scenario;  ///< the row's scenario with every knob set
  std::string layout;          ///< plan::describe of the chosen layout ("" when nothing was open)
  std::size_t candidates = 0;  ///< layouts simulated to choose it
  bool fits = true;            ///< false: no layout fits, the fastest of those that do not was taken
  std::string why_none;        ///< when nothing can run: the planner's reason for the first layout
};

/// The row's scenario with its open knobs chosen (unchanged when it leaves none open).
/// `why_none` is set and `candidates` is 0 when no layout can run at all. With `memo`, the
/// candidates' communication measurements are shared with the other simulations that use it.
LayoutChoice choose_layout(const TrainingCase& c, runtime::CommMemo* memo = nullptr);

}  // namespace podsim::validation
