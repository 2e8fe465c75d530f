#pragma once

// What a published row measured, read from its measured_metric column (and, for FLOP/s,
// how its source counted FLOPs), and how podsim's prediction is put in the same terms.

#include <optional>
#include <string>

#include "validation/csv_table.hpp"
#include "workload/model_spec.hpp"

namespace podsim::validation {

enum class MetricKind {
  kStepSeconds,          ///< iteration / step time (s)
  kTflopsPerChip,        ///< FLOPs per chip per second, counted as the source did (Metric::count)
  kMfuPercent,
  kHfuPercent,
  kTokensPerSecond,      ///< the whole system
  kTokensPerSecondPerChip,
  kActivationGiB,        ///< activation memory per chip of the first pipeline stage
  kLayerMilliseconds,    ///< one transformer layer's forward + backward (recompute included)
  kBusbwGBps,
  kAlgbwGBps,
  kTimeMicroseconds,
  kLinkPeakPercent,
};

/// How a row's source counted the FLOPs of its FLOP/s figure, so that podsim's prediction is
/// counted the same way (only the count differs; the step time is podsim's).
enum class FlopCount {
  kModel,     ///< forward + backward of the layers and the output projection (6·N + attention)
  kSc21Eq3,   ///< [SC21] Eq. 3: kModel plus one more forward of the layers (the recompute pass)
  kEightN,    ///< 8 · (every parameter) per token, as BLOOM's training README counts
  kMaxText,   ///< MaxText's calculate_training_tflops (2023): 6 · (every parameter, embeddings
              ///< included) per token plus 12 · layers · heads · head_dim · seq_len of attention
  kMaxTextCausal,  ///< the same from 2023-11-08 (64ee4e93): the attention term halved (causal)
};

/// The name a launch fact gives a count (`flop_count`): one of flop_count_names(); nullopt for
/// another name.
std::optional<FlopCount> flop_count_named(const std::string& name);
/// "model, sc21-eq3, 8n, maxtext or maxtext-causal": the names flop_count_named knows.
std::string flop_count_names();

struct Metric {
  MetricKind kind = MetricKind::kStepSeconds;
  double link_peak_Bps = 0;  ///< kLinkPeakPercent
  FlopCount count = FlopCount::kModel;  ///< kTflopsPerChip
};

/// FLOPs per trained token of `model` at `seq_len` as `count` counts them.
double flops_per_token(FlopCount count, const workload::ModelSpec& model, int seq_len);

/// The metric of a row, or nullopt when podsim does not predict it.
std::optional<Metric> metric_of(const CsvRow& row);

/// True for a quantity of one training step (time, throughput, FLOP/s, MFU, HFU, per-layer
/// time): such a row reports a run, which must fit in memory. Activation-memory figures and
/// collective benchmarks are not step quantities.
bool reports_training_run(const Metric& metric);

/// True for metrics of collective benchmarks (busbw, algbw, time in µs, link-peak fraction).
bool is_collective_metric(const Metric& metric);

}  // namespace podsim::validation
