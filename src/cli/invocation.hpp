#pragma once

#include <string>

namespace podsim::cli {

/// Facts about this invocation that every output records.
struct Invocation {
  std::string version;       ///< podsim's version
  std::string command_line;  ///< argv joined, each argument shell-quoted when needed
};

/// Builds the Invocation of `argv`.
Invocation make_invocation(int argc, char** argv);

}  // namespace podsim::cli
