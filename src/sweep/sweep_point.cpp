#include "sweep/sweep_point.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "config/scenario_config.hpp"
#include "memory/memory_model.hpp"
#include "parallelism/work_bounds.hpp"
#include "output/step_tables.hpp"
#include "runtime/step_simulation.hpp"
#include "util/byte_buffer.hpp"

namespace podsim::sweep {

namespace {

PointResult infeasible(std::uint64_t index, std::string reason, const config::LoadedSweep& sweep,
                       std::vector<std::int64_t> derived) {
  if (!sweep.skip_infeasible) {
    throw InputError(sweep.describe(index) + " cannot run, and the sweep has skip_infeasible: false: " + reason);
  }
  PointResult r;
  r.index = index;
  r.reason = std::move(reason);
  r.derived = std::move(derived);
  const MetricSchema& m = metric_schema();
  r.texts.assign(m.texts.size(), "");
  r.ints.assign(m.ints.size(), 0);
  r.reals.assign(m.reals.size(), std::numeric_limits<double>::quiet_NaN());
  return r;
}

}  // namespace

const MetricSchema& metric_schema() {
  static const MetricSchema kSchema = [] {  // NOLINT: an immutable table built once
    MetricSchema m;
    m.texts = {"model", "hardware", "topology", "network", "schedule", "recompute", "mesh"};
    m.ints = {{"chips", "1"}, {"dp", "1"}, {"tp", "1"}, {"pp", "1"}, {"virtual_stages", "1"}, {"zero", "1"},
              {"sequence_parallel", "1"}, {"global_batch", "1"}, {"micro_batch", "1"}, {"microbatches", "1"},
              {"seq_len", "1"}, {"fits_in_memory", "1"}};
    m.reals = {{"step_time_s", "s"}, {"tokens_per_s", "1/s"}, {"samples_per_s", "1/s"}, {"mfu", "1"}, {"hfu", "1"},
               {"padding_waste", "1"}, {"memory_peak_bytes", "B"}, {"hbm_capacity_bytes", "B"},
               {"busiest_link_utilization", "1"}};
    for (std::size_t c = 0; c < runtime::kCategories; ++c) {
      m.reals.emplace_back(std::string(runtime::category_column(static_cast<runtime::TimeCategory>(c))), "s");
    }
    return m;
  }();
  return kSchema;
}

std::size_t metric_index(const std::string& name) {
  const auto& reals = metric_schema().reals;
  for (std::size_t i = 0; i < reals.size(); ++i) {
    if (reals[i].first == name) return i;
  }
  throw std::logic_error("no sweep metric " + name);
}

std::vector<char> PointResult::serialize() const {
  ByteWriter w;
  w.u64(feasible ? 1 : 0);
  w.text(reason);
  w.u64(derived.size());
  for (auto v : derived) w.u64(static_cast<std::uint64_t>(v));
  for (const auto& t : texts) w.text(t);
  for (auto v : ints) w.u64(static_cast<std::uint64_t>(v));
  for (double v : reals) w.f64(v);
  return w.take();
}

PointResult PointResult::deserialize(std::uint64_t index, const std::vector<char>& bytes) {
  const MetricSchema& m = metric_schema();
  ByteReader r(bytes);
  PointResult p;
  p.index = index;
  p.feasible = r.u64() != 0;
  p.reason = r.text();
  p.derived.resize(r.u64());
  for (auto& v : p.derived) v = static_cast<std::int64_t>(r.u64());
  for (std::size_t i = 0; i < m.texts.size(); ++i) p.texts.push_back(r.text());
  for (std::size_t i = 0; i < m.ints.size(); ++i) p.ints.push_back(static_cast<std::int64_t>(r.u64()));
  for (std::size_t i = 0; i < m.reals.size(); ++i) p.reals.push_back(r.f64());
  return p;
}

PointResult evaluate_point(const config::LoadedSweep& sweep, std::uint64_t index) {
  std::vector<config::Override> overrides = sweep.fixed;
  for (auto& o : sweep.overrides_at(index)) overrides.push_back(std::move(o));
  std::vector<std::int64_t> derived(sweep.derived.size(), 0);
  if (!sweep.derived.empty()) {
    // Derived keys are computed from the point's own values (before its layout is checked).
    const auto raw = config::load_scenario(sweep.base, overrides, false);
    const auto vars = config::derive_variables(raw.scenario);
    for (std::size_t k = 0; k < sweep.derived.size(); ++k) {
      const config::DerivedKey& d = sweep.derived[k];
      std::string why;
      const auto value = d.expression.evaluate(vars, &why);
      if (!value || *value < 1) {
        return infeasible(index, d.key + " = " + d.expression.text() + ": " + (value ? "not positive" : why), sweep,
                          derived);
      }
      derived[k] = *value;
      overrides.push_back(config::Override{d.key, std::to_string(*value), d.where + " (derive " + d.key + ")", sweep.dir});
    }
  }
  config::LoadedScenario loaded;
  try {
    loaded = config::load_scenario(sweep.base, overrides);
  } catch (const config::InfeasibleLayout& e) {
    return infeasible(index, e.what(), sweep, derived);
  }
  const runtime::Scenario& s = loaded.scenario;
  const auto work = parallelism::estimate_work(s.model, s.parallel, s.training);
  if (const auto why = parallelism::over_budget(work, s.training)) {
    return infeasible(index, "beyond the work budget: " + *why, sweep, derived);
  }
  const auto memory = memory::stage_memory(s.model, s.chip, s.parallel, s.training);
  if (const auto why = memory::does_not_fit(memory)) {
    return infeasible(index, "does not fit in memory: " + *why, sweep, derived);
  }
  const runtime::StepReport report = runtime::simulate_step(s, runtime::Recording::kTotals);
  const output::Table summary = output::summary_table(s, report, output::RunLabels{loaded.name, s.topology.name});

  PointResult p;
  p.index = index;
  p.feasible = true;
  p.derived = std::move(derived);
  const MetricSchema& m = metric_schema();
  // Every metric column is a /summary column of the same name (the categories excepted).
  for (const auto& name : m.texts) p.texts.push_back(summary.texts(name)[0]);
  for (const auto& [name, unit] : m.ints) p.ints.push_back(summary.ints(name)[0]);
  const std::size_t pace = output::pacing_stage(report);
  for (const auto& [name, unit] : m.reals) {
    bool category = false;
    for (std::size_t c = 0; c < runtime::kCategories; ++c) {
      if (name == runtime::category_column(static_cast<runtime::TimeCategory>(c))) {
        p.reals.push_back(to_seconds(report.execution.stages[pace].time_ps[c]));
        category = true;
      }
    }
    if (!category) p.reals.push_back(summary.reals(name)[0]);
  }
  return p;
}

}  // namespace podsim::sweep
