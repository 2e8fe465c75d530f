#include "topology/device_mesh.hpp"

#include <algorithm>
#include <numeric>

#include "util/error.hpp"
#include "util/suggest.hpp"

namespace podsim::topology {

namespace {

/// Physical axes in the order a logical axis without preferences takes them: fast tiers
/// first, from x outwards. Data parallelism (and, under hybrid sharding, its replicas' axis
/// `dp_replica`, placed before it) takes the slow tiers (DCN, scale-out) first: across slices
/// and nodes only gradients should travel.
std::vector<int> default_order(const Topology& topo, const std::string& logical) {
  std::vector<int> fast;
  std::vector<int> slow;
  for (std::size_t a = 0; a < topo.axes().size(); ++a) {
    (is_slow_tier(topo.axes()[a].tier) ? slow : fast).push_back(static_cast<int>(a));
  }
  std::vector<int> order;
  if (logical == "dp" || logical == "dp_replica") {
    order = slow;
    order.insert(order.end(), fast.begin(), fast.end());
  } else {
    order = fast;
    order.insert(order.end(), slow.begin(), slow.end());
  }
  return order;
}

}  // namespace

DeviceMesh::DeviceMesh(const Topology& topo, const std::vector<LogicalAxisRequest>& requests)
    : topo_(&topo) {
  const auto& phys = topo.axes();
  std::int64_t product = 1;
  for (const auto& r : requests) {
    if (r.size < 1) throw InputError(r.name + " must be at least 1");
    product *= r.size;
  }
  if (product != topo.chips()) {
    std::string sizes;
    for (const auto& r : requests) append_joined(sizes, " × ", r.name + " " + std::to_string(r.size));
    throw InputError(sizes + " = " + std::to_string(product) + ", but " + topo.name() + " has " +
                     std::to_string(topo.chips()) + " chips");
  }
  std::vector<int> remaining(phys.size());
  std::vector<int> used(phys.size(), 1);  // inner factor already taken: the next stride
  for (std::size_t a = 0; a < phys.size(); ++a) remaining[a] = phys[a].size;

  axes_.resize(requests.size());
  std::vector<int> missing(requests.size());
  std::vector<std::vector<int>> preferred(requests.size());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    axes_[i].name = requests[i].name;
    axes_[i].size = requests[i].size;
    missing[i] = requests[i].size;
    for (const auto& name : requests[i].preferred) {
      const auto a = topo.axis_index(name);
      if (!a) {
        std::string names;
        for (const auto& ax : phys) append_joined(names, ", ", ax.name);
        throw InputError("mesh: " + requests[i].name + " names axis \"" + name + "\", but " + topo.name() +
                         " has axes " + names);
      }
      preferred[i].push_back(*a);
    }
  }
  auto take = [&](std::size_t i, int a) {
    const int factor = std::gcd(missing[i], remaining[static_cast<std::size_t>(a)]);
    if (factor <= 1) return;
    auto& comps = axes_[i].components;
    comps.push_back(MeshComponent{a, factor, used[static_cast<std::size_t>(a)]});
    used[static_cast<std::size_t>(a)] *= factor;
    remaining[static_cast<std::size_t>(a)] /= factor;
    missing[i] /= factor;
  };
  // Pass 1: preferences. Pass 2: whatever is left, in the default order.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    for (int a : preferred[i]) take(i, a);
  }
  for (std::size_t i = 0; i < requests.size(); ++i) {
    for (int a : default_order(topo, requests[i].name)) take(i, a);
    if (missing[i] != 1) {
      throw InputError("cannot place " + requests[i].name + " = " + std::to_string(requests[i].size) +
                       " on " + topo.name() + ": a factor of " + std::to_string(missing[i]) +
                       " does not fit what the physical axes have left; choose sizes that divide the axes");
    }
  }
}

int DeviceMesh::find_axis(const std::string& name) const {
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int DeviceMesh::axis_index(const std::string& name) const {
  const int i = find_axis(name);
  if (i < 0) throw SimulationError("no logical axis " + name);
  return i;
}

std::vector<int> DeviceMesh::coords(ChipId chip) const {
  const Coord c = topo_->coord(chip);
  std::vector<int> out(axes_.size(), 0);
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    int rank = 0;
    int scale = 1;
    for (const auto& comp : axes_[i].components) {
      const int digit = (c[static_cast<std::size_t>(comp.axis)] / comp.stride) % comp.size;
      rank += digit * scale;
      scale *= comp.size;
    }
    out[i] = rank;
  }
  return out;
}

ChipId DeviceMesh::chip_at(const std::vector<int>& logical) const {
  Coord c{0, 0, 0, 0};
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    int rank = logical[i];
    for (const auto& comp : axes_[i].components) {
      c[static_cast<std::size_t>(comp.axis)] += (rank % comp.size) * comp.stride;
      rank /= comp.size;
    }
  }
  return topo_->chip_at(c);
}

Group DeviceMesh::group_through(int axis, std::vector<int> logical) const {
  const auto& la = axes_[static_cast<std::size_t>(axis)];
  Group g;
  for (const auto& comp : la.components) {
    const auto& phys = topo_->axes()[static_cast<std::size_t>(comp.axis)];
    g.dims.push_back({comp.axis, comp.size, comp.size == phys.size && phys.ring});
  }
  for (int r = 0; r < la.size; ++r) {
    logical[static_cast<std::size_t>(axis)] = r;
    g.chips.push_back(chip_at(logical));
  }
  return g;
}

std::vector<Group> DeviceMesh::groups(int axis) const {
  std::vector<Group> out;
  for (ChipId chip = 0; chip < topo_->chips(); ++chip) {
    std::vector<int> logical = coords(chip);
    if (logical[static_cast<std::size_t>(axis)] != 0) continue;  // one group per rank-0 chip
    out.push_back(group_through(axis, std::move(logical)));
  }
  return out;
}

Group DeviceMesh::first_group(int axis) const { return group_through(axis, std::vector<int>(axes_.size(), 0)); }

std::string DeviceMesh::describe_axis(int axis) const {
  const LogicalAxis& la = axes_[static_cast<std::size_t>(axis)];
  if (la.components.empty()) return "-";
  std::string part;
  for (const auto& comp : la.components) {
    const auto& phys = topo_->axes()[static_cast<std::size_t>(comp.axis)];
    std::string one = phys.name;
    if (comp.size != phys.size) {
      one += '[';
      one += std::to_string(comp.size);
      if (comp.stride > 1) {
        one += " every ";
        one += std::to_string(comp.stride);
      }
      one += ']';
    }
    append_joined(part, " ", one);
  }
  return part;
}

std::string DeviceMesh::describe() const {
  std::string s;
  for (std::size_t a = 0; a < axes_.size(); ++a) {
    std::string part = axes_[a].name;
    part += ' ';
    part += std::to_string(axes_[a].size);
    part += ": ";
    part += describe_axis(static_cast<int>(a));
    append_joined(s, "; ", part);
  }
  return s;
}

}  // namespace podsim::topology
