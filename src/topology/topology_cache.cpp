#include "topology/topology_cache.hpp"

#include <algorithm>

namespace podsim::topology {

const Topology& TopologyCache::get(const TopologySpec& spec) {
  const auto it = std::find_if(kept_.begin(), kept_.end(), [&](const auto& k) { return k.first == spec; });
  if (it != kept_.end()) {
    std::rotate(it, it + 1, kept_.end());  // now the most recent
    return *kept_.back().second;
  }
  auto built = std::make_unique<const Topology>(spec);  // a spec that fails is not kept
  if (kept_.size() == kKept) kept_.erase(kept_.begin());
  kept_.emplace_back(spec, std::move(built));
  return *kept_.back().second;
}

}  // namespace podsim::topology
