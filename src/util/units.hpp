#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/sim_time.hpp"

// Unit strings are parsed once, at the config boundary; code below it carries plain
// numbers whose names say their unit (latency_ps, size_bytes, bandwidth_Bps).
//
// Accepted forms: a number (decimal, optional exponent), optional spaces, a unit.
// Decimal prefixes k/K, M, G, T, P mean 1e3.., binary Ki, Mi, Gi, Ti, Pi mean 2^10...
// "B" is a byte and "b"/"bit" a bit: 400 Gbps = 400 Gb/s = 50 GB/s.
// Every parser throws InputError with a message like
//   expected a bandwidth like "45 GB/s", got "fast"
// which config prefixes with file, line and key.

namespace podsim::units {

/// Bytes per second from "45 GB/s", "400 Gbps", "1.2 TB/s", "12.5 GiB/s". Must be > 0.
double parse_bandwidth(std::string_view text);

/// Picoseconds from "1 us", "250 ns", "1.5 µs", "2 ms", "0 s". Must be >= 0.
SimTime parse_duration(std::string_view text);

/// Seconds, for spans of a training run rather than of a step: "90 s", "10 min", "3 h",
/// "2.5 d" (also "hours", "days"). Must be >= 0.
double parse_span(std::string_view text);

/// Bytes from "32 GiB", "1 KiB", "4096", "16 GB", "512 B". Must be a whole number >= 0.
std::uint64_t parse_bytes(std::string_view text);

/// FLOP per second from "275 TFLOP/s", "1.97e14 FLOP/s", "989 TFLOPS". Must be > 0.
double parse_flop_rate(std::string_view text);

/// Where a quantity of one kind is plausible, for catching a forgotten or wrong unit prefix
/// ("275 FLOP/s" for 275 TFLOP/s) at the config boundary, where it can be located.
struct PlausibleRange {
  double min;                ///< smallest plausible value, base units
  double max;                ///< largest plausible value, base units
  double typical;            ///< a typical value; the suggestion lands nearest to it
  std::string_view unit;     ///< base unit written after the prefix: "FLOP/s", "B/s", "B", "s"
  std::string_view what;     ///< "a chip", "a link", …: what the value describes
  bool binary = false;       ///< suggest Ki/Mi/Gi… instead of k/M/G…
};

/// nullopt when `value` (parsed from `text`) lies in `range`; else a sentence saying so,
/// with a "did you mean" that keeps the number and changes the prefix when one fits:
///   275 FLOP/s is slower than any plausible chip (below 1 GFLOP/s); did you mean "275 TFLOP/s"?
std::optional<std::string> implausible(std::string_view text, double value, const PlausibleRange& range);

/// `v` with `digits` digits after the point ("%.*f").
std::string format_fixed(double v, int digits);

/// "45 GB/s"-style rendering of a bandwidth in bytes per second, 3 significant digits.
std::string format_bandwidth(double bytes_per_s);
/// "1.00 GiB"-style rendering of a size; exact binary sizes print with binary prefixes.
std::string format_bytes(double bytes);
/// "12.3 us"-style rendering of a duration in seconds.
std::string format_seconds(double seconds);

}  // namespace podsim::units
