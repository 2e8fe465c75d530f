#include "validation/layout_choice.hpp"

#include "plan/outcome.hpp"
#include "util/error.hpp"

namespace podsim::validation {

LayoutChoice choose_layout(const TrainingCase& c, runtime::CommMemo* shared) {
  LayoutChoice out;
  out.scenario = c.scenario;
  if (c.unstated.empty()) return out;
  const auto candidates = plan::enumerate_layouts(c.scenario, c.search);
  auto allowed = [&](const plan::Candidate& k, plan::Verdict v) {
    return k.verdict == v && (c.max_tp == 0 || k.layout.tp <= c.max_tp) && k.layout.tp >= c.min_tp;
  };
  std::vector<std::size_t> pick;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (allowed(candidates[i], plan::Verdict::kSimulate)) pick.push_back(i);
  }
  if (pick.empty() && c.allow_oversubscribed) {
    out.fits = false;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (allowed(candidates[i], plan::Verdict::kDoesNotFit)) pick.push_back(i);
    }
  }
  if (pick.empty()) {
    out.why_none = candidates.empty() ? "the planner found no layout with the stated knobs"
                                      : "no layout with the stated knobs can run and fit: " + candidates.front().reason;
    for (const auto& k : candidates) {
      if (allowed(k, plan::Verdict::kDoesNotFit)) {
        out.why_none = "no layout with the stated knobs fits in memory (e.g. " + plan::describe(k.layout) + ": " +
                       k.reason + ")";
        break;
      }
    }
    return out;
  }
  double best_s = 0;
  std::size_t best = candidates.size();
  runtime::CommMemo own;
  runtime::CommMemo& memo = shared != nullptr ? *shared : own;
  for (std::size_t i : pick) {
    double step_s = 0;
    try {
      step_s = plan::simulate_layout(c.scenario, candidates[i].layout, network::Fidelity::kAnalytical, memo).step_s;
    } catch (const InputError&) {
      continue;  // cannot be placed or run after all: not a candidate
    }
    ++out.candidates;
    if (best == candidates.size() || step_s < best_s) {
      best_s = step_s;
      best = i;
    }
  }
  if (best == candidates.size()) {
    out.why_none = "none of the " + std::to_string(pick.size()) + " candidate layouts could be simulated";
    return out;
  }
  out.scenario = plan::apply(c.scenario, candidates[best].layout);
  out.layout = plan::describe(candidates[best].layout);
  return out;
}

}  // namespace podsim::validation
