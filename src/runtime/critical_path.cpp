#include "runtime/critical_path.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace podsim::runtime {

std::vector<PathContributor> path_contributors(const std::vector<PathSegment>& path) {
  std::map<std::pair<TimeCategory, std::string_view>, SimTime> sums;
  for (const auto& seg : path) sums[{seg.category, seg.operation}] += seg.end_ps - seg.start_ps;
  std::vector<PathContributor> out;
  out.reserve(sums.size());
  for (const auto& [key, ps] : sums) out.push_back(PathContributor{key.first, key.second, ps});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.ps > b.ps; });
  return out;
}

std::string contributor_label(const PathContributor& c) {
  const std::string_view category = category_name(c.category);
  if (category.starts_with("compute.")) return "compute " + std::string(c.operation);
  if (category.starts_with("comm.")) return std::string(category.substr(5)) + " " + std::string(c.operation);
  return std::string(c.operation);
}

}  // namespace podsim::runtime
