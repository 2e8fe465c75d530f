#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace podsim::hardware {

/// Number formats that set compute peaks and the bytes of stored or moved values.
enum class DType { kFp32, kBf16, kFp16, kFp8, kInt8 };

/// Bytes of one value.
double dtype_bytes(DType t);
/// "fp32", "bf16", "fp16", "fp8", "int8".
std::string_view dtype_name(DType t);
std::optional<DType> dtype_from_name(std::string_view name);
std::vector<std::string> dtype_names();

}  // namespace podsim::hardware
