#include "plan/outcome.hpp"

#include <algorithm>
#include <cstdio>

#include "output/step_tables.hpp"
#include "parallelism/program_builder.hpp"
#include "runtime/step_simulation.hpp"
#include "util/byte_buffer.hpp"

namespace podsim::plan {

namespace {

/// The categories that are overhead: everything but forward, backward and optimizer compute.
bool is_overhead(runtime::TimeCategory c) {
  return c != runtime::TimeCategory::kForward && c != runtime::TimeCategory::kBackward &&
         c != runtime::TimeCategory::kOptimizer;
}

std::size_t dominant(const Outcome& o) {
  std::size_t best = runtime::kCategories;
  for (std::size_t c = 0; c < runtime::kCategories; ++c) {
    if (!is_overhead(static_cast<runtime::TimeCategory>(c)) || o.seconds[c] <= 0) continue;
    if (best == runtime::kCategories || o.seconds[c] > o.seconds[best]) best = c;
  }
  return best;
}

}  // namespace

double Outcome::dominant_overhead_share() const {
  const std::size_t c = dominant(*this);
  return c == runtime::kCategories || step_s <= 0 ? 0.0 : seconds[c] / step_s;
}

std::string Outcome::dominant_overhead() const {
  const std::size_t c = dominant(*this);
  if (c == runtime::kCategories) return "none";
  char share[32];
  std::snprintf(share, sizeof share, " %.1f %%", 100.0 * dominant_overhead_share());
  return std::string(runtime::category_label(static_cast<runtime::TimeCategory>(c))) + share;
}

std::vector<char> Outcome::serialize() const {
  ByteWriter w;
  for (double v : {step_s, tokens_per_s, mfu, hfu, memory_bytes, capacity_bytes}) w.f64(v);
  for (double v : seconds) w.f64(v);
  return w.take();
}

Outcome Outcome::deserialize(const std::vector<char>& bytes) {
  ByteReader r(bytes);
  Outcome o;
  for (double* v : {&o.step_s, &o.tokens_per_s, &o.mfu, &o.hfu, &o.memory_bytes, &o.capacity_bytes}) *v = r.f64();
  for (double& v : o.seconds) v = r.f64();
  return o;
}

Outcome simulate_layout(const runtime::Scenario& base, const Layout& layout, network::Fidelity fidelity,
                        runtime::CommMemo& memo, const parallelism::StepPlan* built) {
  runtime::Scenario s = apply(base, layout);
  s.network.fidelity = fidelity;
  // The plan weighed every layout's cost before simulating any (plan_run.hpp).
  collectives::SequentialExecutor here;
  const runtime::StepReport report =
      runtime::simulate_step(s, here, runtime::Recording::kTotals, &memo, runtime::Budget::kIgnore, -1, built);
  Outcome o;
  o.step_s = report.step_s;
  o.tokens_per_s = report.tokens_per_s;
  o.mfu = report.mfu;
  o.hfu = report.hfu;
  const auto& fullest = report.memory[output::fullest_stage(report)];
  o.memory_bytes = fullest.total;
  o.capacity_bytes = fullest.capacity;
  const auto& stage = report.execution.stages[output::pacing_stage(report)];
  for (std::size_t c = 0; c < runtime::kCategories; ++c) o.seconds[c] = to_seconds(stage.time_ps[c]);
  return o;
}

BuiltLayout bound_layout(const runtime::Scenario& base, const Layout& layout, runtime::CommMemo& memo) {
  runtime::Scenario s = apply(base, layout);
  s.network.fidelity = network::Fidelity::kAnalytical;
  BuiltLayout out;
  out.programs = std::make_shared<const parallelism::StepPlan>(
      parallelism::build_step(s.model, s.chip, s.parallel, s.training));
  collectives::SequentialExecutor here;
  // A cutoff of 0: bounded, never executed (any step with a task takes longer).
  const runtime::StepReport report = runtime::simulate_step(s, here, runtime::Recording::kTotals, &memo,
                                                            runtime::Budget::kIgnore, 0, out.programs.get());
  out.bound_s = to_seconds(report.program_bound_ps);
  return out;
}

}  // namespace podsim::plan
