#include "hardware/dtype.hpp"

#include <array>
#include <utility>

namespace podsim::hardware {

namespace {
struct Entry {
  DType type;
  std::string_view name;
  double bytes;
};
constexpr std::array<Entry, 5> kTypes{{
    {DType::kFp32, "fp32", 4},
    {DType::kBf16, "bf16", 2},
    {DType::kFp16, "fp16", 2},
    {DType::kFp8, "fp8", 1},
    {DType::kInt8, "int8", 1},
}};
}  // namespace

double dtype_bytes(DType t) {
  for (const auto& e : kTypes) {
    if (e.type == t) return e.bytes;
  }
  return 0;
}

std::string_view dtype_name(DType t) {
  for (const auto& e : kTypes) {
    if (e.type == t) return e.name;
  }
  return "?";
}

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& e : kTypes) {
    if (e.name == name) return e.type;
  }
  return std::nullopt;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (const auto& e : kTypes) out.emplace_back(e.name);
  return out;
}

}  // namespace podsim::hardware
