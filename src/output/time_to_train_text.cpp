#include "output/time_to_train_text.hpp"

#include <cmath>
#include <cstdio>

#include "util/units.hpp"

namespace podsim::output {

std::string span_text(double seconds) {
  if (!std::isfinite(seconds)) return "never";
  if (seconds < 120) return units::format_fixed(seconds, 0) + " s";
  if (seconds < 2 * 3600.0) return units::format_fixed(seconds / 60, 0) + " min";
  if (seconds < 2 * 86400.0) return units::format_fixed(seconds / 3600, 1) + " h";
  return units::format_fixed(seconds / 86400, 1) + " days";
}

std::string tokens_text(double tokens) {
  char text[32];
  if (tokens >= 1e12) std::snprintf(text, sizeof text, "%.3gT", tokens / 1e12);
  else if (tokens >= 1e9) std::snprintf(text, sizeof text, "%.3gB", tokens / 1e9);
  else if (tokens >= 1e6) std::snprintf(text, sizeof text, "%.3gM", tokens / 1e6);
  else std::snprintf(text, sizeof text, "%.0f", tokens);
  return text;
}

std::string time_to_train_text(const runtime::TimeToTrain& t, unsigned chips) {
  std::string out = "time to train " + tokens_text(t.tokens) + " tokens: " + span_text(t.total_s);
  if (!t.with_failures) return out + " (at the step's rate; no failures given)";
  out += " (" + span_text(t.ideal_s) + " at the step's rate; ";
  if (!t.finishes()) {
    return out + "a failure every " + span_text(t.job_mtbf_s) + " of " + std::to_string(chips) +
           " chips comes before a checkpoint period and a restart are over)";
  }
  out += "checkpoints +" + span_text(t.checkpoints_s);
  if (t.interval_s > 0) out += ", one every " + span_text(t.interval_s);
  out += "; failures +" + span_text(t.failures_s) + ", one every " + span_text(t.job_mtbf_s) + " of " +
         std::to_string(chips) + " chips; Young's first-order model)";
  return out;
}

}  // namespace podsim::output
