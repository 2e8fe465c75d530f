#include "network/link_sharing.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

namespace podsim::network {

namespace {
// Resources whose fair share is within this relative distance of the bottleneck's are
// saturated together (sums of fractions are not exact in floating point).
constexpr double kTie = 1e-12;
}  // namespace

LinkSharing::LinkSharing(std::size_t resources) : resources_(resources), capacity_(resources, 0), load_(resources, 0) {}

void LinkSharing::touch(std::uint32_t resource) {
  if (!resources_[resource].dirty) {
    resources_[resource].dirty = true;
    dirty_.push_back(resource);
  }
}

void LinkSharing::append_state(std::vector<std::uint64_t>& out) const {
  out.push_back(activities_.size());
  for (const Activity& a : activities_) {
    out.push_back(a.alive ? 1 : 0);
    if (!a.alive) continue;  // what a reused id had is overwritten by add()
    out.push_back(std::bit_cast<std::uint64_t>(a.rate));
    out.push_back(a.uses.size());
    for (const ResourceUse& u : a.uses) {
      out.push_back(u.resource);
      out.push_back(std::bit_cast<std::uint64_t>(u.fraction));
    }
  }
  for (const Resource& r : resources_) {
    out.push_back(r.users.size() << 1 | (r.dirty ? 1 : 0));
    out.insert(out.end(), r.users.begin(), r.users.end());
  }
  const std::vector<ActivityId> free = [this] {  // a heap: only the set decides what add() takes
    std::vector<ActivityId> ids = free_ids_;
    std::sort(ids.begin(), ids.end());
    return ids;
  }();
  for (const auto* ids : {&free, &dirty_, &pending_}) {
    out.push_back(ids->size());
    out.insert(out.end(), ids->begin(), ids->end());
  }
  out.push_back(active_);
}

LinkSharing::ActivityId LinkSharing::add(const std::vector<ResourceUse>& uses) {
  ActivityId id;
  if (!free_ids_.empty()) {
    // The smallest free id: which ids are alive then depends on how many activities there are,
    // not on the order they ended in, so a run whose activities repeat repeats its ids too
    // (runtime/steady_state.hpp compares them).
    std::pop_heap(free_ids_.begin(), free_ids_.end(), std::greater<>());
    id = free_ids_.back();
    free_ids_.pop_back();
  } else {
    id = static_cast<ActivityId>(activities_.size());
    activities_.emplace_back();
  }
  Activity& a = activities_[id];
  a.uses.clear();
  for (const ResourceUse& u : uses) {
    if (u.fraction > 0) a.uses.push_back({u.resource, std::min(1.0, u.fraction)});
  }
  a.rate = 0;
  a.alive = true;
  ++active_;
  bool alone = true;
  for (const ResourceUse& u : a.uses) {
    resources_[u.resource].users.push_back(id);
    alone = alone && resources_[u.resource].users.size() == 1;
  }
  if (alone) {
    // Nobody else on its links (the common case): full speed, nothing to recompute.
    pending_.push_back(id);
  } else {
    for (const ResourceUse& u : a.uses) touch(u.resource);
  }
  return id;
}

void LinkSharing::remove(ActivityId id) {
  Activity& a = activities_[id];
  for (const ResourceUse& u : a.uses) {
    auto& users = resources_[u.resource].users;
    users.erase(std::find(users.begin(), users.end(), id));  // order kept: results stay deterministic
    if (!users.empty()) touch(u.resource);  // the others may speed up
  }
  a.alive = false;
  a.uses.clear();
  --active_;
  free_ids_.push_back(id);
  std::push_heap(free_ids_.begin(), free_ids_.end(), std::greater<>());
}

const std::vector<LinkSharing::ActivityId>& LinkSharing::solve() {
  changed_.clear();
  for (ActivityId id : pending_) {
    if (activities_[id].alive && activities_[id].rate != 1.0) {
      activities_[id].rate = 1.0;
      changed_.push_back(id);
    }
  }
  pending_.clear();
  if (dirty_.empty()) {
    std::sort(changed_.begin(), changed_.end());
    return changed_;
  }
  ++generation_;
  // The component: every activity and resource reachable from a changed resource.
  component_.clear();
  component_resources_.clear();
  std::vector<std::uint32_t>& frontier = frontier_;
  frontier.clear();
  for (std::uint32_t r : dirty_) {
    resources_[r].dirty = false;
    if (resources_[r].mark != generation_) {
      resources_[r].mark = generation_;
      frontier.push_back(r);
    }
  }
  dirty_.clear();
  while (!frontier.empty()) {
    const std::uint32_t r = frontier.back();
    frontier.pop_back();
    component_resources_.push_back(r);
    for (ActivityId id : resources_[r].users) {
      Activity& a = activities_[id];
      if (a.mark == generation_) continue;
      a.mark = generation_;
      component_.push_back(id);
      for (const ResourceUse& u : a.uses) {
        if (resources_[u.resource].mark != generation_) {
          resources_[u.resource].mark = generation_;
          frontier.push_back(u.resource);
        }
      }
    }
  }
  if (component_.size() == 1) {
    // Alone on its links (the common case): full speed.
    Activity& a = activities_[component_[0]];
    if (a.rate != 1.0) {
      a.rate = 1.0;
      changed_.push_back(component_[0]);
    }
    std::sort(changed_.begin(), changed_.end());
    return changed_;
  }
  std::sort(component_.begin(), component_.end());
  std::sort(component_resources_.begin(), component_resources_.end());

  // Progressive filling over the component.
  for (std::uint32_t r : component_resources_) capacity_[r] = 1.0;
  std::vector<ActivityId>& unfixed = unfixed_;
  unfixed = component_;
  std::vector<double>& old_rate = old_rate_;
  old_rate.resize(unfixed.size());
  for (std::size_t i = 0; i < unfixed.size(); ++i) old_rate[i] = activities_[unfixed[i]].rate;
  while (!unfixed.empty()) {
    for (std::uint32_t r : component_resources_) load_[r] = 0;
    for (ActivityId id : unfixed) {
      for (const ResourceUse& u : activities_[id].uses) load_[u.resource] += u.fraction;
    }
    double level = 1.0;  // no activity runs faster than alone
    for (std::uint32_t r : component_resources_) {
      if (load_[r] > 0) level = std::min(level, std::max(0.0, capacity_[r]) / load_[r]);
    }
    level = std::max(level, 1e-12);  // rounding must not stall an activity forever
    // Fix the activities on every saturated resource (or all of them at full speed), then
    // take what they use from the resources' capacity.
    std::vector<ActivityId>& still = still_;
    std::vector<ActivityId>& fixed = fixed_;
    still.clear();
    fixed.clear();
    for (ActivityId id : unfixed) {
      bool bottlenecked = level >= 1.0;
      for (const ResourceUse& u : activities_[id].uses) {
        const double share = std::max(0.0, capacity_[u.resource]) / load_[u.resource];
        bottlenecked = bottlenecked || share <= level * (1 + kTie);
      }
      (bottlenecked ? fixed : still).push_back(id);
    }
    for (ActivityId id : fixed) {
      activities_[id].rate = level;
      for (const ResourceUse& u : activities_[id].uses) capacity_[u.resource] -= u.fraction * level;
    }
    unfixed.swap(still);
  }
  for (std::size_t i = 0; i < component_.size(); ++i) {
    if (activities_[component_[i]].rate != old_rate[i]) changed_.push_back(component_[i]);
  }
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  return changed_;
}

double LinkSharing::load(std::uint32_t r) const {
  double sum = 0;
  for (const ActivityId a : resources_[r].users) {
    for (const auto& u : activities_[a].uses) {
      if (u.resource == r) sum += std::min(u.fraction, 1.0) * activities_[a].rate;
    }
  }
  return sum;
}

}  // namespace podsim::network
