#pragma once

// What the executor saw, kept for the people reading a step: its timeline (every interval of
// every stream of every stage's representative chip) and its critical path.
//
// The critical path is read off causes. A task starts the moment its last constraint is met
// — the previous task of its stream, a dependency, a pipeline message from another stage, or
// the host's microbatch — and the executor records which constraint that was. Walking back
// from the task that ends the step along those causes visits tasks whose intervals tile
// [0, step] exactly (a wait on the host adds the host's part), so the path's length is the
// step time. Shortening anything on it by x shortens the step by at most x; shortening what
// is off it, by nothing until another path becomes the longest.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parallelism/step_program.hpp"
#include "runtime/time_category.hpp"
#include "util/sim_time.hpp"

namespace podsim::runtime {

/// Why a task started when it did.
struct Cause {
  enum class Kind : std::uint8_t { kNone, kTask, kInput };
  Kind kind = Kind::kNone;
  std::uint32_t stage = 0;  ///< kTask: the stage of the task it waited for (another one for a message)
  std::uint32_t task = 0;
  SimTime other_ps = 0;     ///< kInput: when every other constraint was met (the host is the rest)
};

/// One interval of a stream of a stage's representative chip.
struct Span {
  std::uint32_t stage = 0;
  parallelism::Stream stream = parallelism::Stream::kCompute;
  TimeCategory category = TimeCategory::kIdle;  ///< what the chip's compute stream was doing, or the comm's axis
  std::uint32_t task = 0;                       ///< the task, or kNoTask for a wait
  std::string_view operation;                   ///< "forward", "all-gather", …; a wait: its category's name
  SimTime start_ps = 0;
  SimTime end_ps = 0;
};
inline constexpr std::uint32_t kNoTask = 0xFFFF'FFFFu;

/// "forward", "backward", "all-gather", "send", "host input", …: what a task does.
std::string_view task_operation(const parallelism::Task& t);

/// A pipeline message: sent by task `send_task` of stage `from_stage` (its send started at
/// `sent_ps`), taken by the compute stream of stage `to_stage` at `taken_ps`. The trace
/// draws it as a flow arrow.
struct Flow {
  std::uint32_t from_stage = 0;
  std::uint32_t send_task = 0;
  std::uint32_t to_stage = 0;
  SimTime sent_ps = 0;
  SimTime taken_ps = 0;
};

/// One piece of the critical path, in time order.
struct PathSegment {
  std::uint32_t stage = 0;
  std::uint32_t task = kNoTask;  ///< kNoTask: waiting for the host
  TimeCategory category = TimeCategory::kIdle;  ///< compute.*, comm.<axis> (its whole time), input_stall
  std::string_view operation;                   ///< "forward", "all-reduce", "send", "host input", …
  SimTime start_ps = 0;
  SimTime end_ps = 0;
};

/// What a step keeps beyond its totals (the time categories, FLOPs, bytes).
enum class Recording : std::uint8_t {
  kTotals,        ///< nothing more (sweeps, the planner, validation: many steps, read as totals)
  kCriticalPath,  ///< each task's start, finish and cause, for the critical path
  kTimeline,      ///< that and every interval of every stream (`podsim run --trace`)
};

class StepRecorder {
 public:
  /// Keeps what `recording` asks for; memory grows with the step's tasks unless kTotals.
  StepRecorder(const parallelism::StepPlan& plan, Recording recording);

  /// Whether started() keeps causes: only then are they worth working out.
  bool keeps_path() const { return recording_ != Recording::kTotals; }
  void started(std::size_t stage, std::uint32_t task, SimTime at, const Cause& cause) {
    if (!keeps_path()) return;
    tasks_[stage][task].start = at;
    tasks_[stage][task].cause = cause;
  }
  void finished(std::size_t stage, std::uint32_t task, SimTime at) {
    if (keeps_path()) tasks_[stage][task].finish = at;
  }
  /// What started() kept (a repeated period copies it: steady_state.hpp).
  SimTime start_of(std::size_t stage, std::uint32_t task) const { return tasks_[stage][task].start; }
  const Cause& cause_of(std::size_t stage, std::uint32_t task) const { return tasks_[stage][task].cause; }
  /// The compute stream of `stage` spent [from, to) in `category` (every category, waits too).
  void compute_stream(std::size_t stage, TimeCategory category, std::uint32_t task, SimTime from, SimTime to);
  /// Stage `to` took the message `send_task` of stage `from` sent, at `at`.
  void message(std::size_t from, std::uint32_t send_task, std::size_t to, SimTime at);
  /// A communication task ran on a stream other than compute over [from, to).
  void side_stream(std::size_t stage, parallelism::Stream stream, TimeCategory category, std::uint32_t task,
                   SimTime from, SimTime to);

  /// The path back from the task that finished last (the lowest stage on a tie); empty under
  /// Recording::kTotals.
  std::vector<PathSegment> critical_path() const;
  std::vector<Span> take_timeline() { return std::move(spans_); }
  std::vector<Flow> take_flows() { return std::move(flows_); }

 private:
  struct TaskRecord {
    SimTime start = -1;
    SimTime finish = -1;
    Cause cause;
  };

  const parallelism::StepPlan& plan_;
  Recording recording_;
  std::vector<std::vector<TaskRecord>> tasks_;  // per stage, per task
  std::vector<Span> spans_;
  std::vector<Flow> flows_;
};

}  // namespace podsim::runtime
