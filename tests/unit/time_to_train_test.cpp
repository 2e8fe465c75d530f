// The time to train (runtime/time_to_train.hpp) against its closed forms: tokens ÷ rate, and
// Young's first-order model with checkpoints, restarts and lost work.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/time_to_train.hpp"

namespace podsim::runtime {
namespace {

parallelism::TrainingSpec run(double tokens) {
  parallelism::TrainingSpec t;
  t.tokens = tokens;
  return t;
}

TEST(TimeToTrain, IsTheTokensAtTheStepsRate) {
  EXPECT_FALSE(time_to_train(run(0), 1e6, 64).has_value());  // training.tokens not given
  const auto t = time_to_train(run(3e11), 4.25e5, 4096);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->ideal_s, 3e11 / 4.25e5);
  EXPECT_DOUBLE_EQ(t->total_s, t->ideal_s);
  EXPECT_FALSE(t->with_failures);
}

TEST(TimeToTrain, FailuresFollowYoungsFirstOrderModel) {
  // One chip fails every 50,000 h (Llama 3's 419 interruptions in 54 days on 16,384 GPUs are
  // one every 50,700 GPU-hours); 4096 chips; a 60 s checkpoint, a 10 min restart.
  auto training = run(3e11);
  training.failures = parallelism::FailureSpec{50000 * 3600.0, 60, 600, 0};
  const double rate = 4.25e5, chips = 4096;
  const auto t = time_to_train(training, rate, 4096);
  ASSERT_TRUE(t.has_value());
  const double m = 50000 * 3600.0 / chips, c = 60, r = 600, work = 3e11 / rate;
  const double tau = std::sqrt(2 * c * m);
  EXPECT_DOUBLE_EQ(t->job_mtbf_s, m);
  EXPECT_DOUBLE_EQ(t->interval_s, tau);
  const double wall = work * (1 + c / tau) / (1 - (r + (tau + c) / 2) / m);
  EXPECT_NEAR(t->total_s / wall, 1.0, 1e-12);
  EXPECT_NEAR(t->ideal_s + t->checkpoints_s + t->failures_s, t->total_s, 1e-6 * t->total_s);
  EXPECT_NEAR(t->checkpoints_s, work * c / tau, 1e-9 * work);
  EXPECT_NEAR(t->expected_failures, wall / m, 1e-9 * wall / m);
  // Young's interval is the best one to first order: a shorter or longer one costs more.
  for (double other : {tau / 2, tau * 2}) {
    training.failures->interval_s = other;
    EXPECT_GT(time_to_train(training, rate, 4096)->total_s, t->total_s) << other;
  }
}

TEST(TimeToTrain, ARunFailingFasterThanItCheckpointsNeverFinishes) {
  auto training = run(3e11);
  training.failures = parallelism::FailureSpec{100 * 3600.0, 60, 600, 0};  // a failure every 88 s of 4096 chips
  const auto t = time_to_train(training, 4.25e5, 4096);
  ASSERT_TRUE(t.has_value());
  EXPECT_FALSE(t->finishes());
  EXPECT_TRUE(std::isinf(t->total_s));
  // Free checkpoints, taken continuously: only the restarts cost, R / M of the wall time.
  training.failures = parallelism::FailureSpec{50000 * 3600.0, 0, 600, 0};
  const auto free = time_to_train(training, 4.25e5, 4096);
  const double m = 50000 * 3600.0 / 4096;
  EXPECT_NEAR(free->total_s, free->ideal_s / (1 - 600 / m), 1e-6);
  EXPECT_DOUBLE_EQ(free->checkpoints_s, 0.0);
}

}  // namespace
}  // namespace podsim::runtime
