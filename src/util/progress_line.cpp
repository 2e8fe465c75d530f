#include "util/progress_line.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace podsim {

ProgressLine::ProgressLine(std::string label, std::string unit, bool enabled, std::uint64_t total, std::uint64_t done,
                           int processes)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      enabled_(enabled),
      terminal_(isatty(STDERR_FILENO) != 0),
      total_(total),
      start_done_(done),
      processes_(processes) {}

void ProgressLine::update(std::uint64_t done, bool final) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const double since_print = std::chrono::duration<double>(now - last_).count();
  if (!final && since_print < (terminal_ ? 0.2 : 10.0)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? double(done - start_done_) / elapsed : 0;
  const double eta = rate > 0 ? double(total_ - done) / rate : 0;
  const char* start = terminal_ ? "\r" : "";
  const auto d = static_cast<unsigned long long>(done);
  const auto t = static_cast<unsigned long long>(total_);
  if (final) {
    std::fprintf(stderr, "%s[%s] %llu/%llu %s · %.1f %s/s · %.2f s on %d process(es)\n", start, label_.c_str(), d, t,
                 unit_.c_str(), rate, unit_.c_str(), elapsed, processes_);
  } else {
    std::fprintf(stderr, "%s[%s] %llu/%llu %s · %.1f %s/s · ETA %.0f s%s", start, label_.c_str(), d, t, unit_.c_str(),
                 rate, unit_.c_str(), eta, terminal_ ? "\033[K" : "\n");
  }
  std::fflush(stderr);
}

}  // namespace podsim
