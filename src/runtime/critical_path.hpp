#pragma once

// What the critical path of a step is made of, summed by kind: the answer to "what limits
// this step?" (docs/runtime.md, "Critical path").

#include <string>
#include <string_view>
#include <vector>

#include "runtime/step_recorder.hpp"

namespace podsim::runtime {

/// Time on the critical path spent in one category and operation ("comm.dp" "all-reduce").
struct PathContributor {
  TimeCategory category = TimeCategory::kIdle;
  std::string_view operation;
  SimTime ps = 0;
};

/// The path's time summed per (category, operation), largest first (ties in category, then
/// operation order, so the order is reproducible). Shortening every piece of one
/// contributor by x shortens the step by at most x.
std::vector<PathContributor> path_contributors(const std::vector<PathSegment>& path);

/// "compute backward", "tp all-gather", "pp send", "host input": a contributor for people.
std::string contributor_label(const PathContributor& c);

}  // namespace podsim::runtime
