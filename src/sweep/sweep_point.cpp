#include "sweep/sweep_point.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "config/scenario_config.hpp"
#include "memory/memory_model.hpp"
#include "parallelism/work_bounds.hpp"
#include "output/step_tables.hpp"
#include "network/network_spec.hpp"
#include "runtime/step_simulation.hpp"
#include "topology/topology_spec.hpp"
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

/// What an infeasible point still says about itself: its scenario and layout as written, so
/// that its row keeps its swept values as numbers (the metrics stay NaN).
void describe_layout(PointResult& p, const runtime::Scenario& s) {
  const MetricSchema& m = metric_schema();
  const auto& par = s.parallel;
  const auto& tr = s.training;
  const std::map<std::string, std::string> texts{
      {"model", s.model.name},
      {"hardware", s.chip.name},
      {"topology", s.topology.name},
      {"network", network::fidelity_name(s.network.fidelity)},
      {"schedule", parallelism::schedule_name(par.schedule)},
      {"recompute", parallelism::recompute_name(tr.recompute)}};
  for (std::size_t i = 0; i < m.texts.size(); ++i) {
    const auto it = texts.find(m.texts[i]);
    if (it != texts.end()) p.texts[i] = it->second;
  }
  const std::int64_t per_step = std::int64_t{par.dp} * tr.micro_batch;
  const std::map<std::string, std::int64_t> ints{
      {"chips", static_cast<std::int64_t>(topology::chip_count(s.topology))},
      {"dp", par.dp},
      {"tp", par.tp},
      {"pp", par.pp},
      {"virtual_stages", par.virtual_stages},
      {"zero", par.zero},
      {"zero_group", parallelism::zero_state_group(par)},
      {"sequence_parallel", par.sequence_parallel ? 1 : 0},
      {"global_batch", tr.global_batch},
      {"micro_batch", tr.micro_batch},
      {"microbatches", per_step > 0 && tr.global_batch % per_step == 0 ? tr.global_batch / per_step : 0},
      {"seq_len", tr.seq_len}};
  for (std::size_t i = 0; i < m.ints.size(); ++i) {
    const auto it = ints.find(m.ints[i].first);
    if (it != ints.end()) p.ints[i] = it->second;
  }
}

}  // namespace

bool MetricSchema::is_when_given(const std::string& name) const {
  return std::find(when_given.begin(), when_given.end(), name) != when_given.end();
}

const MetricSchema& metric_schema() {
  static const MetricSchema kSchema = [] {  // NOLINT: an immutable table built once
    MetricSchema m;
    m.texts = {"model", "hardware", "topology", "network", "schedule", "recompute", "mesh"};
    m.ints = {{"chips", "1"}, {"dp", "1"}, {"tp", "1"}, {"pp", "1"}, {"virtual_stages", "1"}, {"zero", "1"},
              {"zero_group", "1"}, {"sequence_parallel", "1"}, {"global_batch", "1"}, {"micro_batch", "1"}, {"microbatches", "1"},
              {"seq_len", "1"}, {"fits_in_memory", "1"}};
    m.reals = {{"step_time_s", "s"}, {"tokens_per_s", "1/s"}, {"samples_per_s", "1/s"}, {"mfu", "1"}, {"hfu", "1"},
               {"padding_waste", "1"}, {"memory_peak_bytes", "B"}, {"hbm_capacity_bytes", "B"},
               {"busiest_link_utilization", "1"}};
    for (std::size_t c = 0; c < runtime::kCategories; ++c) {
      m.reals.emplace_back(std::string(runtime::category_column(static_cast<runtime::TimeCategory>(c))), "s");
    }
    m.when_given = {"time_to_train_s", "time_to_train_ideal_s"};
    for (const auto& name : m.when_given) m.reals.emplace_back(name, "s");
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

std::size_t int_metric_index(const std::string& name) {
  const auto& ints = metric_schema().ints;
  for (std::size_t i = 0; i < ints.size(); ++i) {
    if (ints[i].first == name) return i;
  }
  throw std::logic_error("no whole-number sweep metric " + name);
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

PointResult evaluate_point(const config::LoadedSweep& sweep, std::uint64_t index, SharedWork& shared) {
  std::vector<config::Override> overrides = sweep.fixed;
  for (auto& o : sweep.overrides_at(index)) overrides.push_back(std::move(o));
  std::vector<std::int64_t> derived(sweep.derived.size(), 0);
  // Read once; the layout is checked apart so that a point that cannot run still says what
  // it is (its layout as written) without reading its files again.
  config::LoadedScenario loaded = config::load_scenario(sweep.base, overrides, false, shared.files);
  if (!sweep.derived.empty()) {
    // Derived keys are computed from the point's own values (before its layout is checked),
    // then the point is read again with them (its files are not).
    const auto vars = config::derive_variables(loaded.scenario);
    std::vector<config::Override> values;
    for (std::size_t k = 0; k < sweep.derived.size(); ++k) {
      const config::DerivedKey& d = sweep.derived[k];
      std::string why;
      const auto value = d.expression.evaluate(vars, &why);
      if (!value || *value < 1) {
        PointResult p = infeasible(index, d.key + " = " + d.expression.text() + ": " + (value ? "not positive" : why),
                                   sweep, derived);
        describe_layout(p, loaded.scenario);
        return p;
      }
      derived[k] = *value;
      values.push_back(config::Override{d.key, std::to_string(*value), d.where + " (derive " + d.key + ")", sweep.dir});
    }
    loaded = loaded.again(values, false);
  }
  try {
    loaded.check_layout(loaded.scenario);
  } catch (const config::InfeasibleLayout& e) {
    PointResult p = infeasible(index, e.what(), sweep, derived);
    describe_layout(p, loaded.scenario);
    return p;
  }
  const runtime::Scenario& s = loaded.scenario;
  const auto work = parallelism::estimate_work(s.model, s.parallel, s.training);
  if (const auto why = parallelism::over_budget(work, s.training)) {
    PointResult p = infeasible(index, "beyond the work budget: " + *why, sweep, derived);
    describe_layout(p, s);
    return p;
  }
  const auto memory = memory::stage_memory(s.model, s.chip, s.parallel, s.training);
  if (const auto why = memory::does_not_fit(memory)) {
    PointResult p = infeasible(index, "does not fit in memory: " + *why, sweep, derived);
    describe_layout(p, s);
    double peak = 0;
    for (const auto& stage : memory) peak = std::max(peak, stage.total);
    p.reals[metric_index("memory_peak_bytes")] = peak;
    p.reals[metric_index("hbm_capacity_bytes")] = s.chip.hbm_capacity_bytes - s.chip.hbm_reserved_bytes;
    return p;
  }
  runtime::StepReport report;
  try {
    report = runtime::simulate_step(s, runtime::Recording::kTotals, shared.memo, shared.steps);
  } catch (const runtime::BeyondWorkBudget& e) {
    PointResult p = infeasible(index, "beyond the work budget: " + e.key() + ": " + e.what(), sweep, derived);
    describe_layout(p, s);
    return p;
  }
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
    if (!category) {
      p.reals.push_back(summary.has(name) || !m.is_when_given(name) ? summary.reals(name)[0]
                                                                      : std::numeric_limits<double>::quiet_NaN());
    }
  }
  return p;
}

PointResult evaluate_point(const config::LoadedSweep& sweep, std::uint64_t index) {
  SharedWork fresh;
  return evaluate_point(sweep, index, fresh);
}

}  // namespace podsim::sweep
