#pragma once

// What the communication of one step will cost to simulate, known from the step's program
// and the machine before any collective is lowered. A step's tasks are bounded before they
// are built (parallelism/work_bounds.hpp); its collectives are where the rest goes: a ring
// all-reduce over 8191 chips is 1.3 × 10^8 transfers (5 GB, minutes), and the contention-
// aware network simulates every group of a stage together. simulate_step refuses a step
// beyond this budget with the estimate, before building it.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "network/network_spec.hpp"
#include "parallelism/parallel_spec.hpp"
#include "parallelism/step_program.hpp"
#include "runtime/scenario.hpp"
#include "topology/device_mesh.hpp"
#include "topology/topology.hpp"

namespace podsim::runtime {

/// Transfers one collective's schedule may hold: about 1.2 GB at the ~48 bytes each
/// (transfer, dependencies, runner state) measured for a 2048-chip ring all-reduce.
inline constexpr double kScheduleBudget = 2.5e7;
/// Estimated seconds of simulating a step's communication on one core: beyond it a step is
/// refused (the step's tasks have a budget of their own, about 15 s).
inline constexpr double kCommSecondsBudget = 60;
/// Measured cost of a transfer simulated (one core, 2026-12-06): 0.30 µs on the analytical
/// network (25 M transfers of six 2048-chip ring collectives in 7.6 s); 1.0 µs on the
/// contention-aware one as flows (1 GiB torus all-reduce on 4096 v4 chips, 1.18 M transfers
/// in 1.04–1.48 s; Llama-2 7B on 199 v5e pods forced to flows, 4.8 × 10^7 in 78 s); as chunks
/// 0.13 µs plus 0.155 µs a chunk (16 chunks: the same all-reduce in 3.1–5.2 s; 5 chunks of
/// 55 KiB: the 199-pod step's data-parallel collectives, 4.8 × 10^7 transfers in 80–92 s)...
inline constexpr double kAnalyticalSecondsPerTransfer = 0.3e-6;
inline constexpr double kChunkedSecondsPerTransfer = 0.13e-6;
inline constexpr double kSecondsPerChunk = 0.155e-6;
inline constexpr double kFlowSecondsPerTransfer = 1.0e-6;
/// ...on machines of up to 2048 chips; on larger ones each transfer costs more, as the
/// machine's links and chips fall out of the caches: (chips / 2048)^0.2 times as much
/// (measured: 0.55 µs a transfer on a 256 × 256 torus, 3.0 M transfers of a dp 1024 × tp 8 ×
/// pp 8 ZeRO-3 step in 1.95 s; 1.1 µs on a 1024 × 1024 torus, 1.7 × 10^8 of dp 16384 in 193 s).
inline constexpr double kCacheChips = 2048;
inline constexpr double kCacheExponent = 0.2;

/// Seconds of simulating one transfer on `net` on a machine of `chips` chips, one core, for a
/// collective whose transfers carry `mean_bytes` on average (flows or chunks, under
/// network.contention auto).
double seconds_per_transfer(const network::NetworkSpec& net, double chips, double mean_bytes);
inline constexpr double kBytesPerTransfer = 48;
/// Seconds per chip of building a simulation's topology and mesh, on one core (`podsim topo`
/// on a 1024 × 1024 torus: 1.6 s for 2^20 chips).
inline constexpr double kSecondsPerChip = 1.6e-6;

/// Seconds per task (parallelism::estimate_work) of a step simulated among many that share
/// their collectives (a plan's layouts, a sweep's points: CommMemo), on one core: fitted on
/// three plans (2026-12-06: Llama-2 7B on 128 v5e, 12.3 s; GPT-3 on 1024 v4, 100.7 s;
/// Llama-2 70B on 1024 H100, 82.3 s), 3.4 times less than one large step's 0.75 µs
/// (parallelism::kSecondsPerTask): their steps are small and their compute runs fused.
inline constexpr double kSecondsPerRepeatedTask = 0.22e-6;

/// Estimated seconds of simulating one step of `s` among many (kSecondsPerRepeatedTask): its
/// topology and mesh, and its program; its collectives are reckoned apart.
double repeated_step_seconds(const Scenario& s);

/// The communication of one step, estimated from its program.
struct CommWork {
  std::size_t collectives = 0;    ///< distinct collectives simulated (what NetworkCommModel caches)
  /// Transfers over all of them, as simulated on the step's network, each weighted by what it
  /// costs against a ring's (collectives::estimate_cost).
  double transfers = 0;
  double largest = 0;             ///< the same of the largest one's schedule
  std::string largest_what;       ///< "dp all-reduce of 64 MiB on 1 group of 8191 chips"
  parallelism::CommAxis largest_axis = parallelism::CommAxis::kDp;  ///< the axis it runs on
  double seconds = 0;             ///< estimated, one core
  double memory_bytes = 0;        ///< of the largest schedule
};

/// Counts the distinct collectives and pipeline messages of `plan` (as NetworkCommModel keys
/// them: axis, operation, size, stage) and the transfers each lowering makes on `topo`'s
/// groups (collectives::estimate_cost: transfers, a tree's weighted): one group on the analytical network, which then
/// maps the loads onto the others, every group of the stage at once on the contention one.
/// `one_group(axis, op, bytes, stage)`, when given, says whether the contention-aware network
/// will time that collective on its first group alone (NetworkCommModel::timed_by_one_group):
/// it then costs one group's transfers.
CommWork estimate_comm_work(
    const parallelism::StepPlan& plan, const topology::Topology& topo, const topology::DeviceMesh& mesh,
    const network::NetworkSpec& net,
    const std::function<bool(parallelism::CommAxis, parallelism::CommOp, double, int)>& one_group = {});

/// Distinct collectives a step simulates per parallelism axis and pipeline stage, for an
/// estimate made before the program is built (measured on the example scenarios: 3 to 6 per
/// stage over all axes).
inline constexpr double kCollectivesPerAxis = 4;
/// The size bound_comm_work times them at: an activation or a gradient bucket (64 MiB).
inline constexpr std::uint64_t kTypicalCollectiveBytes = std::uint64_t{64} << 20;

/// The communication of a layout estimated from its mesh alone, without a program (the
/// planner's estimate of a layout before simulating it): on each axis kCollectivesPerAxis
/// all-reduces of kTypicalCollectiveBytes per stage, and the pipeline's messages; `largest`
/// is a bound, the most any all-reduce on the axis could take (collectives::max_cost).
CommWork bound_comm_work(const topology::Topology& topo, const topology::DeviceMesh& mesh,
                         const network::NetworkSpec& net);

/// Why `work` is beyond kScheduleBudget or kCommSecondsBudget (the estimate, the largest
/// collective, what to change), or nullopt.
std::optional<std::string> over_budget(const CommWork& work, const network::NetworkSpec& net);

/// Whether simulate_step refuses a step beyond the budget (commands' --force ignores it).
enum class Budget { kEnforce, kIgnore };

/// The scenario key that sets the size of `axis`'s groups, for a located refusal.
const char* axis_key(parallelism::CommAxis axis);

/// A step refused for its simulation cost: `key` names the scenario key to change
/// ("parallelism.dp" and the like), the message the estimate.
class BeyondWorkBudget : public parallelism::LayoutError {
 public:
  using LayoutError::LayoutError;
};

}  // namespace podsim::runtime
