#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace podsim {

/// Simulated time in integer picoseconds. Integer time keeps event order exact and the
/// same on every machine; 2^63 ps is about 107 simulated days.
using SimTime = std::int64_t;

inline constexpr SimTime kPsPerSecond = 1'000'000'000'000;
inline constexpr SimTime kPsPerMicrosecond = 1'000'000;
inline constexpr SimTime kPsPerNanosecond = 1'000;
/// A time later than any event; used as "never" and "no bound".
inline constexpr SimTime kTimeInfinity = std::numeric_limits<SimTime>::max();

/// Seconds (as reported in outputs) of a picosecond time.
constexpr double to_seconds(SimTime t_ps) { return static_cast<double>(t_ps) / 1e12; }

/// Longest duration one step of a simulation may take: 2^60 ps, about 13 simulated days,
/// far beyond any training step, and far enough from 2^63 that sums of them cannot overflow.
inline constexpr SimTime kMaxStepPs = SimTime{1} << 60;

/// Nearest picosecond time of a duration in seconds. Throws SimulationError (see
/// util/error.hpp) when it is not a number or beyond ±kMaxStepPs: config refuses inputs that
/// lead there with a located message; this is the backstop that keeps the clock exact.
[[noreturn]] void throw_duration_out_of_range(double seconds);
inline SimTime from_seconds(double seconds) {
  const double ps = std::round(seconds * 1e12);
  if (!(std::fabs(ps) <= static_cast<double>(kMaxStepPs))) throw_duration_out_of_range(seconds);
  return static_cast<SimTime>(ps);
}

/// Time to push `bytes` through a pipe of `bytes_per_s`, rounded up to a whole picosecond
/// so that a transfer never finishes before its bytes could have moved. Throws InputError
/// (see util/error.hpp) beyond kMaxStepPs: such a time means a bandwidth far off.
/// Called per hop and per chunk: the arithmetic is inline, the rare error out of line.
[[noreturn]] void throw_transfer_too_long(double bytes, double bytes_per_s);
inline SimTime transfer_time_ps(double bytes, double bytes_per_s) {
  const double ps = std::ceil(bytes * 1e12 / bytes_per_s);
  if (!(ps <= static_cast<double>(kMaxStepPs))) throw_transfer_too_long(bytes, bytes_per_s);
  return static_cast<SimTime>(ps);
}

}  // namespace podsim
