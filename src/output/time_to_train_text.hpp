#pragma once

// The time to train for people: "21.3 days", and the line `podsim run` and `podsim plan` print.

#include <string>

#include "runtime/time_to_train.hpp"

namespace podsim::output {

/// "42 min", "5.2 h", "21.3 days", "never" (+inf).
std::string span_text(double seconds);

/// "300B", "1.5T", "20M": a token count.
std::string tokens_text(double tokens);

/// "time to train 300B tokens: 21.3 days (20.5 at the step's rate; checkpoints +0.4 days, one
/// every 26 min; failures +0.4 days, one every 3.1 h of 4096 chips, Young's first-order model)".
std::string time_to_train_text(const runtime::TimeToTrain& t, unsigned chips);

}  // namespace podsim::output
