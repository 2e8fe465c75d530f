#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace podsim {

/// "[sweep] 120/400 points · 35.2 points/s · ETA 8 s" on stderr: rewritten in place when
/// stderr is a terminal (at most 5 times a second), else a plain line every 10 seconds.
/// The final line gives the wall time and the number of processes.
class ProgressLine {
 public:
  /// `done` items were finished before this run started (they do not count in the rate).
  ProgressLine(std::string label, std::string unit, bool enabled, std::uint64_t total, std::uint64_t done,
               int processes);

  /// `done` of the total are finished; `final` prints the closing line.
  void update(std::uint64_t done, bool final);
  /// The total, once known better than at the start (at least what is done).
  void set_total(std::uint64_t total) { total_ = total; }

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  std::string unit_;
  bool enabled_;
  bool terminal_;
  std::uint64_t total_;
  std::uint64_t start_done_;
  int processes_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = Clock::now();
};

}  // namespace podsim
