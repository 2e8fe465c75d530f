#include "runtime/time_to_train.hpp"

#include <cmath>
#include <limits>

namespace podsim::runtime {

bool TimeToTrain::finishes() const { return std::isfinite(total_s); }

std::optional<TimeToTrain> time_to_train(const parallelism::TrainingSpec& training, double tokens_per_s,
                                         std::uint32_t chips) {
  if (!(training.tokens > 0) || !(tokens_per_s > 0)) return std::nullopt;
  TimeToTrain t;
  t.tokens = training.tokens;
  t.ideal_s = training.tokens / tokens_per_s;
  t.total_s = t.ideal_s;
  if (!training.failures || chips == 0) return t;
  const parallelism::FailureSpec& f = *training.failures;
  t.with_failures = true;
  t.job_mtbf_s = f.chip_mtbf_s / chips;
  const double c = f.checkpoint_s;
  const double tau = f.interval_s > 0 ? f.interval_s : std::sqrt(2 * c * t.job_mtbf_s);  // Young 1974
  t.interval_s = tau;
  const double checkpoint_share = tau > 0 ? c / tau : 0.0;  // no checkpoint cost: save continuously
  const double lost_per_failure = f.restart_s + (tau + c) / 2;
  const double left = 1 - lost_per_failure / t.job_mtbf_s;
  t.checkpoints_s = t.ideal_s * checkpoint_share;
  // Failures faster than a checkpoint period and a restart: the run never finishes (+inf).
  t.total_s = left > 0 ? t.ideal_s * (1 + checkpoint_share) / left : std::numeric_limits<double>::infinity();
  t.failures_s = t.total_s - t.ideal_s - t.checkpoints_s;
  t.expected_failures = t.total_s / t.job_mtbf_s;
  return t;
}

}  // namespace podsim::runtime
