#include "util/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "util/error.hpp"

namespace podsim::units {
namespace {

struct Quantity {
  double value;
  std::string_view unit;
};

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Splits "45 GB/s" into 45 and "GB/s". Rejects NaN, infinity and an empty number.
std::optional<Quantity> split(std::string_view text) {
  text = trim(text);
  double value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr == first || !std::isfinite(value)) return std::nullopt;
  return Quantity{value, trim(std::string_view(ptr, static_cast<std::size_t>(last - ptr)))};
}

/// Multiplier of an SI or IEC prefix at the start of `unit`; advances `unit` past it.
std::optional<double> take_prefix(std::string_view& unit) {
  static constexpr std::array<std::pair<std::string_view, double>, 16> kPrefixes{{
      {"Ki", 1024.0},
      {"Mi", 1048576.0},
      {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0},
      {"Pi", 1125899906842624.0},
      {"k", 1e3},
      {"K", 1e3},
      {"M", 1e6},
      {"G", 1e9},
      {"T", 1e12},
      {"P", 1e15},
      {"E", 1e18},
      {"m", 1e-3},
      {"u", 1e-6},
      {"\xC2\xB5", 1e-6},  // µ
      {"n", 1e-9},
  }};
  for (const auto& [prefix, factor] : kPrefixes) {
    if (unit.size() > prefix.size() && unit.substr(0, prefix.size()) == prefix) {
      unit.remove_prefix(prefix.size());
      return factor;
    }
  }
  return 1.0;
}

[[noreturn]] void fail(std::string_view what, std::string_view example, std::string_view text) {
  throw InputError("expected " + std::string(what) + " like \"" + std::string(example) +
                   "\", got \"" + std::string(text) + "\"");
}

/// Value of `text` in base units where `bases` lists the accepted base units (after the
/// prefix) and their factor. Returns nullopt when the unit is not one of them.
template <std::size_t N>
std::optional<double> parse_with(std::string_view text,
                                 const std::array<std::pair<std::string_view, double>, N>& bases,
                                 bool allow_small_prefixes, bool allow_bare) {
  auto q = split(text);
  if (!q) return std::nullopt;
  if (q->unit.empty()) {
    if (allow_bare) return q->value;
    return std::nullopt;
  }
  // 1e308 TB/s is a finite number of a unit, but not of bytes per second.
  auto finite = [&](double v) {
    if (!std::isfinite(v)) throw InputError(std::string(1, '"').append(trim(text)).append("\" is too large to represent"));
    return v;
  };
  for (const auto& [base, factor] : bases) {
    if (q->unit == base) return finite(q->value * factor);
  }
  std::string_view unit = q->unit;
  auto prefix = take_prefix(unit);
  if (!prefix) return std::nullopt;
  if (!allow_small_prefixes && *prefix < 1.0) return std::nullopt;
  for (const auto& [base, factor] : bases) {
    if (unit == base) return finite(q->value * *prefix * factor);
  }
  return std::nullopt;
}

}  // namespace

double parse_bandwidth(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 5> kBases{{
      {"B/s", 1.0},
      {"Bps", 1.0},
      {"bps", 0.125},
      {"b/s", 0.125},
      {"bit/s", 0.125},
  }};
  auto v = parse_with(text, kBases, false, false);
  if (!v) fail("a bandwidth", "45 GB/s", text);
  if (!(*v > 0)) throw InputError("bandwidth must be positive, got \"" + std::string(text) + "\"");
  return *v;
}

SimTime parse_duration(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 6> kBases{{
      {"s", 1e12},
      {"ms", 1e9},
      {"ps", 1.0},
      {"ns", 1e3},
      {"us", 1e6},
      {"\xC2\xB5s", 1e6},
  }};
  auto v = parse_with(text, kBases, false, false);
  if (!v) fail("a duration", "1 us", text);
  if (*v < 0) throw InputError("duration must not be negative, got \"" + std::string(text) + "\"");
  if (*v > 9.0e18) throw InputError("duration is too long, got \"" + std::string(text) + "\"");
  return static_cast<SimTime>(std::llround(*v));
}

double parse_span(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 7> kBases{{
      {"s", 1.0},
      {"min", 60.0},
      {"h", 3600.0},
      {"hours", 3600.0},
      {"d", 86400.0},
      {"days", 86400.0},
      {"ms", 1e-3},
  }};
  auto v = parse_with(text, kBases, false, false);
  if (!v) fail("a span of time", "10 min", text);
  if (*v < 0) throw InputError("a span of time must not be negative, got \"" + std::string(text) + "\"");
  return *v;
}

std::uint64_t parse_bytes(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 2> kBases{{
      {"B", 1.0},
      {"bytes", 1.0},
  }};
  auto v = parse_with(text, kBases, false, true);
  if (!v) fail("a size", "32 GiB", text);
  if (*v < 0) throw InputError("size must not be negative, got \"" + std::string(text) + "\"");
  if (*v >= 1.8e19) throw InputError("size is too large, got \"" + std::string(text) + "\"");
  if (std::floor(*v) != *v) {
    throw InputError("size must be a whole number of bytes, got \"" + std::string(text) + "\"");
  }
  return static_cast<std::uint64_t>(*v);
}

double parse_flop_rate(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 3> kBases{{
      {"FLOP/s", 1.0},
      {"FLOPS", 1.0},
      {"OP/s", 1.0},
  }};
  auto v = parse_with(text, kBases, false, false);
  if (!v) fail("a compute rate", "275 TFLOP/s", text);
  if (!(*v > 0)) throw InputError("compute rate must be positive, got \"" + std::string(text) + "\"");
  return *v;
}

namespace {

/// `value` in base units of `unit` with an SI (or IEC) prefix, 3 significant digits.
std::string format_with_prefix(double value, std::string_view unit, bool binary) {
  static constexpr std::array<std::pair<std::string_view, double>, 10> kDecimal{{
      {"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};
  std::string_view prefix;
  double scale = 1.0;
  if (binary) {
    static constexpr std::array<std::pair<std::string_view, double>, 6> kBinary{{
        {"", 1.0}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0}}};
    for (const auto& [p, f] : kBinary) {
      if (std::fabs(value) >= f) {
        prefix = p;
        scale = f;
      }
    }
  } else {
    for (const auto& [p, f] : kDecimal) {
      if (std::fabs(value) >= f) {
        prefix = p;
        scale = f;
      }
    }
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %.*s%.*s", value / scale, static_cast<int>(prefix.size()), prefix.data(),
                static_cast<int>(unit.size()), unit.data());
  return buf;
}

}  // namespace

std::optional<std::string> implausible(std::string_view text, double value, const PlausibleRange& range) {
  if (std::isfinite(value) && value >= range.min && value <= range.max) return std::nullopt;
  std::string out(1, '"');
  out.append(trim(text)).append("\" is ");
  if (!std::isfinite(value)) {
    out += "too large to represent";
  } else if (value < range.min) {
    out += "below " + format_with_prefix(range.min, range.unit, range.binary) + ", less than any plausible " +
           std::string(range.what);
  } else {
    out += "above " + format_with_prefix(range.max, range.unit, range.binary) + ", more than any plausible " +
           std::string(range.what);
  }
  // Keep the number as written; try each prefix, and suggest the one nearest the typical value.
  const std::string_view written = trim(text);
  const auto q = split(written);
  if (q && q->value > 0) {
    std::string number(written.substr(0, static_cast<std::size_t>(q->unit.data() - written.data())));
    while (!number.empty() && is_space(number.back())) number.pop_back();
    // Keep the unit as written (bits stay bits) when it is a spelling of the range's unit;
    // its factor is what the parser applied besides the prefix.
    std::string_view base = q->unit;
    const double written_prefix = take_prefix(base).value_or(1.0);
    const bool bits = range.unit == "B/s" && (base == "b/s" || base == "bps" || base == "bit/s");
    double base_factor = 1.0;
    if (bits) {
      base_factor = value / (q->value * written_prefix);
    } else {
      base = range.unit;
    }
    static constexpr std::array<std::pair<std::string_view, double>, 10> kDecimal{{
        {"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"E", 1e18}}};
    static constexpr std::array<std::pair<std::string_view, double>, 6> kBinary{{
        {"", 1.0}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0}}};
    std::string best;
    double best_distance = 0;
    auto consider = [&](std::string_view prefix, double factor) {
      const double v = q->value * factor * base_factor;
      if (!(v >= range.min && v <= range.max)) return;
      const double distance = std::fabs(std::log10(v / range.typical));
      if (best.empty() || distance < best_distance) {
        best = number;
        best.append(" ").append(prefix).append(base);
        best_distance = distance;
      }
    };
    if (range.binary) {
      for (const auto& [p, f] : kBinary) consider(p, f);
    } else {
      for (const auto& [p, f] : kDecimal) consider(p, f);
    }
    if (!best.empty()) out += "; did you mean \"" + best + "\"?";
  }
  return out;
}

namespace {
std::string format_scaled(double value, const char* const* names, double step, int count,
                          const char* suffix) {
  int i = 0;
  double v = value;
  while (i + 1 < count && std::fabs(v) >= step) {
    v /= step;
    ++i;
  }
  char buf[64];
  const int digits = std::fabs(v) >= 100 ? 0 : (std::fabs(v) >= 10 ? 1 : 2);
  std::snprintf(buf, sizeof buf, "%.*f %s%s", digits, v, names[i], suffix);
  return buf;
}
}  // namespace

std::string format_fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string format_bandwidth(double bytes_per_s) {
  static const char* const kNames[] = {"", "K", "M", "G", "T", "P"};
  return format_scaled(bytes_per_s, kNames, 1000.0, 6, "B/s");
}

std::string format_bytes(double bytes) {
  static const char* const kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  static const char* const kDecimal[] = {"", "k", "M", "G", "T", "P"};
  // A size that is a whole number of the binary unit it would print in reads better that way.
  double v = bytes;
  int i = 0;
  while (i < 5 && v >= 1024.0) {
    v /= 1024.0;
    ++i;
  }
  if (v == std::floor(v)) return format_scaled(bytes, kBinary, 1024.0, 6, "B");
  return format_scaled(bytes, kDecimal, 1000.0, 6, "B");
}

std::string format_seconds(double seconds) {
  char buf[64];
  const double a = std::fabs(seconds);
  if (a >= 1.0 || a == 0.0) {
    std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  } else if (a >= 1e-3) {
    std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  } else if (a >= 1e-6) {
    std::snprintf(buf, sizeof buf, "%.3f us", seconds * 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f ns", seconds * 1e9);
  }
  return buf;
}

}  // namespace podsim::units
