#pragma once

// Integer arithmetic on values derived from input (degrees, batches, sizes, point counts):
// an overflow is reported, never wrapped. Signed overflow is undefined behaviour in C++, and
// a wrapped product (tp × pp = 65536 × 65536) once turned into a division by zero.

#include <cstdint>
#include <optional>

namespace podsim {

/// a × b, or nullopt when the product does not fit in int64.
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// a + b, or nullopt when the sum does not fit in int64.
inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

/// a × b, or nullopt when the product does not fit in uint64.
inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

}  // namespace podsim
