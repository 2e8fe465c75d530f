#pragma once

// How long a training run takes: the tokens it trains on at the step's rate, stretched by
// checkpoints and failures when the scenario gives a failure rate (`training.failures`).
//
// With a job MTBF M (one chip's MTBF ÷ the job's chips), a checkpoint costing C every τ of
// work and a restart costing R, each failure loses R plus, on average, half a checkpoint
// period of work, (τ + C)/2. To first order (Young 1974, "A first order approximation to the
// optimum checkpoint interval", CACM 17(9); Daly 2006, FGCS 22(3)) the expected wall time W of
// T of work satisfies
//     W = T · (1 + C/τ) + (W / M) · (R + (τ + C)/2),
//     W = T · (1 + C/τ) / (1 − (R + (τ + C)/2) / M),
// and Young's interval τ = √(2·C·M) minimises it to first order. When failures come faster
// than a checkpoint period can be saved (the denominator ≤ 0) the run never finishes.

#include <cstdint>
#include <optional>

#include "parallelism/parallel_spec.hpp"

namespace podsim::runtime {

struct TimeToTrain {
  double tokens = 0;          ///< to train on
  double ideal_s = 0;         ///< tokens ÷ tokens per second: no checkpoint, no failure
  double checkpoints_s = 0;   ///< writing checkpoints
  double failures_s = 0;      ///< restarts and the work lost since each failure's last checkpoint
  double total_s = 0;         ///< expected wall time; +inf when the run never finishes
  bool with_failures = false;  ///< training.failures was given
  double interval_s = 0;      ///< between checkpoints (Young's unless given)
  double job_mtbf_s = 0;      ///< one chip's MTBF ÷ chips
  double expected_failures = 0;
  bool finishes() const;
};

/// The run's time to train at `tokens_per_s` on `chips`; nullopt when training.tokens is not given.
std::optional<TimeToTrain> time_to_train(const parallelism::TrainingSpec& training, double tokens_per_s,
                                         std::uint32_t chips);

}  // namespace podsim::runtime
