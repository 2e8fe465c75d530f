#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace podsim::config {

/// One file a command read: where it is, how messages name it, and its SHA-256 (what it
/// held when it was read). Outputs must never overwrite one of these, and a resumed sweep
/// refuses to continue when one has changed.
struct InputRecord {
  std::filesystem::path path;  ///< as opened (relative to the working directory, or absolute)
  std::string shown;           ///< as messages name it
  std::string sha256;          ///< hex digest of the bytes read (empty unless asked for)
};

/// Appends the records of `more` that `into` does not hold yet (same path), keeping order.
void merge_inputs(std::vector<InputRecord>& into, const std::vector<InputRecord>& more);

/// Each input as (its name in messages, the SHA-256 of its bytes), in order: the digest it
/// was read with, or of the file read again when it was read without one. What the
/// processes of a run compare before they work (partition/agreement.hpp).
std::vector<std::pair<std::string, std::string>> content_digests(const std::vector<InputRecord>& inputs);

}  // namespace podsim::config
