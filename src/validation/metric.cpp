#include "validation/metric.hpp"

#include <iterator>
#include <regex>
#include <string_view>
#include <utility>

namespace podsim::validation {

namespace {
bool has(const std::string& text, const char* needle) { return text.find(needle) != std::string::npos; }
}  // namespace

std::optional<Metric> metric_of(const CsvRow& row) {
  const std::string m = lower(row.at("measured_metric"));
  const std::string recompute = lower(row.at("recompute"));
  if (has(m, "activation memory")) return Metric{MetricKind::kActivationGiB};
  if (has(m, "per-layer") || has(m, "per layer")) return Metric{MetricKind::kLayerMilliseconds};
  if (has(m, "iteration time") || has(m, "step time")) return Metric{MetricKind::kStepSeconds};
  if (has(m, "tflop/s per") || has(m, "tflops per")) {
    // podsim counts a row's FLOPs as its source did. Megatron-LM's SC21 paper counts the
    // recompute pass in every table (its Eq. 3; the data file's README says so); BLOOM counts
    // "8*N*tokens" (every parameter, embeddings included, no attention term); MaxText's
    // calculate_training_tflops (MaxText/train.py from 2023-06, when it began to count
    // attention) 6 · every parameter its pytree holds (both embedding tables when untied) per
    // token, plus attention; the rest count model FLOPs.
    const std::string source = lower(row.at("source"));
    const bool sc21 = has(source, "2104.04473") || has(source, "sc21");
    const bool hardware = sc21 || has(m, "counts recompute") || has(m, "hardware flops") || has(recompute, "eq.3") ||
                          has(recompute, "incl. recompute");
    const auto flops = [](FlopCount count) { return Metric{MetricKind::kTflopsPerChip, 0, count}; };
    // A launch fact may state how the code that made the figure counted (launch_facts.hpp).
    if (const auto stated = flop_count_named(row.at("flop_count"))) return flops(*stated);
    if (has(m, "8*n*tokens") || has(m, "8·n·tokens")) return flops(FlopCount::kEightN);
    if (hardware) return flops(FlopCount::kSc21Eq3);
    if (has(source, "maxtext")) return flops(FlopCount::kMaxText);
    return flops(FlopCount::kModel);
  }
  if (has(m, "mfu")) return Metric{MetricKind::kMfuPercent};
  if (has(m, "hfu")) return Metric{MetricKind::kHfuPercent};
  if (has(m, "tokens/s")) {
    const bool per_chip = has(m, "per gpu") || has(m, "per chip") || has(m, "/gpu") || has(m, "per device");
    return Metric{per_chip ? MetricKind::kTokensPerSecondPerChip : MetricKind::kTokensPerSecond};
  }
  if (has(m, "busbw")) return Metric{MetricKind::kBusbwGBps};
  if (has(m, "algbw")) return Metric{MetricKind::kAlgbwGBps};
  if (has(m, "time (us)")) return Metric{MetricKind::kTimeMicroseconds};
  std::smatch peak;
  static const std::regex kPeak(R"(fraction of ([0-9.e+]+) b/s)");
  if (std::regex_search(m, peak, kPeak)) return Metric{MetricKind::kLinkPeakPercent, std::stod(peak[1])};
  return std::nullopt;
}

namespace {

constexpr std::pair<std::string_view, FlopCount> kFlopCountNames[] = {
    {"model", FlopCount::kModel},     {"sc21-eq3", FlopCount::kSc21Eq3},
    {"8n", FlopCount::kEightN},       {"maxtext", FlopCount::kMaxText},
    {"maxtext-causal", FlopCount::kMaxTextCausal}};

}  // namespace

std::optional<FlopCount> flop_count_named(const std::string& name) {
  for (const auto& [n, count] : kFlopCountNames) {
    if (n == name) return count;
  }
  return std::nullopt;
}

std::string flop_count_names() {
  std::string names;
  const std::size_t last = std::size(kFlopCountNames) - 1;
  for (std::size_t i = 0; i <= last; ++i) {
    names += std::string(i == 0 ? "" : i == last ? " or " : ", ") + std::string(kFlopCountNames[i].first);
  }
  return names;
}

double flops_per_token(FlopCount count, const workload::ModelSpec& m, int seq_len) {
  switch (count) {
    case FlopCount::kModel:
      return workload::model_flops_per_token(m, seq_len);
    case FlopCount::kSc21Eq3:
      return workload::model_flops_per_token(m, seq_len) + workload::layers_forward_flops_per_token(m, seq_len);
    case FlopCount::kEightN:
      return 8.0 * workload::count_params(m).total;
    case FlopCount::kMaxText:
      return 6.0 * workload::count_params(m).total + 12.0 * m.layers * double(m.heads) * m.head_dim * seq_len;
    case FlopCount::kMaxTextCausal:
      return 6.0 * workload::count_params(m).total + 6.0 * m.layers * double(m.heads) * m.head_dim * seq_len;
  }
  return workload::model_flops_per_token(m, seq_len);
}

bool is_collective_metric(const Metric& metric) {
  switch (metric.kind) {
    case MetricKind::kBusbwGBps:
    case MetricKind::kAlgbwGBps:
    case MetricKind::kTimeMicroseconds:
    case MetricKind::kLinkPeakPercent:
      return true;
    default:
      return false;
  }
}

bool reports_training_run(const Metric& metric) {
  return !is_collective_metric(metric) && metric.kind != MetricKind::kActivationGiB;
}

}  // namespace podsim::validation
