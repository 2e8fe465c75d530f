#include "validation/validation_run.hpp"

#include <cmath>
#include <regex>

#include "collectives/collective_timing.hpp"
#include "collectives/group.hpp"
#include "runtime/step_simulation.hpp"
#include "util/error.hpp"
#include "validation/layer_time.hpp"
#include "validation/layout_choice.hpp"

namespace podsim::validation {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double predict_training(const Metric& metric, const runtime::Scenario& s, const runtime::StepReport& r) {
  switch (metric.kind) {
    case MetricKind::kStepSeconds:
      return r.step_s;
    case MetricKind::kTflopsPerChip:
      // The step's FLOPs as the row's source counted them; the time is podsim's.
      return double(s.training.global_batch) * s.training.seq_len *
             flops_per_token(metric.count, s.model, s.training.seq_len) / (r.step_s * r.chips) / 1e12;
    case MetricKind::kMfuPercent:
      return 100 * r.mfu;
    case MetricKind::kHfuPercent:
      return 100 * r.hfu;
    case MetricKind::kTokensPerSecond:
      return r.tokens_per_s;
    case MetricKind::kTokensPerSecondPerChip:
      return r.tokens_per_s / r.chips;
    case MetricKind::kActivationGiB:
      return r.memory.front().activations / kGiB;
    default:
      throw InputError("a collective metric on a training row");
  }
}

double predict_collective(const Metric& metric, const CollectiveCase& c, RowResult& row) {
  const auto& eff = c.chip.efficiency;
  const topology::Topology topo(topology::with_link_efficiency(c.topology, eff.ici, eff.dcn));
  std::vector<int> axes;
  for (const auto& name : c.axes) axes.push_back(*topo.axis_index(name));
  const auto groups = collectives::make_groups(topo, axes);
  const auto t = collectives::time_collective(topo, network::NetworkSpec{}, {c.op, collectives::Algorithm::kAuto, c.bytes},
                                              groups);
  row.collective = RowResult::CollectiveRun{c.op, t};
  switch (metric.kind) {
    case MetricKind::kBusbwGBps:
      return t.busbw_Bps / 1e9;
    case MetricKind::kTimeMicroseconds:
      return t.time_s * 1e6;
    case MetricKind::kLinkPeakPercent: {
      // A ring along a wrapped axis drives both directions of the chip's links on it.
      const auto& dim = groups.front().dims.front();
      const double directions = dim.wraps && dim.size >= 3 ? 2.0 : 1.0;
      return 100 * t.busbw_Bps / (metric.link_peak_Bps * directions);
    }
    default:
      throw InputError("a training metric on a collective row");
  }
}

}  // namespace

std::string source_key(const std::string& source) {
  const std::size_t space = source.find(' ');
  const std::string first = source.substr(0, space);
  if (first.find('/') != std::string::npos) return first;
  const std::size_t et_al = source.find("et al.");
  if (et_al != std::string::npos) return source.substr(0, et_al + 6);
  return first;
}

namespace {

/// Simulates a training row: chooses the knobs it leaves open, runs the step (or times one
/// layer), and fills the prediction and the memory of the layout.
void simulate_training(const TrainingCase& c, RowResult& r, runtime::CommMemo* memo) {
  const LayoutChoice choice = choose_layout(c, memo);
  if (!choice.why_none.empty()) throw InputError(choice.why_none);
  if (!choice.layout.empty()) {
    r.assumptions.push_back("layout chosen by the planner (fastest of " + std::to_string(choice.candidates) +
                            (choice.fits ? " that fit" : ", none fits") + ", analytical network; open: " +
                            [&] {
                              std::string open;
                              for (const auto& k : c.unstated) open += (open.empty() ? "" : ", ") + k;
                              return open;
                            }() +
                            "): " + choice.layout);
  }
  const runtime::Scenario& s = choice.scenario;
  r.scenario = s;
  plan::Layout layout;  // the scenario's knobs, named (the planner's variants stay unset)
  layout.dp = s.parallel.dp;
  layout.tp = s.parallel.tp;
  layout.pp = s.parallel.pp;
  layout.schedule = s.parallel.schedule;
  layout.virtual_stages = s.parallel.virtual_stages;
  layout.microbatch_group = s.parallel.microbatch_group;
  layout.micro_batch = s.training.micro_batch;
  layout.zero = s.parallel.zero;
  layout.zero_group = s.parallel.zero_group;
  layout.sequence_parallel = s.parallel.sequence_parallel;
  layout.recompute = s.training.recompute;
  r.layout = plan::describe(layout);
  r.reports_run = reports_training_run(c.metric);
  if (c.metric.kind == MetricKind::kLayerMilliseconds) {
    r.predicted = 1e3 * layer_seconds(s);
    const auto mem = memory::stage_memory(s.model, s.chip, s.parallel, s.training);
    r.fits = !memory::does_not_fit(mem).has_value();
    r.memory_bytes = mem.front().total;
    r.capacity_bytes = mem.front().capacity;
    return;
  }
  collectives::SequentialExecutor here;
  const runtime::StepReport step = runtime::simulate_step(s, here, runtime::Recording::kTotals, memo);
  r.predicted = predict_training(c.metric, s, step);
  r.mfu = step.mfu;
  r.fits = step.fits();
  std::size_t fullest = 0;
  for (std::size_t i = 0; i < step.memory.size(); ++i) {
    if (step.memory[i].total / step.memory[i].capacity > step.memory[fullest].total / step.memory[fullest].capacity) {
      fullest = i;
    }
  }
  r.memory_bytes = step.memory[fullest].total;
  r.capacity_bytes = step.memory[fullest].capacity;
  if (!r.fits && r.reports_run) r.assumptions.push_back("note: podsim's memory model says this layout does not fit");
}

}  // namespace

RowOutcome validate_row(const CsvRow& stated, const Catalog& catalog, const Overrides& overrides,
                        runtime::CommMemo* memo) {
  RowOutcome out;
  CsvRow row = stated;
  const std::string id = row.at("id");
  std::string launch;
  if (const auto fact = catalog.launch.find(id); fact != catalog.launch.end()) launch = apply_launch_facts(row, fact->second);
  auto skip = [&](const std::string& reason) {
    out.skipped = SkippedRow{id, row.line, reason};
    return out;
  };
  const auto metric = metric_of(row);
  if (!metric) return skip("measured_metric \"" + row.at("measured_metric") + "\" is not one podsim predicts");
  double measured = 0;
  try {
    measured = std::stod(row.at("measured_value"));
  } catch (const std::exception&) {
    return skip("measured_value \"" + row.at("measured_value") + "\" is not a number");
  }
  if (!(measured > 0)) return skip("measured_value is not positive");
  RowCase c;
  try {
    c = express(row, catalog);
  } catch (const InputError& e) {
    return skip(e.what());
  }
  if (std::holds_alternative<std::monostate>(c.what)) return skip(c.skip_reason);
  if (auto* training = std::get_if<TrainingCase>(&c.what)) {
    hardware::ChipSpec& chip = training->scenario.chip;
    if (const auto o = overrides.matmul.find(chip.name); o != overrides.matmul.end()) chip.efficiency.matmul = o->second;
    if (const auto o = overrides.training.find(chip.name); o != overrides.training.end()) {
      chip.efficiency.training = o->second;
    }
  }
  RowResult r;
  r.id = id;
  r.line = row.line;
  r.family = c.family;
  r.source = source_key(row.at("source"));
  r.metric = row.at("measured_metric");
  r.measured = measured;
  r.assumptions = c.assumptions;
  if (!launch.empty()) r.assumptions.insert(r.assumptions.begin(), "launch configuration: " + launch);
  try {
    if (const auto* training = std::get_if<TrainingCase>(&c.what)) {
      simulate_training(*training, r, memo);
    } else {
      r.predicted = predict_collective(*metric, std::get<CollectiveCase>(c.what), r);
    }
  } catch (const InputError& e) {
    return skip(std::string("cannot run as given: ") + e.what());
  }
  r.error = (r.predicted - r.measured) / r.measured;
  out.result = std::move(r);
  return out;
}

ValidationReport summarise(std::vector<RowOutcome>&& outcomes) {
  ValidationReport report;
  std::map<std::string, std::pair<double, int>> sums;
  std::map<std::string, std::pair<double, int>> source_sums;
  for (RowOutcome& o : outcomes) {
    if (!o.result) {
      report.skipped.push_back(std::move(o.skipped));
      continue;
    }
    RowResult& r = *o.result;
    for (auto* map : {&sums, &source_sums}) {
      auto& [sum, count] = (*map)[map == &sums ? r.family : r.source];
      sum += std::fabs(r.error);
      ++count;
    }
    report.rows.push_back(std::move(r));
  }
  double total = 0;
  for (const auto& [family, sc] : sums) {
    report.mape_by_family[family] = sc.first / sc.second;
    total += sc.first;
  }
  for (const auto& [source, sc] : source_sums) report.mape_by_source[source] = sc.first / sc.second;
  report.mape = report.rows.empty() ? 0 : total / double(report.rows.size());
  return report;
}

ValidationReport validate(const std::vector<CsvRow>& rows, const Catalog& catalog, const Overrides& overrides) {
  std::vector<RowOutcome> outcomes;
  runtime::CommMemo memo;  // rows on one machine and placement measure their collectives once
  for (const CsvRow& row : rows) outcomes.push_back(validate_row(row, catalog, overrides, &memo));
  return summarise(std::move(outcomes));
}

}  // namespace podsim::validation
