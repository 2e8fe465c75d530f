// NetworkCommModel's communications that are others on other chips and links (a pipeline's
// stages on a torus): proved so from their lowerings (schedule_image.hpp) and given the other's
// measurement renamed instead of being simulated (docs/runtime.md §4, "Stages that are images
// of each other").
#include <limits>

#include "runtime/network_comm_model.hpp"
#include "runtime/schedule_image.hpp"
#include "util/byte_buffer.hpp"
#include "util/error.hpp"

namespace podsim::runtime {

bool NetworkCommModel::same_family(const Key& a, const Key& b) {
  return std::get<0>(a) == std::get<0>(b) && std::get<1>(a) == std::get<1>(b) && std::get<2>(a) == std::get<2>(b);
}

NetworkCommModel::Key NetworkCommModel::family_start(const Key& key) {
  return Key{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::numeric_limits<int>::min(),
             std::numeric_limits<int>::min()};
}

collectives::Schedule NetworkCommModel::lowered(const KeyLowering& l, bool first_alone) const {
  collectives::Schedule schedule;
  if (first_alone) {
    l.lower(schedule, std::vector<collectives::Group>(l.groups.begin(), l.groups.begin() + 1));
  } else {
    l.lower(schedule, l.groups);
  }
  return schedule;
}

const NetworkCommModel::Lowered& NetworkCommModel::lowered(const Key& key, LoweredCache& cache) {
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const KeyLowering l = lowering_of(key);
  Lowered out;
  out.groups = l.groups;
  out.period_together = l.period_together;
  out.compute_units = l.compute_units;
  if (l.groups.size() > 1) {
    // As measure() decides on the contention-aware network: the first alone where every group
    // is an image of it on links of its own. Then the groups are never lowered together.
    out.first = lowered(l, true);
    if (same_shape(l.groups)) {
      auto pairs = position_pairs(out.first, l.groups.front());
      const auto decided = stands_for_all_.find(key);  // by the work budget's estimate
      if (pairs && (decided != stands_for_all_.end() ? decided->second : disjoint_images(*pairs, l.groups))) {
        out.one_group = true;
        out.pairs = std::move(*pairs);
        return cache.emplace(key, std::move(out)).first->second;
      }
    }
  }
  out.all = lowered(l, false);
  return cache.emplace(key, std::move(out)).first->second;
}

std::optional<NetworkCommModel::Renaming> NetworkCommModel::renaming(const Key& earlier, const Key& key,
                                                                     LoweredCache& cache) {
  if (net_.fidelity == network::Fidelity::kAnalytical || !stage_images_) return std::nullopt;
  if (!same_family(earlier, key) || earlier == key) return std::nullopt;
  const Lowered& a = lowered(earlier, cache);
  const Lowered& b = lowered(key, cache);
  if (a.groups.size() != b.groups.size() || a.groups.empty() || a.period_together != b.period_together ||
      a.one_group != b.one_group) {
    return std::nullopt;
  }
  const RouteOf route_of = [this](std::uint64_t hop) -> const std::vector<topology::LinkId>& { return route(hop); };
  std::optional<LinkRenaming> links;
  if (a.one_group) {
    // What is simulated, the first group alone, must run alike; what is charged, every
    // group's traffic between the same positions along its routes, must land alike.
    // A period of its symmetry (link images) only moves its loads, which are not used here.
    if (a.pairs != b.pairs || !schedule_image(topo_, a.first, b.first, route_of, Periods::kAsSimulated)) {
      return std::nullopt;
    }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> hops;
    const auto hop = [](const collectives::Group& g, std::uint64_t positions) {
      return (std::uint64_t{g.chips[positions >> 32]} << 32) | g.chips[positions & 0xFFFF'FFFFu];
    };
    for (std::size_t g = 0; g < a.groups.size(); ++g) {
      for (const auto& phase : a.pairs) {
        for (const auto& [positions, bytes] : phase) hops.emplace_back(hop(a.groups[g], positions), hop(b.groups[g], positions));
      }
    }
    links = routes_image(topo_, hops, route_of, false);
  } else {
    links = schedule_image(topo_, a.all, b.all, route_of);
  }
  if (!links) return std::nullopt;
  // Link classes (a stage's tier, axis and direction) one to one as well.
  std::vector<std::uint32_t> to(class_count_, kNoClass);
  std::vector<std::uint32_t> from(class_count_, kNoClass);
  for (const auto& [x, y] : *links) {
    const std::uint32_t cx = link_class_[x];
    const std::uint32_t cy = link_class_[y];
    if (to[cx] == kNoClass && from[cy] == kNoClass) {
      to[cx] = cy;
      from[cy] = cx;
    } else if (to[cx] != cy || from[cy] != cx) {
      return std::nullopt;
    }
  }
  return Renaming{std::move(*links), std::move(to), b.compute_units};
}

NetworkCommModel::Result NetworkCommModel::renamed(const Result& earlier, const Renaming& how) {
  Result out;
  out.how = earlier.how | Measured::kRenamed;
  out.profile = earlier.profile;
  out.profile.compute_units = how.compute_units;
  for (auto& use : out.profile.uses) use.resource = how.classes.at(use.resource);
  std::sort(out.profile.uses.begin(), out.profile.uses.end(),
            [](const network::ResourceUse& x, const network::ResourceUse& y) { return x.resource < y.resource; });
  out.links.reserve(earlier.links.size());
  for (const auto& [link, load] : earlier.links) {
    const auto to = renamed_link(how.links, link);
    if (!to) throw SimulationError("a renamed communication loads a link off its routes");
    out.links.emplace_back(*to, load);
  }
  std::sort(out.links.begin(), out.links.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

std::optional<std::pair<const NetworkCommModel::Result*, NetworkCommModel::Renaming>>
NetworkCommModel::measured_image(const Key& key, LoweredCache& cache) {
  // The measured communications of the same axis, operation and size, in key order.
  for (auto it = cache_.lower_bound(family_start(key)); it != cache_.end() && same_family(it->first, key); ++it) {
    if (auto how = renaming(it->first, key, cache)) return std::pair{&it->second, std::move(*how)};
  }
  return std::nullopt;
}

std::optional<NetworkCommModel::Result> NetworkCommModel::image_of_measured(const Key& key) {
  LoweredCache cache;
  const auto image = measured_image(key, cache);
  return image ? std::optional(renamed(*image->first, image->second)) : std::nullopt;
}

std::vector<char> NetworkCommModel::measure_family(const std::vector<Key>& family) {
  // First which are images of which (comparing lowerings), then the rest simulated (taking
  // their lowerings), then the images renamed.
  LoweredCache lowerings;
  std::vector<std::optional<Renaming>> how(family.size());
  std::vector<const Result*> from(family.size(), nullptr);   // a measurement made before
  std::vector<std::size_t> rep(family.size());               // or one of the family's
  std::vector<std::size_t> simulated;
  for (std::size_t j = 0; j < family.size(); ++j) {
    const Key& key = family[j];
    if (auto image = measured_image(key, lowerings)) {
      from[j] = image->first;
      how[j] = std::move(image->second);
    }
    for (std::size_t i = 0; !how[j] && i < simulated.size(); ++i) {
      if ((how[j] = renaming(family[simulated[i]], key, lowerings))) rep[j] = simulated[i];
    }
    if (how[j]) {
      lowerings.erase(key);  // an image is never compared with again
    } else {
      simulated.push_back(j);
    }
  }
  std::vector<Result> out(family.size());
  for (const std::size_t j : simulated) {
    const auto it = lowerings.find(family[j]);
    out[j] = measure_key(family[j], it != lowerings.end() ? &it->second : nullptr);
  }
  ByteWriter bytes;
  for (std::size_t j = 0; j < family.size(); ++j) {
    if (how[j]) out[j] = renamed(from[j] != nullptr ? *from[j] : out[rep[j]], *how[j]);
    bytes.block(to_bytes(out[j]));
  }
  return bytes.take();
}

}  // namespace podsim::runtime
