#include "validation/validation_run.hpp"

#include <cmath>
#include <regex>

#include "collectives/collective_timing.hpp"
#include "collectives/group.hpp"
#include "runtime/step_simulation.hpp"
#include "util/error.hpp"

namespace podsim::validation {

namespace {

enum class MetricKind { kStepSeconds, kTflopsPerChip, kTflopsPerChipWithRecompute, kMfuPercent, kTokensPerSecond,
                        kBusbwGBps, kTimeMicroseconds, kLinkPeakPercent };

struct Metric {
  MetricKind kind;
  double link_peak_Bps = 0;  // kLinkPeakPercent
};

std::optional<Metric> metric_of(const CsvRow& row) {
  const std::string m = lower(row.at("measured_metric"));
  const std::string recompute = lower(row.at("recompute"));
  if (m.find("iteration time") != std::string::npos || m.find("step time") != std::string::npos) {
    return Metric{MetricKind::kStepSeconds};
  }
  if (m.find("tflop/s per") != std::string::npos) {
    // Megatron-LM's SC21 figures count the recompute pass (its Eq. 3); MaxText's and the
    // rest count model FLOPs.
    const bool eq3 = recompute.find("eq.3") != std::string::npos || recompute.find("incl. recompute") != std::string::npos;
    return Metric{eq3 ? MetricKind::kTflopsPerChipWithRecompute : MetricKind::kTflopsPerChip};
  }
  if (m.find("mfu") != std::string::npos) return Metric{MetricKind::kMfuPercent};
  if (m.find("tokens/s") != std::string::npos) return Metric{MetricKind::kTokensPerSecond};
  if (m.find("busbw") != std::string::npos) return Metric{MetricKind::kBusbwGBps};
  if (m.find("time (us)") != std::string::npos) return Metric{MetricKind::kTimeMicroseconds};
  std::smatch peak;
  static const std::regex kPeak(R"(fraction of ([0-9.e+]+) b/s)");
  if (std::regex_search(m, peak, kPeak)) return Metric{MetricKind::kLinkPeakPercent, std::stod(peak[1])};
  return std::nullopt;
}

double predict_training(const Metric& metric, const runtime::Scenario& s, const runtime::StepReport& r) {
  switch (metric.kind) {
    case MetricKind::kStepSeconds:
      return r.step_s;
    case MetricKind::kTflopsPerChip:
      return r.model_flops_per_step / (r.step_s * r.chips) / 1e12;
    case MetricKind::kTflopsPerChipWithRecompute: {
      const double tokens = double(s.training.global_batch) * s.training.seq_len;
      const double flops = r.model_flops_per_step + tokens * workload::layers_forward_flops_per_token(s.model, s.training.seq_len);
      return flops / (r.step_s * r.chips) / 1e12;
    }
    case MetricKind::kMfuPercent:
      return 100 * r.mfu;
    case MetricKind::kTokensPerSecond:
      return r.tokens_per_s;
    default:
      throw InputError("a collective metric on a training row");
  }
}

double predict_collective(const Metric& metric, const CollectiveCase& c) {
  const auto& eff = c.chip.efficiency;
  const topology::Topology topo(topology::with_link_efficiency(c.topology, eff.ici, eff.dcn));
  std::vector<int> axes;
  for (const auto& name : c.axes) axes.push_back(*topo.axis_index(name));
  const auto groups = collectives::make_groups(topo, axes);
  const auto t = collectives::time_collective(topo, network::NetworkSpec{}, {c.op, collectives::Algorithm::kAuto, c.bytes},
                                              groups);
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

ValidationReport validate(const std::vector<CsvRow>& rows, const Catalog& catalog) {
  ValidationReport report;
  std::map<std::string, std::pair<double, int>> sums;
  for (const CsvRow& row : rows) {
    const std::string id = row.at("id");
    auto skip = [&](const std::string& reason) { report.skipped.push_back({id, row.line, reason}); };
    const auto metric = metric_of(row);
    if (!metric) {
      skip("measured_metric \"" + row.at("measured_metric") + "\" is not one podsim predicts");
      continue;
    }
    double measured = 0;
    try {
      measured = std::stod(row.at("measured_value"));
    } catch (const std::exception&) {
      skip("measured_value \"" + row.at("measured_value") + "\" is not a number");
      continue;
    }
    if (!(measured > 0)) {
      skip("measured_value is not positive");
      continue;
    }
    RowCase c;
    try {
      c = express(row, catalog);
    } catch (const InputError& e) {
      skip(e.what());
      continue;
    }
    if (std::holds_alternative<std::monostate>(c.what)) {
      skip(c.skip_reason);
      continue;
    }
    RowResult r;
    r.id = id;
    r.line = row.line;
    r.family = c.family;
    r.metric = row.at("measured_metric");
    r.measured = measured;
    r.assumptions = c.assumptions;
    try {
      if (const auto* training = std::get_if<TrainingCase>(&c.what)) {
        const runtime::StepReport step = runtime::simulate_step(training->scenario);
        r.predicted = predict_training(*metric, training->scenario, step);
        if (!step.fits()) r.assumptions.push_back("note: podsim's memory model says this layout does not fit");
      } else {
        r.predicted = predict_collective(*metric, std::get<CollectiveCase>(c.what));
      }
    } catch (const InputError& e) {
      skip(std::string("cannot run as given: ") + e.what());
      continue;
    }
    r.error = (r.predicted - r.measured) / r.measured;
    auto& [sum, count] = sums[r.family];
    sum += std::fabs(r.error);
    ++count;
    report.rows.push_back(std::move(r));
  }
  double total = 0;
  for (const auto& [family, sc] : sums) {
    report.mape_by_family[family] = sc.first / sc.second;
    total += sc.first;
  }
  report.mape = report.rows.empty() ? 0 : total / double(report.rows.size());
  return report;
}

}  // namespace podsim::validation
