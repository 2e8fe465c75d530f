#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "collectives/group.hpp"
#include "collectives/schedule.hpp"
#include "collectives/schedule_runner.hpp"
#include "network/network_model.hpp"
#include "runtime/comm_memo.hpp"
#include "runtime/comm_model.hpp"
#include "runtime/schedule_image.hpp"
#include "topology/device_mesh.hpp"

namespace podsim::runtime {

/// Communication of a step measured on the network model of a scenario.
///
/// Every distinct communication (axis, operation, size, stage) is lowered with the
/// collectives module — every group of that parallelism axis in that pipeline stage at
/// once, as a sharded program runs them — and measured once on the network; every
/// occurrence reuses the measurement. The measurement is a CommProfile: the busy time of the
/// busiest link (the bandwidth part), the rest of its time alone (the latency part), and how
/// much of each *link class* it loads. At run time the executor shares link classes among
/// all communications in flight (network::LinkSharing), so overlapping axes, streams and
/// stages slow each other and no link is ever busier than 100 %.
///
/// A link class is the set of directed links of one tier, topology axis and direction whose
/// chip end belongs to one pipeline stage (links between two switches form a class shared
/// by every stage). Under the placement's symmetry the links of a class carry the same load;
/// a class's fraction is that of its busiest link, so where loads are uneven the sharing errs
/// towards contention.
///
/// Analytical network: the α-β time of one group gives the latency part (groups cannot
/// delay each other inside the model); the load of every group on every link gives the
/// bandwidth part, so groups of one axis that cross the same links (dp x[2 every 8] routes
/// through eight others' links) take the time that link needs. Contention-aware network:
/// every group is simulated together, messages contending link by link; or, where the groups
/// are images of the first on links of their own (disjoint_images), the first alone stands
/// for them all: exactly, as nothing else crosses its links.
class NetworkCommModel final : public CommModel {
 public:
  /// `topo` should already carry the hardware's link efficiencies. Contention-aware runs
  /// go through `executor` (which may split them over MPI processes).
  NetworkCommModel(const topology::Topology& topo, const topology::DeviceMesh& mesh,
                   const network::NetworkSpec& net, collectives::ScheduleExecutor& executor);

  const CommProfile& collective(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage,
                                int peer) override;
  const CommProfile& send(int from, int to, double bytes) override;
  /// Measures up front every communication `plan` will ask for (contention-aware network
  /// only), as independent pieces the executor may spread over MPI processes; the step then
  /// finds them measured. The results are the same as measuring them as they come.
  void prefetch(const parallelism::StepPlan& plan);
  /// Whether the contention-aware network will time this collective on its first group alone
  /// (its groups are images of it on links of their own, disjoint_images): checked on the first
  /// group's lowering when that is within `budget` transfers (collectives::estimate_cost).
  bool timed_by_one_group(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage,
                          double budget);
  /// collective(axis, op, bytes, stage, -1).alone_ps(). On the analytical network a stage
  /// whose groups, with stage 0's, are all images of stage 0's first group on links of their
  /// own (same_shape, disjoint_images: a pipeline's stages on a torus) takes stage 0's,
  /// measured once: each group's time and load are then the first's (the planner's bounds ask
  /// this of every stage).
  SimTime alone_ps(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage);
  /// Counts the occurrences (link_loads) without measuring anything again.
  void repeat_collective(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage, int peer,
                         std::uint64_t times) override;
  void repeat_send(int from, int to, double bytes, std::uint64_t times) override;
  int group_size(parallelism::CommAxis axis) const override;
  std::size_t resources() const override { return class_count_; }
  std::string resource_label(std::size_t r) const override { return class_label_[r]; }

  /// Per directed link: load summed over every communication of the step so far.
  std::vector<LinkLoad> link_loads() const;
  /// Distinct communications of the step so far (measured here, by another process, or
  /// remembered).
  std::size_t simulated() const { return cache_.size(); }
  /// How the contention-aware network simulated them (counted over the step's communications).
  struct ContentionCounts {
    std::size_t flows = 0;   ///< runs as flows (network.contention)
    std::size_t chunks = 0;  ///< runs as chunks
    /// Communications simulated on one group standing for every group of its axis (images of
    /// it on links of their own).
    std::size_t one_group = 0;
    /// Communications simulated as one period of their symmetry (a torus's first lines, a
    /// multislice's first two slices, a ring of two; docs/collectives.md).
    std::size_t periods = 0;
    /// Communications not simulated: an earlier one's measurement renamed, being it on other
    /// chips and links (a pipeline stage's collective, another stage's on a torus).
    std::size_t renamed = 0;
  };
  ContentionCounts contention_counts() const;
  /// Forgets how often each communication occurred (the step is run again); keeps what was
  /// measured.
  void reset_uses();
  /// Whether a communication that is an earlier one on other chips and links (a pipeline's
  /// stages on a torus; runtime/schedule_image.hpp) takes that one's measurement, renamed,
  /// instead of being simulated (default true; tests compare both).
  void measure_stage_images(bool on) { stage_images_ = on; }
  /// Takes measurements from `memo` and leaves its own there; `context` (CommMemo::context)
  /// must describe this model's topology, network settings and mesh.
  void share_measurements(CommMemo& memo, std::uint32_t context) {
    memo_ = &memo;
    memo_context_ = context;
  }

 private:
  struct Result : Measured {
    std::uint64_t uses = 0;  // occurrences in the step
  };
  using Key = CommMemo::Key;
  /// Link loads of a communication and its bandwidth part: the sum over its sequential
  /// phases of each phase's busiest link (a single phase: the busiest link).
  struct Loads {
    collectives::ScheduleResult links;
    SimTime bandwidth_ps = 0;
    /// Phased communications: per link class, the largest share of a phase's busiest link
    /// its busiest link carries in any phase (1 on every phase's bottleneck). Empty: one
    /// phase, the share is the class's busy time over bandwidth_ps.
    std::vector<double> class_share;
  };
  /// Bytes between (source << 32 | destination) pairs, per phase, in sorted order.
  using PhasePairs = std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>>;
  /// Each phase's pairs in sorted order (a hash map's order would make sums depend on it).
  static PhasePairs sorted(std::vector<std::unordered_map<std::uint64_t, std::uint64_t>>&& bytes_of);

  /// The profile of communication `key`, measured by `measured()` on first use; counts
  /// `times` occurrences.
  template <typename Measure>
  const CommProfile& use(const Key& key, Measure&& measured, std::uint64_t times = 1) {
    auto it = cache_.find(key);
    if (it == cache_.end()) {
      const Measured* known = memo_ != nullptr ? memo_->find(memo_context_, key) : nullptr;
      if (known != nullptr) {
        it = cache_.emplace(key, Result{*known, 0}).first;
      } else {
        it = cache_.emplace(key, measured()).first;
        if (memo_ != nullptr) memo_->add(memo_context_, key, it->second);
      }
    }
    it->second.uses += times;
    return it->second.profile;
  }
  /// A communication lowered as measure() will simulate it, kept while its images are looked
  /// for: its first group alone standing for every group (disjoint images), or every group
  /// together.
  struct Lowered {
    std::vector<collectives::Group> groups;  ///< its groups (one_group: whose loads it charges)
    bool period_together = false;
    int compute_units = 0;
    bool one_group = false;                   ///< the first alone stands for every group
    PhasePairs pairs;                         ///< one_group: the first's traffic between positions
    collectives::Schedule all;                ///< not one_group: every group together
    collectives::Schedule first;              ///< more than one group: the first alone
  };
  /// Profile of `groups` running a communication that `lower(schedule, some_groups)` lowers
  /// (as a symmetric period where it has one, collectives::Symmetry): all of them simulated
  /// together (contention), or one group simulated and every group's load charged along its
  /// routes (analytical). `period_together`: several groups lowered together may be one
  /// symmetric period (collectives::period_spans_groups). `known`: lowered already (lowered()),
  /// with whether the first group alone stands for all decided there.
  template <typename Lower>
  Result measure(const std::vector<collectives::Group>& groups, Lower&& lower, bool period_together = false,
                 const Lowered* known = nullptr);
  /// The key of a collective as the step asks for it; nothing when it moves nothing (no
  /// bytes, a group of one).
  std::optional<Key> key_of(parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage,
                            int peer) const;
  /// The key of a pipeline message as send() asks for it.
  static Key send_key(int from, int to, double bytes);
  /// How communication `key` is lowered: on which groups, by what, and what measure() needs.
  struct KeyLowering {
    std::vector<collectives::Group> groups;
    std::function<void(collectives::Schedule&, const std::vector<collectives::Group>&)> lower;
    bool period_together = false;  ///< collectives::period_spans_groups
    int compute_units = 0;         ///< CommProfile::compute_units
  };
  /// A collective of its axis's groups in its stage, a tied-embedding sum (kOther, stages lo
  /// and hi) or a pipeline message (kPp, from, to).
  KeyLowering lowering_of(const Key& key);
  /// `l` lowered on every group, or on the first alone.
  collectives::Schedule lowered(const KeyLowering& l, bool first_alone) const;
  using LoweredCache = std::map<Key, Lowered>;
  /// Measures communication `key`: an earlier one's measurement renamed where it is that one
  /// on other chips (image_of_measured), else lowered and simulated. `done`: its lowerings,
  /// made already (and known to be no image), which the simulation takes.
  Result measure_key(const Key& key, Lowered* done = nullptr);
  /// How communication `key` is communication `earlier` renamed (schedule_image): the links
  /// of its routes, its link classes, and its own compute units.
  struct Renaming {
    LinkRenaming links;
    std::vector<std::uint32_t> classes;  ///< per class of `earlier`: the class it becomes (kNoClass: none)
    int compute_units = 0;
  };
  static constexpr std::uint32_t kNoClass = 0xFFFF'FFFFu;
  const Lowered& lowered(const Key& key, LoweredCache& cache);
  /// Whether `key` is `earlier` (same axis, operation and size) on other chips and links,
  /// compared as measure() will simulate them (lowered(): the first groups with every group's
  /// charged routes, or every group together).
  /// Never on the analytical network (cheap to measure) or with stage images turned off.
  std::optional<Renaming> renaming(const Key& earlier, const Key& key, LoweredCache& cache);
  /// `earlier`'s measurement as `key`'s: its links and classes renamed, sorted as measuring
  /// `key` would have left them.
  static Result renamed(const Result& earlier, const Renaming& how);
  /// Whether two communications are of one family: the same axis, operation and size.
  static bool same_family(const Key& a, const Key& b);
  /// The first key of `key`'s family in key order (for lower_bound).
  static Key family_start(const Key& key);
  /// True when every group has the first one's shape (dims): each is then lowered the same
  /// way on its own chips.
  static bool same_shape(const std::vector<collectives::Group>& groups);
  /// A communication already measured that `key` is an image of, with how it is renamed.
  std::optional<std::pair<const Result*, Renaming>> measured_image(const Key& key, LoweredCache& cache);
  /// The measurement of a communication already measured that `key` is an image of, renamed.
  std::optional<Result> image_of_measured(const Key& key);
  /// Measures a family of communications (one axis, operation and size; prefetch): each an
  /// image of one measured before or of an earlier one of the family, renamed, or simulated.
  /// Their Measured bytes, each a ByteWriter block.
  std::vector<char> measure_family(const std::vector<Key>& family);
  /// Loads of every group of `groups` (all shaped like the first) from the first group's
  /// schedule `first`, replayed on each group's chips.
  std::optional<Loads> mapped_loads(const collectives::Schedule& first,
                                    const std::vector<collectives::Group>& groups) const;
  /// `first`'s bytes (its whole's, where it is a period) between positions of `group` (its
  /// chips), per phase; nothing when a transfer leaves the group's chips.
  static std::optional<PhasePairs> position_pairs(const collectives::Schedule& first, const collectives::Group& group);
  /// True when every group's routes for `pairs` are hop by hop like the first group's (same
  /// bandwidths and latencies) and no two groups share a link.
  bool disjoint_images(const PhasePairs& pairs, const std::vector<collectives::Group>& groups) const;
  Result profile_of(const Loads& all, SimTime own_time, SimTime own_bandwidth) const;
  /// Measured::kFlows or kChunks: how the contention-aware network runs `schedule`.
  std::uint8_t how_run(const collectives::Schedule& schedule) const;
  collectives::ScheduleResult run(const collectives::Schedule& schedule);
  /// The link loads the analytical network gives `schedule`, without running it.
  Loads route_loads(const collectives::Schedule& schedule) const;
  /// The loads of `schedule` as `run` gave them, with its bandwidth part: per phase (from its
  /// routes) when its parts run one after another, else its busiest link.
  Loads loads_of(const collectives::Schedule& schedule, collectives::ScheduleResult&& run) const;
  /// Charges `phases`' transfers along their routes: as given (`groups` null), or between
  /// member positions replayed on every group's chips. `pieces`: the schedule's
  /// Schedule::pipeline_pieces (> 1: its phases are a pipeline's, which overlap).
  Loads charge(const PhasePairs& phases, const std::vector<collectives::Group>* groups, int pieces) const;
  /// `schedule`'s bytes per hop (source << 32 | destination), per phase: where it is a
  /// symmetric period, the whole collective's, every hop summed onto the hops it stands for.
  static PhasePairs whole_pairs(const collectives::Schedule& schedule);
  /// The links from `pair`'s source to its destination (source << 32 | destination), walked
  /// once per step: many communications use the same neighbours.
  const std::vector<topology::LinkId>& route(std::uint64_t pair) const;
  std::vector<collectives::Group> axis_groups(int logical_axis, int stage);
  /// Whether every group of `stage` and of stage 0 on `axis` is an image of stage 0's first
  /// group on links of its own, for collective `spec` (alone_ps).
  bool images_of_stage_zero(parallelism::CommAxis axis, const collectives::CollectiveSpec& spec, int stage);
  /// Whether `groups` are all shaped alike and, for collective `spec` lowered on the first
  /// alone, every one is an image of it on links of its own (disjoint_images): the first, run
  /// alone, then times them all.
  bool first_stands_for_all(const collectives::CollectiveSpec& spec, const std::vector<collectives::Group>& groups) const;
  /// mesh_.groups(axis), computed once per axis (it walks every chip).
  const std::vector<collectives::Group>& groups_of(int logical_axis);

  const topology::Topology& topo_;
  const topology::DeviceMesh& mesh_;
  network::NetworkSpec net_;
  collectives::ScheduleExecutor& executor_;
  std::map<Key, Result> cache_;
  CommMemo* memo_ = nullptr;
  bool stage_images_ = true;
  /// Whether a collective's first group stands for all its groups (first_stands_for_all), as
  /// timed_by_one_group found it; lowered() takes it instead of routing every group again.
  std::map<Key, bool> stands_for_all_;
  std::uint32_t memo_context_ = 0;
  std::map<int, std::vector<collectives::Group>> groups_;
  std::size_t link_count_;
  int axis_index_[4];  // the mesh's logical axes "tp", "dp", "pp", "dp_replica" (-1: none)
  std::vector<std::uint32_t> link_class_;
  mutable std::unordered_map<std::uint64_t, std::vector<topology::LinkId>> routes_;
  std::size_t class_count_ = 0;
  std::vector<std::string> class_label_;  // "stage 3 · x+", "scale-out up" (between switches)
};

}  // namespace podsim::runtime
