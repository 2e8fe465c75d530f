#pragma once

#include <string>
#include <string_view>

namespace podsim {

/// SHA-256 of `bytes` as 64 lower-case hex digits (FIPS 180-4), the same as `sha256sum`
/// prints, so a user can check which file a result was computed from. Used to notice that
/// an input changed, not for security.
std::string sha256_hex(std::string_view bytes);

}  // namespace podsim
