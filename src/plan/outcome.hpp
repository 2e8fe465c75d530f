#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "network/network_spec.hpp"
#include "parallelism/step_program.hpp"
#include "plan/layout_space.hpp"
#include "runtime/comm_memo.hpp"
#include "runtime/time_category.hpp"

namespace podsim::plan {

/// One simulated step of a layout, as the planner ranks and reports it.
struct Outcome {
  double step_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;
  double hfu = 0;
  double memory_bytes = 0;    ///< the fullest chip
  double capacity_bytes = 0;  ///< its HBM
  std::array<double, runtime::kCategories> seconds{};  ///< the pacing stage's step, by category (sums to step_s)

  /// The largest category that is not useful compute (communication, bubble, recompute,
  /// stalls), as "tensor-parallel comm 20.4 %"; "none" when there is none.
  std::string dominant_overhead() const;
  /// Its share of the step (0..1).
  double dominant_overhead_share() const;

  std::vector<char> serialize() const;
  static Outcome deserialize(const std::vector<char>& bytes);
};

/// Simulates one step of `base` with `layout` on the network of the given fidelity (with
/// `built`, the layout's programs as bound_layout built them).
Outcome simulate_layout(const runtime::Scenario& base, const Layout& layout, network::Fidelity fidelity,
                        runtime::CommMemo& memo, const parallelism::StepPlan* built = nullptr);

/// A layout's stage programs, built but not executed, and the least step they can take on the
/// analytical network (runtime::program_bound_ps). Their communication is measured into
/// `memo`, where the layout's simulation finds it.
struct BuiltLayout {
  std::shared_ptr<const parallelism::StepPlan> programs;
  double bound_s = 0;
};
BuiltLayout bound_layout(const runtime::Scenario& base, const Layout& layout, runtime::CommMemo& memo);

}  // namespace podsim::plan
