#include "collectives/link_images.hpp"

#include <algorithm>

namespace podsim::collectives {

const std::vector<topology::LinkId>& LinkImageBuilder::route(VertexId src, VertexId dst) {
  const std::uint64_t key = (std::uint64_t{src} << 32) | dst;
  auto it = routes_.find(key);
  if (it == routes_.end()) it = routes_.emplace(key, topo_.route(src, dst)).first;
  return it->second;
}

bool LinkImageBuilder::pair(VertexId src, VertexId dst, VertexId image_src, VertexId image_dst,
                            std::uint32_t repeat) {
  const std::vector<topology::LinkId> simulated = route(src, dst);  // a copy: route() may rehash
  const std::vector<topology::LinkId>& image = route(image_src, image_dst);
  if (simulated.size() != image.size()) return false;
  for (std::size_t h = 0; h < simulated.size(); ++h) {
    const topology::Link& a = topo_.link(simulated[h]);
    const topology::Link& b = topo_.link(image[h]);
    if (a.bandwidth_Bps != b.bandwidth_Bps || a.latency_ps != b.latency_ps) return false;
    const std::uint64_t key = (std::uint64_t{simulated[h]} << 32) | repeat;
    const auto [to, added] = image_.emplace(key, image[h]);
    if (!added && to->second != image[h]) return false;
    const auto [from, fresh] = preimage_.emplace(image[h], key);
    if (!fresh && from->second != key) return false;
  }
  return true;
}

std::vector<Schedule::LinkImage> LinkImageBuilder::images() const {
  std::vector<Schedule::LinkImage> out;
  out.reserve(preimage_.size());
  for (const auto& [to, key] : preimage_) out.emplace_back(static_cast<topology::LinkId>(key >> 32), to);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace podsim::collectives
