#include "runtime/schedule_image.hpp"

#include <algorithm>
#include <bit>

namespace podsim::runtime {

namespace {

constexpr std::uint32_t kNone = 0xFFFF'FFFFu;

/// A one-to-one correspondence built pair by pair; false when a pair contradicts it.
class Correspondence {
 public:
  explicit Correspondence(std::size_t n) : to_(n, kNone), from_(n, kNone) {}
  bool pair(std::uint32_t a, std::uint32_t b) {
    if (to_[a] == kNone && from_[b] == kNone) {
      to_[a] = b;
      from_[b] = a;
      return true;
    }
    return to_[a] == b && from_[b] == a;
  }
  std::uint32_t operator[](std::uint32_t a) const { return to_[a]; }
  /// Whether it keeps the order: a < a' ⇒ image(a) < image(a'). Ties on the same time are
  /// broken by ids, so only such a renaming leaves the order of events as it is.
  bool keeps_order() const {
    std::uint32_t last = 0;
    bool any = false;
    for (const std::uint32_t b : to_) {
      if (b == kNone) continue;
      if (any && b <= last) return false;
      last = b;
      any = true;
    }
    return true;
  }

 private:
  std::vector<std::uint32_t> to_;
  std::vector<std::uint32_t> from_;
};

bool same_link(const topology::Link& a, const topology::Link& b) {
  return std::bit_cast<std::uint64_t>(a.bandwidth_Bps) == std::bit_cast<std::uint64_t>(b.bandwidth_Bps) &&
         a.latency_ps == b.latency_ps && a.tier == b.tier && a.axis == b.axis && a.dir == b.dir;
}

/// Everything but the chips: sizes, phases, collectives, dependencies, delays.
bool same_transfers(const collectives::Schedule& a, const collectives::Schedule& b) {
  if (a.size() != b.size() || a.phases() != b.phases() || a.pipeline_pieces() != b.pipeline_pieces() ||
      a.collectives() != b.collectives() || a.mirrored() != b.mirrored() ||
      std::bit_cast<std::uint64_t>(a.total_bytes()) != std::bit_cast<std::uint64_t>(b.total_bytes()) ||
      std::bit_cast<std::uint64_t>(a.mean_bytes()) != std::bit_cast<std::uint64_t>(b.mean_bytes())) {
    return false;
  }
  for (collectives::TransferIndex i = 0; i < a.size(); ++i) {
    const collectives::PlannedTransfer& x = a.transfer(i);
    const collectives::PlannedTransfer& y = b.transfer(i);
    if (x.bytes != y.bytes || x.collective != y.collective || x.phase != y.phase ||
        a.delay_ps(i) != b.delay_ps(i) || a.arrival_delay_ps(i) != b.arrival_delay_ps(i)) {
      return false;
    }
    const auto dx = a.deps(i);
    const auto dy = b.deps(i);
    if (!std::equal(dx.begin(), dx.end(), dy.begin(), dy.end())) return false;
  }
  return true;
}

}  // namespace

std::optional<LinkRenaming> schedule_image(const topology::Topology& topo, const collectives::Schedule& from,
                                           const collectives::Schedule& to, const RouteOf& route, Periods periods) {
  const bool images = !from.link_images().empty() || !to.link_images().empty();
  if ((images && periods == Periods::kRefuse) || !same_transfers(from, to)) return std::nullopt;
  // The chips (and switches) one to one, in order, each kind onto its own.
  Correspondence vertex(topo.vertices());
  // Each hop once (mostly: a ring sends to the same neighbour step after step).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> hops;
  std::vector<std::uint32_t> last_to(topo.vertices(), kNone);
  for (collectives::TransferIndex i = 0; i < from.size(); ++i) {
    const collectives::PlannedTransfer& x = from.transfer(i);
    const collectives::PlannedTransfer& y = to.transfer(i);
    if ((x.src < topo.chips()) != (y.src < topo.chips()) || (x.dst < topo.chips()) != (y.dst < topo.chips())) {
      return std::nullopt;
    }
    if (!vertex.pair(x.src, y.src) || !vertex.pair(x.dst, y.dst)) return std::nullopt;
    if (last_to[x.src] != x.dst) {
      last_to[x.src] = x.dst;
      hops.emplace_back((std::uint64_t{x.src} << 32) | x.dst, (std::uint64_t{y.src} << 32) | y.dst);
    }
  }
  if (!vertex.keeps_order()) return std::nullopt;
  // Their routes link by link, one to one, in order, each onto one alike (a hop seen twice
  // is checked twice, to the same answer).
  return routes_image(topo, hops, route, true);
}

std::optional<LinkRenaming> routes_image(const topology::Topology& topo,
                                         const std::vector<std::pair<std::uint64_t, std::uint64_t>>& hops,
                                         const RouteOf& route, bool keep_order) {
  Correspondence link(topo.links().size());
  for (const auto& [x, y] : hops) {
    const std::vector<topology::LinkId>& a = route(x);
    const std::vector<topology::LinkId>& b = route(y);
    if (a.size() != b.size()) return std::nullopt;
    for (std::size_t h = 0; h < a.size(); ++h) {
      if (!same_link(topo.link(a[h]), topo.link(b[h])) || !link.pair(a[h], b[h])) return std::nullopt;
    }
  }
  if (keep_order && !link.keeps_order()) return std::nullopt;
  LinkRenaming out;
  for (topology::LinkId l = 0; l < topo.links().size(); ++l) {
    if (link[l] != kNone) out.emplace_back(l, link[l]);
  }
  return out;
}

std::optional<topology::LinkId> renamed_link(const LinkRenaming& renaming, topology::LinkId link) {
  const auto it = std::lower_bound(renaming.begin(), renaming.end(), std::make_pair(link, topology::LinkId{0}));
  if (it == renaming.end() || it->first != link) return std::nullopt;
  return it->second;
}

}  // namespace podsim::runtime
