#include "collectives/link_images.hpp"

#include <algorithm>
#include <tuple>

namespace podsim::collectives {

bool alike_routes(const topology::Topology& topo, VertexId src, VertexId dst, VertexId other_src, VertexId other_dst) {
  const auto a = topo.route(src, dst);
  const auto b = topo.route(other_src, other_dst);
  if (a.size() != b.size()) return false;
  for (std::size_t h = 0; h < a.size(); ++h) {
    if (topo.link(a[h]).bandwidth_Bps != topo.link(b[h]).bandwidth_Bps ||
        topo.link(a[h]).latency_ps != topo.link(b[h]).latency_ps) {
      return false;
    }
  }
  return true;
}

bool LinkImageBuilder::pair(VertexId src, VertexId dst, VertexId image_src, VertexId image_dst,
                            std::uint32_t repeat) {
  const std::uint64_t key = (std::uint64_t{src} << 32) | dst;
  auto it = simulated_routes_.find(key);
  if (it == simulated_routes_.end()) it = simulated_routes_.emplace(key, topo_.route(src, dst)).first;
  const std::vector<topology::LinkId>& simulated = it->second;
  hops_.emplace_back(key, (std::uint64_t{image_src} << 32) | image_dst);
  // The image's route, walked link by link beside the simulated one.
  VertexId at = image_src;
  for (const topology::LinkId s : simulated) {
    if (at == image_dst) return false;
    const topology::LinkId i = topo_.next_link(at, image_dst);
    const topology::Link& a = topo_.link(s);
    const topology::Link& b = topo_.link(i);
    if (a.bandwidth_Bps != b.bandwidth_Bps || a.latency_ps != b.latency_ps) return false;
    pairings_.push_back({s, repeat, i});
    at = b.dst;
  }
  return at == image_dst;
}

std::optional<Schedule::Images> LinkImageBuilder::images() {
  auto by_source = [](const Pairing& a, const Pairing& b) {
    return std::tie(a.simulated, a.repeat, a.image) < std::tie(b.simulated, b.repeat, b.image);
  };
  std::sort(pairings_.begin(), pairings_.end(), by_source);
  pairings_.erase(std::unique(pairings_.begin(), pairings_.end(),
                              [](const Pairing& a, const Pairing& b) {
                                return a.simulated == b.simulated && a.repeat == b.repeat && a.image == b.image;
                              }),
                  pairings_.end());
  for (std::size_t k = 1; k < pairings_.size(); ++k) {
    const Pairing& a = pairings_[k - 1];
    const Pairing& b = pairings_[k];
    if (a.simulated == b.simulated && a.repeat == b.repeat) return std::nullopt;  // one link, two images
  }
  std::vector<Schedule::LinkImage> out;
  out.reserve(pairings_.size());
  for (const Pairing& p : pairings_) out.emplace_back(p.simulated, p.image);
  std::sort(out.begin(), out.end(), [](const Schedule::LinkImage& a, const Schedule::LinkImage& b) {
    return std::tie(a.second, a.first) < std::tie(b.second, b.first);
  });
  for (std::size_t k = 1; k < out.size(); ++k) {
    if (out[k].second == out[k - 1].second) return std::nullopt;  // a link stood for twice
  }
  std::sort(out.begin(), out.end());
  std::sort(hops_.begin(), hops_.end());
  hops_.erase(std::unique(hops_.begin(), hops_.end()), hops_.end());
  return Schedule::Images{std::move(out), hops_};
}

}  // namespace podsim::collectives
