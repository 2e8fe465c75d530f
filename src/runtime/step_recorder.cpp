#include "runtime/step_recorder.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace podsim::runtime {

namespace {

using parallelism::TaskKind;

TimeCategory category_of(const parallelism::Task& t) {
  switch (t.kind) {
    case TaskKind::kCompute:
      return compute_category(t.category);
    case TaskKind::kInput:
      return TimeCategory::kInputStall;
    default:
      return comm_category(t.axis);
  }
}

}  // namespace

std::string_view task_operation(const parallelism::Task& t) {
  switch (t.kind) {
    case TaskKind::kCompute:
      switch (t.category) {
        case parallelism::ComputeCategory::kBackward:
          return "backward";
        case parallelism::ComputeCategory::kRecompute:
          return "recompute";
        case parallelism::ComputeCategory::kOptimizer:
          return "optimizer";
        default:
          return "forward";
      }
    case TaskKind::kInput:
      return "host input";
    case TaskKind::kSend:
      return "send";
    case TaskKind::kRecv:
      return "receive";
    case TaskKind::kWait:
      return "wait";
    case TaskKind::kCollective:
      switch (t.op) {
        case parallelism::CommOp::kAllGather:
          return "all-gather";
        case parallelism::CommOp::kReduceScatter:
          return "reduce-scatter";
        case parallelism::CommOp::kSendRecv:
          return "send-recv";
        default:
          return "all-reduce";
      }
  }
  return "task";
}

StepRecorder::StepRecorder(const parallelism::StepPlan& plan, Recording recording)
    : plan_(plan), recording_(recording) {
  if (!keeps_path()) return;
  tasks_.resize(plan.stages.size());
  for (std::size_t s = 0; s < plan.stages.size(); ++s) tasks_[s].resize(plan.stages[s].tasks.size());
}

void StepRecorder::compute_stream(std::size_t stage, TimeCategory category, std::uint32_t task, SimTime from,
                                  SimTime to) {
  if (recording_ != Recording::kTimeline || to <= from) return;
  const std::string_view operation =
      task == kNoTask ? category_name(category) : task_operation(plan_.stages[stage].tasks[task]);
  spans_.push_back(Span{static_cast<std::uint32_t>(stage), parallelism::Stream::kCompute, category, task, operation, from, to});
}

void StepRecorder::message(std::size_t from, std::uint32_t send_task, std::size_t to, SimTime at) {
  if (recording_ != Recording::kTimeline) return;
  flows_.push_back(Flow{static_cast<std::uint32_t>(from), send_task, static_cast<std::uint32_t>(to),
                        tasks_[from][send_task].start, at});
}

void StepRecorder::side_stream(std::size_t stage, parallelism::Stream stream, TimeCategory category, std::uint32_t task,
                               SimTime from, SimTime to) {
  if (recording_ != Recording::kTimeline || to <= from) return;
  spans_.push_back(Span{static_cast<std::uint32_t>(stage), stream, category, task,
                        task_operation(plan_.stages[stage].tasks[task]), from, to});
}

std::vector<PathSegment> StepRecorder::critical_path() const {
  // The task that ends the step.
  std::uint32_t stage = 0;
  std::uint32_t task = kNoTask;
  SimTime end = -1;
  for (std::uint32_t s = 0; s < tasks_.size(); ++s) {
    for (std::uint32_t i = 0; i < tasks_[s].size(); ++i) {
      if (tasks_[s][i].finish > end) {
        end = tasks_[s][i].finish;
        stage = s;
        task = i;
      }
    }
  }
  std::vector<PathSegment> path;
  while (task != kNoTask) {
    const TaskRecord& r = tasks_[stage][task];
    if (r.start < 0 || r.finish < r.start) throw SimulationError("critical path: a task on it never ran");
    const parallelism::Task& t = plan_.stages[stage].tasks[task];
    if (r.finish > r.start) path.push_back(PathSegment{stage, task, category_of(t), task_operation(t), r.start, r.finish});
    switch (r.cause.kind) {
      case Cause::Kind::kNone:
        task = kNoTask;
        break;
      case Cause::Kind::kTask:
        stage = r.cause.stage;
        task = r.cause.task;
        break;
      case Cause::Kind::kInput: {
        // The host made the chip wait from when everything else was ready; before that the
        // chip's own previous task (on its stream) or its dependencies bound it.
        if (r.start > r.cause.other_ps) {
          path.push_back(PathSegment{stage, kNoTask, TimeCategory::kInputStall, "host input", r.cause.other_ps, r.start});
        }
        task = r.cause.task;  // the constraint that ended at other_ps (kNoTask: time 0)
        break;
      }
    }
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace podsim::runtime
