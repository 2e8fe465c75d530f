#include "runtime/step_executor.hpp"

#include <algorithm>
#include <tuple>

#include "runtime/step_executor_detail.hpp"

namespace podsim::runtime {
namespace detail {

Executor::Executor(const parallelism::StepPlan& plan, CommModel& comm, InputPipeline& input, Recording recording,
                   Repeats repeats, int missing)
    : plan_(plan),
      comm_(comm),
      input_(input),
      stages_(plan.stages.size()),
      sharing_(comm.resources()),
      recorder_(plan, recording),
      loads_(recording == Recording::kTimeline ? comm.resources() : 0),
      touched_flag_(plan.stages.size(), 0),
      steady_(repeats == Repeats::kSkip && recording != Recording::kTimeline && !input.limits()),
      missing_(steady_ && recording == Recording::kTotals ? missing : 0) {
  for (std::size_t s = 0; s < stages_.size(); ++s) {
    const auto& program = plan.stages[s];
    State& st = stages_[s];
    st.finish.assign(program.tasks.size(), kNotDone);
    // Each stream's queue is sized first: a large program is not copied as its queues grow.
    std::array<std::size_t, parallelism::kStreams> per_stream{};
    for (const Task& t : program.tasks) ++per_stream[static_cast<std::size_t>(t.stream)];
    for (std::size_t k = 0; k < parallelism::kStreams; ++k) st.streams[k].tasks.reserve(per_stream[k]);
    for (std::uint32_t i = 0; i < program.tasks.size(); ++i) {
      const Task& t = program.tasks[i];
      st.streams[static_cast<std::size_t>(t.stream)].tasks.push_back(Queued{i, t.deps_begin, t.deps_end});
    }
    st.result.stage = program.stage;
    st.index = s;
    st.sharing = ChipSharing(plan.compute_units, plan.hbm_Bps / 1e12, plan.gemm_waves);
    st.result.multiplicity = plan.replicas_per_stage;
    st.result.compute_host_bound_ps = program.host_bound_ps;
  }
  if (missing_ > 0) {
    for (const auto& program : plan.stages) {
      double flops = 0;
      for (const Task& t : program.tasks) {
        if (t.kind == TaskKind::kCompute && t.category != parallelism::ComputeCategory::kOptimizer) flops += t.flops;
      }
      microbatch_flops_.push_back(flops / plan.microbatches);
    }
  }
  if (steady_) {
    for (const auto& program : plan.stages) {
      periods_.emplace_back(program);
      std::vector<std::uint32_t>& place = position_.emplace_back(program.tasks.size());
      std::array<std::uint32_t, parallelism::kStreams> seen{};
      for (std::size_t i = 0; i < program.tasks.size(); ++i) place[i] = seen[static_cast<std::size_t>(program.tasks[i].stream)]++;
    }
  }
}

ExecutionResult Executor::run() {
  core::SequentialSynchronizer sync;
  core::Simulator sim(sync);
  for (std::size_t s = 0; s < stages_.size(); ++s) sim.bind(static_cast<core::EntityId>(s), *this);
  for (std::size_t s = 0; s < stages_.size(); ++s) advance(sim, s);
  snapshot_due_ = false;  // snapshots are taken at the end of an event's handling
  sim.run();
  ExecutionResult out;
  for (const State& st : stages_) {
    for (const auto& stream : st.streams) {
      if (stream.next != stream.tasks.size()) {
        throw SimulationError("pipeline deadlock: stage " + std::to_string(st.result.stage) +
                              " could not finish its program (a schedule waits for a message never sent)");
      }
    }
    out.step_ps = std::max(out.step_ps, st.last_finish);
  }
  const bool pipelined = stages_.size() > 1;
  for (State& st : stages_) {
    // Waiting for the slowest stage: the pipeline's drain (or nothing, without one).
    add(st, pipelined ? TimeCategory::kBubble : TimeCategory::kIdle, st.compute_free_since, out.step_ps);
    out.stages.push_back(st.result);
  }
  out.events = sim.events_processed();
  out.repeated_periods = repeated_periods_;
  out.microbatches_added = added_;
  out.critical_path = recorder_.critical_path();
  out.timeline = recorder_.take_timeline();
  // Per stage and stream, in time order (compute spans are recorded when they end).
  std::stable_sort(out.timeline.begin(), out.timeline.end(), [](const Span& a, const Span& b) {
    return std::tie(a.stage, a.stream, a.start_ps) < std::tie(b.stage, b.stream, b.start_ps);
  });
  out.flows = recorder_.take_flows();
  out.busiest_links = busiest_links(out.step_ps);
  return out;
}

void Executor::record_loads(SimTime now) {
  for (std::uint32_t r = 0; r < loads_.size(); ++r) {
    const double load = sharing_.load(r);
    auto& series = loads_[r];
    if (!series.empty() && series.back().second == load) continue;
    if (!series.empty() && series.back().first == now) {
      series.back().second = load;  // several changes at one instant: the last stands
    } else {
      series.emplace_back(now, load);
    }
  }
}

std::vector<LinkSeries> Executor::busiest_links(SimTime step_ps) {
  std::vector<LinkSeries> all;
  for (std::uint32_t r = 0; r < loads_.size(); ++r) {
    LinkSeries l{comm_.resource_label(r), std::move(loads_[r]), 0};
    for (std::size_t i = 0; i < l.samples.size(); ++i) {
      const SimTime until = i + 1 < l.samples.size() ? l.samples[i + 1].first : step_ps;
      l.busy_ps += l.samples[i].second * static_cast<double>(until - l.samples[i].first);
    }
    if (l.busy_ps > 0) all.push_back(std::move(l));
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.busy_ps > b.busy_ps; });
  if (all.size() > 4) all.resize(4);
  return all;
}

void Executor::handle(core::Simulator& sim, const core::Event& e) {
  const std::size_t s = e.target;
  State& st = stages_[s];
  if (e.kind == kTaskDone) {
    const auto stream_index = static_cast<std::size_t>(e.a);
    StreamState& stream = st.streams[stream_index];
    if (stream.version != e.b) return;  // retimed since: a later event stands for it
    const SimTime now = sim.now();
    const std::uint32_t index = stream.tasks[stream.next].task;  // it runs until it finishes
    add(st, compute_category(stream.category), stream.started, now, index);
    st.result.compute_slowed_ps += now - stream.started - stream.duration_ps;
    finish(s, stream_index, index, now);
    stream.busy = false;
    stream.running_compute = false;
  } else if (e.kind == kMessage) {
    st.messages[static_cast<std::uint32_t>(e.a & 0xFFFF'FFFFu)] =
        Arrival{sim.now(), static_cast<SimTime>(e.b), static_cast<std::uint32_t>(e.a >> 32), e.origin()};
  } else if (e.kind == kBandwidthDone) {
    Flight& f = flights_[e.a];
    if (f.version != e.b) return;  // rescheduled since: a later event stands for it
    // Its bytes are through: it frees its share of the links, then pays its latency.
    sharing_.remove(f.activity);
    f.activity = kNoActivity;
    set_draw(f, 0);
    reschedule(sim);
    sim.schedule(sim.now() + f.latency_ps, static_cast<core::EntityId>(s), static_cast<core::EntityId>(s), kCommDone,
                 e.a);
    return;
  } else if (e.kind == kCommDone) {
    complete(sim, static_cast<std::uint32_t>(e.a));
  }
  advance(sim, s);
  if (snapshot_due_) steady_state(sim);
}

void Executor::finish(std::size_t s, std::size_t stream_index, std::uint32_t index, SimTime now) {
  State& st = stages_[s];
  st.finish[index] = now;
  if (steady_) finished_log_.emplace_back(static_cast<std::uint32_t>(s), index);
  recorder_.finished(s, index, now);
  st.last_finish = std::max(st.last_finish, now);
  StreamState& stream = st.streams[stream_index];
  ++stream.next;
  stream.deps_checked = 0;
  stream.ready_since = kNotDone;
  if (stream_index == static_cast<std::size_t>(Stream::kCompute)) st.compute_free_since = now;
}

void Executor::add(State& st, TimeCategory c, SimTime from, SimTime to, std::uint32_t task) {
  if (to <= from) return;
  st.result.time_ps[static_cast<std::size_t>(c)] += to - from;
  recorder_.compute_stream(st.index, c, task, from, to);
}

void Executor::classify_wait(State& st, const parallelism::StageProgram& program, const Task& t, SimTime now,
                             SimTime recv_issued) {
  const SimTime from = st.compute_free_since;
  if (now <= from) return;
  if (t.kind == TaskKind::kRecv) {
    const SimTime split = std::clamp(recv_issued, from, now);
    add(st, TimeCategory::kBubble, from, split);
    add(st, TimeCategory::kCommPp, split, now);
    return;
  }
  if (t.kind == TaskKind::kInput) {
    add(st, TimeCategory::kInputStall, from, now);
    return;
  }
  // Blocked by whichever dependency finished last.
  SimTime latest = kNotDone;
  const Task* blocker = nullptr;
  for (std::uint32_t k = t.deps_begin; k < t.deps_end; ++k) {
    const std::uint32_t d = program.deps[k];
    if (st.finish[d] > latest) {
      latest = st.finish[d];
      blocker = &program.tasks[d];
    }
  }
  add(st, blocker != nullptr && latest > from ? comm_category(blocker->axis) : TimeCategory::kIdle, from, now);
}

bool Executor::deps_done(const State& st, StreamState& stream, const parallelism::StageProgram& program) const {
  const Queued& head = stream.tasks[stream.next];
  for (std::uint32_t k = head.deps_begin + stream.deps_checked; k < head.deps_end; ++k) {
    if (st.finish[program.deps[k]] == kNotDone) {
      stream.blocked_on = program.deps[k];
      return false;
    }
    ++stream.deps_checked;
  }
  return true;
}

bool Executor::dp_turn(State& st, std::size_t stream_index, std::uint32_t index, SimTime now) {
  StreamState& stream = st.streams[stream_index];
  if (stream.ready_since == kNotDone) stream.ready_since = now;
  const StreamState& other = other_dp_stream(st, stream_index);
  if (other.busy) return false;
  if (other.ready_since == kNotDone || other.next == other.tasks.size()) return true;
  return std::pair(stream.ready_since, index) < std::pair(other.ready_since, other.tasks[other.next].task);
}

SimTime Executor::latest_dep(const State& st, const parallelism::StageProgram& program, const Task& t) const {
  SimTime latest = 0;
  for (std::uint32_t k = t.deps_begin; k < t.deps_end; ++k) latest = std::max(latest, st.finish[program.deps[k]]);
  return latest;
}

Executor::Started Executor::try_start(core::Simulator& sim, std::size_t s, std::size_t stream_index) {
  State& st = stages_[s];
  StreamState& stream = st.streams[stream_index];
  stream.blocked_on = kNoTask;
  const auto& program = plan_.stages[s];
  if (!deps_done(st, stream, program)) return Started::kNo;
  const std::uint32_t index = stream.tasks[stream.next].task;
  const Task& t = program.tasks[index];
  const SimTime now = sim.now();
  const bool shares_communicator = on_dp_communicator(t);
  if (shares_communicator && !dp_turn(st, stream_index, index, now)) return Started::kNo;
  const auto self = static_cast<core::EntityId>(s);
  const bool on_compute = t.stream == Stream::kCompute;
  // What it waited for last: its stream's previous task, or a dependency (time 0: nothing).
  // Only the critical path reads it.
  Cause cause;
  SimTime bound = 0;
  auto consider = [&](std::uint32_t other) {
    if (st.finish[other] > bound || (cause.kind == Cause::Kind::kNone && st.finish[other] == bound && bound > 0)) {
      bound = st.finish[other];
      cause = Cause{Cause::Kind::kTask, static_cast<std::uint32_t>(s), other, 0};
    }
  };
  if (recorder_.keeps_path()) {
    if (stream.next > 0) consider(stream.tasks[stream.next - 1].task);
    for (std::uint32_t k = t.deps_begin; k < t.deps_end; ++k) consider(program.deps[k]);
    if (shares_communicator) {
      // … or the other stream's last collective, which held the communicator.
      const StreamState& other = other_dp_stream(st, stream_index);
      if (other.next > 0) consider(other.tasks[other.next - 1].task);
    }
  }

  switch (t.kind) {
    case TaskKind::kRecv: {
      const auto it = st.messages.find(t.message);
      if (it == st.messages.end()) return Started::kNo;
      if (it->second.at >= bound) {
        cause = Cause{Cause::Kind::kTask, static_cast<std::uint32_t>(t.peer), it->second.sender, 0};
      }
      record_start(s, index, now, cause);
      recorder_.message(static_cast<std::size_t>(t.peer), it->second.sender, s, now);
      classify_wait(st, program, t, now, it->second.issued);
      st.messages.erase(it);
      finish(s, stream_index, index, now);
      return Started::kDone;
    }
    case TaskKind::kInput: {
      const SimTime ready = input_.ready_at(static_cast<int>(t.message));
      if (ready > now) {
        if (st.wake_at != ready) {
          st.wake_at = ready;
          sim.schedule(ready, self, self, kWake);
        }
        return Started::kNo;
      }
      if (ready > bound) {
        cause = Cause{Cause::Kind::kInput, static_cast<std::uint32_t>(s),
                      cause.kind == Cause::Kind::kNone ? kNoTask : cause.task, bound};
      }
      record_start(s, index, now, cause);
      classify_wait(st, program, t, now, 0);
      input_.consumed(static_cast<int>(t.message), now);
      finish(s, stream_index, index, now);
      if (steady_ && s == 0) snapshot_due_ = true;  // a microbatch starts: its state may repeat an earlier one
      return Started::kDone;
    }
    case TaskKind::kWait:
      record_start(s, index, now, cause);
      classify_wait(st, program, t, now, 0);
      finish(s, stream_index, index, now);
      return Started::kDone;
    case TaskKind::kCompute:
      record_start(s, index, now, cause);
      if (on_compute) classify_wait(st, program, t, now, 0);
      add_up(st, kFlops, t.flops);
      add_up(st, kPaddedFlops, t.padded_flops);
      stream.busy = true;
      stream.running_compute = true;
      stream.category = t.category;
      stream.started = now;
      stream.duration_ps = t.duration_ps;
      stream.memory_fraction = parallelism::from_share(t.memory_share);
      stream.gemm_fraction = parallelism::from_gemm_share(t.gemm_share);
      stream.work = Progress{static_cast<double>(t.duration_ps),
                             st.sharing.rate(stream.memory_fraction, stream.gemm_fraction), now};
      schedule_end(sim, s, stream_index);
      return Started::kRunning;
    case TaskKind::kCollective:
      record_start(s, index, now, cause);
      if (on_compute) classify_wait(st, program, t, now, 0);
      launch(sim, s, index, communicate(Call{false, t.axis, t.op, t.bytes, program.stage, t.peer}));
      return Started::kRunning;
    case TaskKind::kSend:
      record_start(s, index, now, cause);
      launch(sim, s, index, communicate(Call{true, t.axis, t.op, t.bytes, program.stage, t.peer}));
      return Started::kRunning;
  }
  return Started::kNo;
}

void Executor::advance(core::Simulator& sim, std::size_t s) {
  bool again = true;
  while (again) {
    again = false;
    for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
      if (may_start(stages_[s], stages_[s].streams[k])) again = try_start(sim, s, k) == Started::kDone || again;
    }
  }
}

}  // namespace detail

ExecutionResult execute_step(const parallelism::StepPlan& plan, CommModel& comm, InputPipeline& input,
                             Recording recording, Repeats repeats, int missing) {
  return detail::Executor(plan, comm, input, recording, repeats, missing).run();
}

ExecutionResult execute_step(const parallelism::StepPlan& plan, CommModel& comm,
                             const parallelism::InputPipelineSpec& input, int micro_batch) {
  InputPipeline pipeline(input, micro_batch);
  return execute_step(plan, comm, pipeline);
}

}  // namespace podsim::runtime
