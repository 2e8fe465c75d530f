#pragma once

// Fluid sharing of links among communications that are in flight at the same time.
//
// Model (SimGrid's flow model, src/kernel/lmm/maxmin.cpp, without its bounds and priorities):
// every communication in flight is an *activity* that, running alone at full speed (rate 1),
// occupies a fraction f(a, r) ∈ (0, 1] of each *resource* r it uses (a link, or a class of
// equally loaded links). Resources have capacity 1. Rates are max-min fair: progressive
// filling raises every unfixed activity's rate together until a resource is full or the rate
// reaches 1; the activities on that resource are fixed there; repeat.
//
// Invariant: Σ_a f(a, r) · rate(a) ≤ 1 for every resource, always — a link is never busier
// than 100 %. An activity alone runs at rate 1 (its own busiest resource has f = 1), so an
// uncontended communication takes exactly the time the network model gave it; two that load
// the same resource fully each run at 1/2, so together they take the sum of their times.
//
// State is incremental: add() and remove() mark what changed; solve() recomputes only the
// activities connected to a change through shared resources and reports whose rate moved.

#include <cstdint>
#include <vector>

namespace podsim::network {

/// How much of one resource an activity occupies at full speed.
struct ResourceUse {
  std::uint32_t resource = 0;
  double fraction = 0;  ///< (0, 1]
};

class LinkSharing {
 public:
  using ActivityId = std::uint32_t;

  /// Resources are numbered 0 … resources − 1.
  explicit LinkSharing(std::size_t resources);

  /// A new activity (rate 0 until the next solve()). Uses with fraction ≤ 0 are ignored;
  /// fractions above 1 are taken as 1. Ids of removed activities are reused, the smallest first.
  ActivityId add(const std::vector<ResourceUse>& uses);
  /// The activity ends; its share goes to the others at the next solve().
  void remove(ActivityId id);

  /// Max-min fair rates for every activity connected to a change since the last call.
  /// Returns the activities whose rate changed (new ones included), in increasing id order.
  const std::vector<ActivityId>& solve();

  /// Current rate in (0, 1] of an active activity (1 when it uses no resource).
  double rate(ActivityId id) const { return activities_[id].rate; }
  std::size_t active() const { return active_; }
  /// Share of resource `r` in use at the current rates: Σ fraction × rate over its users
  /// (0 … 1 after solve()).
  double load(std::uint32_t r) const;
  /// Appends everything later solves depend on (activities, their uses and rates, each
  /// resource's users in order, ids to reuse), not the solver's scratch: two sharings whose
  /// states append equal words share the same way from then on.
  void append_state(std::vector<std::uint64_t>& out) const;

 private:
  struct Activity {
    std::vector<ResourceUse> uses;
    double rate = 0;
    bool alive = false;
    std::uint32_t mark = 0;  // solve() generation that visited it
  };
  struct Resource {
    std::vector<ActivityId> users;  // alive activities using it
    bool dirty = false;
    std::uint32_t mark = 0;
  };

  void touch(std::uint32_t resource);

  std::vector<Activity> activities_;
  std::vector<Resource> resources_;
  std::vector<ActivityId> free_ids_;  // a min-heap
  std::vector<std::uint32_t> dirty_;
  std::vector<ActivityId> pending_;  // added without resources since the last solve
  std::vector<ActivityId> changed_;
  std::size_t active_ = 0;
  std::uint32_t generation_ = 0;
  // Scratch of solve(), kept to avoid reallocating.
  std::vector<ActivityId> component_;
  std::vector<std::uint32_t> component_resources_;
  std::vector<double> capacity_;
  std::vector<double> load_;
  std::vector<std::uint32_t> frontier_;
  std::vector<ActivityId> unfixed_, still_, fixed_;
  std::vector<double> old_rate_;
};

}  // namespace podsim::network
