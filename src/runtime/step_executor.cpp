#include "runtime/step_executor.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "collectives/collective_spec.hpp"
#include "core/simulator.hpp"
#include "runtime/chip_sharing.hpp"
#include "runtime/steady_state.hpp"
#include "util/error.hpp"

namespace podsim::runtime {

namespace {

using parallelism::CommAxis;
using parallelism::CommOp;
using parallelism::Stream;
using parallelism::Task;
using parallelism::TaskKind;

enum EventKind : std::uint32_t { kTaskDone = 1, kMessage = 2, kWake = 3, kBandwidthDone = 4, kCommDone = 5 };
constexpr SimTime kNotDone = -1;

class Executor final : public core::EventHandler {
 public:
  Executor(const parallelism::StepPlan& plan, CommModel& comm, InputPipeline& input, Recording recording,
           Repeats repeats)
      : plan_(plan),
        comm_(comm),
        input_(input),
        stages_(plan.stages.size()),
        sharing_(comm.resources()),
        recorder_(plan, recording),
        loads_(recording == Recording::kTimeline ? comm.resources() : 0),
        touched_flag_(plan.stages.size(), 0),
        steady_(repeats == Repeats::kSkip && recording == Recording::kTotals && !input.limits()) {
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
    if (steady_) {
      for (const auto& program : plan.stages) {
        periods_.emplace_back(program);
        std::vector<std::uint32_t>& place = position_.emplace_back(program.tasks.size());
        std::array<std::uint32_t, parallelism::kStreams> seen{};
        for (std::size_t i = 0; i < program.tasks.size(); ++i) place[i] = seen[static_cast<std::size_t>(program.tasks[i].stream)]++;
      }
    }
  }

  ExecutionResult run() {
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

  /// With the timeline: each link class's load whenever the shared-link solver changes it.
  void record_loads(SimTime now) {
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

  /// The four link classes busiest over the step, for the trace's counter tracks.
  std::vector<LinkSeries> busiest_links(SimTime step_ps) {
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

  void handle(core::Simulator& sim, const core::Event& e) override {
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

 private:
  /// Work that progresses at a rate changing over time — a communication's bandwidth part on
  /// shared links, a compute task beside communication: the work left at `since`, in ps at
  /// full rate.
  struct Progress {
    double left_ps = 0;
    double rate = 1;
    SimTime since = 0;
    /// Takes off the work done at the old rate until `now`; from then on it runs at `to`.
    void change_rate(SimTime now, double to) {
      left_ps = std::max(0.0, left_ps - rate * static_cast<double>(now - since));
      since = now;
      rate = to;
    }
  };

  /// `since` + `left` ps, or a SimulationError naming `what` beyond the simulator's horizon.
  static SimTime end_at(SimTime since, double left, const char* what) {
    if (!(left <= static_cast<double>(kMaxStepPs - since))) {
      throw SimulationError(std::string(what) + " would end beyond the simulator's horizon of 2^60 ps");
    }
    return since + static_cast<SimTime>(left);
  }

  /// A task in its stream's order, with where its dependencies are listed: a blocked stream
  /// checks them without reading the Task (56 bytes, among the other streams' tasks).
  struct Queued {
    std::uint32_t task = 0;
    std::uint32_t deps_begin = 0;  // [deps_begin, deps_end) in StageProgram::deps
    std::uint32_t deps_end = 0;
  };

  struct StreamState {
    std::vector<Queued> tasks;
    std::size_t next = 0;
    bool busy = false;
    /// Dependencies of the head task known to have finished (a prefix of its list): a
    /// stream blocked on a dependency rechecks only from there at each event.
    std::uint32_t deps_checked = 0;
    /// The dependency the head task was last found waiting for (kNoTask: none known): until
    /// it finishes, the stream is blocked without reading the task again.
    std::uint32_t blocked_on = kNoTask;
    /// The compute task it runs: when it started, its category and time alone, its HBM-bound
    /// share, how far it has got (its rate is 1 unless communication beside it takes SMs or HBM
    /// bandwidth, ChipSharing), and the version of its end event (a retimed task's earlier
    /// event is stale). Kept here so that its end does not read the Task again.
    bool running_compute = false;
    parallelism::ComputeCategory category = parallelism::ComputeCategory::kForward;
    SimTime started = 0;
    SimTime duration_ps = 0;
    double memory_fraction = 0;
    double gemm_fraction = 0;
    Progress work;
    std::uint64_t version = 0;
    /// When the head task was first found ready to start (kNotDone: not yet): the order in
    /// which collectives that share a communicator take their turns (StepPlan::dp_serial).
    SimTime ready_since = kNotDone;
  };
  struct Arrival {
    SimTime at = 0;
    SimTime issued = 0;       // when the sender had the data ready
    std::uint32_t sender = 0;  // the send task, in the stage the message came from
    std::uint32_t sender_stage = 0;
  };
  static constexpr network::LinkSharing::ActivityId kNoActivity = 0xFFFF'FFFFu;
  static constexpr std::size_t kNoPeer = ~std::size_t{0};

  /// A communication task in flight: first its bandwidth part, on the shared links at the
  /// rate the solver gives it, then its latency part. It keeps what its end needs of its Task,
  /// so that its end does not read the Task again.
  struct Flight {
    std::size_t stage = 0;
    std::uint32_t task = 0;
    parallelism::Stream stream = parallelism::Stream::kCompute;
    std::uint32_t message = 0;  // a send's message
    SimTime issued = 0;         // a send's data ready: when its last dependency finished
    SimTime start = 0;
    SimTime latency_ps = 0;
    int units = 0;            // compute units it holds on its stage's chips (and a send's peer's)
    parallelism::CommAxis axis = parallelism::CommAxis::kTp;
    std::size_t peer = kNoPeer;  // a send's destination stage, whose chips it occupies too
    double hbm_full = 0;      // HBM bytes per ps it moves on each of those chips at full rate
    double hbm_draw = 0;      // … at its rate now (0 in its latency part)
    Progress bandwidth;       // its bandwidth part on the shared links
    std::uint64_t version = 0;
    network::LinkSharing::ActivityId activity = kNoActivity;
  };

  struct State {
    std::array<StreamState, parallelism::kStreams> streams;
    std::vector<SimTime> finish;
    std::unordered_map<std::uint32_t, Arrival> messages;
    SimTime compute_free_since = 0;
    SimTime last_finish = 0;
    SimTime wake_at = kNotDone;
    std::size_t index = 0;                          // position in stages_
    std::array<int, kCommAxes> in_flight{};         // communications per axis now running
    std::array<SimTime, kCommAxes> busy_since{};    // since when at least one has been
    ChipSharing sharing{0, 0};                      // what communication takes from compute
    StageResult result;
  };

  /// Task `index`, the head of stream `stream_index` of stage `s`, finishes.
  void finish(std::size_t s, std::size_t stream_index, std::uint32_t index, SimTime now) {
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

  /// The compute stream of `st` spent [from, to) in `c` (on task `task`, or waiting).
  void add(State& st, TimeCategory c, SimTime from, SimTime to, std::uint32_t task = kNoTask) {
    if (to <= from) return;
    st.result.time_ps[static_cast<std::size_t>(c)] += to - from;
    recorder_.compute_stream(st.index, c, task, from, to);
  }

  /// Classifies the compute stream's wait before `t` starts at `now`.
  void classify_wait(State& st, const parallelism::StageProgram& program, const Task& t, SimTime now,
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

  /// Whether every dependency of the head of `stream` has finished; resumes where the last
  /// check stopped (finished stays finished).
  bool deps_done(const State& st, StreamState& stream, const parallelism::StageProgram& program) const {
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

  /// Whether `t` is a collective of the data-parallel communicator its gathers and reductions
  /// share when they run one at a time (StepPlan::dp_serial).
  bool on_dp_communicator(const Task& t) const {
    return plan_.dp_serial && t.kind == TaskKind::kCollective &&
           (t.stream == Stream::kDpGather || t.stream == Stream::kDpReduce);
  }

  /// The other of the two streams that share the data-parallel communicator (they carry only
  /// its collectives, so the other being busy means the communicator is).
  static const StreamState& other_dp_stream(const State& st, std::size_t stream_index) {
    const Stream other = stream_index == static_cast<std::size_t>(Stream::kDpGather) ? Stream::kDpReduce : Stream::kDpGather;
    return st.streams[static_cast<std::size_t>(other)];
  }

  /// Whether `t`, ready at the head of `stream`, may take the data-parallel communicator now:
  /// the other stream is not running, and its head has not been waiting longer (a tie goes to
  /// the task built first). NCCL runs a communicator's kernels in the order they were
  /// launched; the framework launches each when it becomes ready.
  static bool dp_turn(State& st, std::size_t stream_index, std::uint32_t index, SimTime now) {
    StreamState& stream = st.streams[stream_index];
    if (stream.ready_since == kNotDone) stream.ready_since = now;
    const StreamState& other = other_dp_stream(st, stream_index);
    if (other.busy) return false;
    if (other.ready_since == kNotDone || other.next == other.tasks.size()) return true;
    return std::pair(stream.ready_since, index) < std::pair(other.ready_since, other.tasks[other.next].task);
  }

  SimTime latest_dep(const State& st, const parallelism::StageProgram& program, const Task& t) const {
    SimTime latest = 0;
    for (std::uint32_t k = t.deps_begin; k < t.deps_end; ++k) latest = std::max(latest, st.finish[program.deps[k]]);
    return latest;
  }

  /// What try_start did with a stream's head task.
  enum class Started {
    kNo,       ///< it cannot start yet
    kRunning,  ///< it started and runs: nothing else can start because of it before it ends
    kDone,     ///< it started and finished at once (receive, input, wait): others may follow
  };

  /// Whether the head task of `stream` may be ready: the stream is idle, has a task left, and
  /// the dependency it was last found waiting for has finished. At most events most streams
  /// are busy or blocked: this check is much cheaper than a call of try_start.
  static bool may_start(const State& st, const StreamState& stream) {
    if (stream.busy || stream.next == stream.tasks.size()) return false;
    return stream.blocked_on == kNoTask || st.finish[stream.blocked_on] != kNotDone;
  }

  /// Starts the head task of `stream` if it can. Precondition: may_start.
  Started try_start(core::Simulator& sim, std::size_t s, std::size_t stream_index) {
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
        recorder_.started(s, index, now, cause);
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
        recorder_.started(s, index, now, cause);
        classify_wait(st, program, t, now, 0);
        input_.consumed(static_cast<int>(t.message), now);
        finish(s, stream_index, index, now);
        if (steady_ && s == 0) snapshot_due_ = true;  // a microbatch starts: its state may repeat an earlier one
       
        return Started::kDone;
      }
      case TaskKind::kWait:
        recorder_.started(s, index, now, cause);
        classify_wait(st, program, t, now, 0);
        finish(s, stream_index, index, now);
        return Started::kDone;
      case TaskKind::kCompute:
        recorder_.started(s, index, now, cause);
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
        recorder_.started(s, index, now, cause);
        if (on_compute) classify_wait(st, program, t, now, 0);
        launch(sim, s, index, communicate(Call{false, t.axis, t.op, t.bytes, program.stage, t.peer}));
        return Started::kRunning;
      case TaskKind::kSend:
        recorder_.started(s, index, now, cause);
        launch(sim, s, index, communicate(Call{true, t.axis, t.op, t.bytes, program.stage, t.peer}));
        return Started::kRunning;
    }
    return Started::kNo;
  }

  /// Schedules the end of the compute task that stream `stream_index` of stage `s` runs, at its
  /// work left over its rate (a new version: an earlier end event goes stale).
  void schedule_end(core::Simulator& sim, std::size_t s, std::size_t stream_index) {
    StreamState& stream = stages_[s].streams[stream_index];
    stream.version = ++versions_;
    const Progress& w = stream.work;
    const double left = w.rate == 1.0 ? w.left_ps : std::ceil(w.left_ps / w.rate);
    const auto self = static_cast<core::EntityId>(s);
    sim.schedule(end_at(w.since, left, "a compute task"), self, self, kTaskDone, stream_index, stream.version);
  }

  /// The stages communication `f` (task `task`) occupies: its own, and for a pipeline send its
  /// peer's too, whose receive kernel runs as long and writes what arrives.
  template <typename Each>
  void on_chips_of(const Flight& f, Each&& each) {
    each(f.stage);
    if (f.peer != kNoPeer) each(f.peer);
  }

  /// Communication `f` takes (`sign` +1) or gives back (−1) its compute units.
  void hold_units(const Flight& f, int sign) {
    if (f.units <= 0) return;
    on_chips_of(f, [&](std::size_t s) {
      stages_[s].sharing.hold(f.axis, f.units, sign);
      touch(s);
    });
  }

  /// Communication `f` now moves `draw` HBM bytes per ps on its chips.
  void set_draw(Flight& f, double draw) {
    if (draw == f.hbm_draw) return;
    on_chips_of(f, [&](std::size_t s) {
      stages_[s].sharing.draw(f.hbm_draw, draw);
      touch(s);
    });
    f.hbm_draw = draw;
  }

  /// Stage `s` must have its running compute retimed (what communication takes changed).
  void touch(std::size_t s) {
    if (touched_flag_[s]) return;
    touched_flag_[s] = 1;
    touched_.push_back(s);
  }

  /// Retimes the running compute tasks of every touched stage, in stage order (deterministic):
  /// each has done its work at its old rate until now and goes on at the new one.
  void retime(core::Simulator& sim) {
    if (touched_.empty()) return;
    if (touched_.size() > 1) std::sort(touched_.begin(), touched_.end());
    const SimTime now = sim.now();
    for (const std::size_t s : touched_) {
      touched_flag_[s] = 0;
      State& st = stages_[s];
      for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
        StreamState& stream = st.streams[k];
        if (!stream.running_compute) continue;
        const double rate = st.sharing.rate(stream.memory_fraction, stream.gemm_fraction);
        if (rate == stream.work.rate) continue;
        stream.work.change_rate(now, rate);
        schedule_end(sim, s, k);
      }
    }
    touched_.clear();
  }

  /// Starts communication task `index` of stage `s` with its profile: its bandwidth part
  /// joins the shared links (or it is pure latency).
  void launch(core::Simulator& sim, std::size_t s, std::uint32_t index, const CommProfile& profile) {
    State& st = stages_[s];
    const Task& t = plan_.stages[s].tasks[index];
    st.streams[static_cast<std::size_t>(t.stream)].busy = true;
    const std::size_t axis = report_axis(t.axis);
    if (st.in_flight[axis]++ == 0) st.busy_since[axis] = sim.now();
    // Bytes each member sends: the nccl-tests bus-bandwidth factor of the op times S.
    const collectives::Op op = t.kind == TaskKind::kSend ? collectives::Op::kSendRecv : collective_op(t.op);
    const auto n = static_cast<std::uint32_t>(comm_.group_size(t.axis));
    add_up(st, static_cast<std::uint8_t>(kCommBytes + axis), t.bytes * collectives::bus_bandwidth_factor(op, n));

    std::uint32_t id;
    if (!free_flights_.empty()) {
      id = free_flights_.back();
      free_flights_.pop_back();
    } else {
      id = static_cast<std::uint32_t>(flights_.size());
      flights_.emplace_back();
    }
    Flight& f = flights_[id];
    f = Flight{};
    f.stage = s;
    f.task = index;
    f.start = sim.now();
    // A collective's own duration is framework time on its stream besides the transfer (the
    // list copies of a per-tensor ZeRO-3 collective): it shares no link, like the latency.
    f.latency_ps = profile.latency_ps + (t.kind == TaskKind::kCollective ? t.duration_ps : 0);
    f.units = plan_.compute_units > 0 ? profile.compute_units : 0;
    f.axis = t.axis;
    f.stream = t.stream;
    f.peer = t.kind == TaskKind::kSend ? static_cast<std::size_t>(t.peer) : kNoPeer;
    if (t.kind == TaskKind::kSend) {
      f.message = t.message;
      f.issued = latest_dep(st, plan_.stages[s], t);
    }
    hold_units(f, +1);
    const auto self = static_cast<core::EntityId>(s);
    if (profile.bandwidth_ps <= 0) {
      retime(sim);
      sim.schedule(sim.now() + f.latency_ps, self, self, kCommDone, id);
      return;
    }
    if (plan_.hbm_Bps > 0) {
      const double sent = t.kind == TaskKind::kSend ? t.bytes : t.bytes * collectives::bus_bandwidth_factor(op, n);
      f.hbm_full = ChipSharing::hbm_bytes(op, sent) / static_cast<double>(profile.bandwidth_ps);
    }
    f.bandwidth = Progress{static_cast<double>(profile.bandwidth_ps), 0, sim.now()};
    f.activity = sharing_.add(profile.uses);
    if (activity_flight_.size() <= f.activity) activity_flight_.resize(f.activity + 1);
    activity_flight_[f.activity] = id;
    reschedule(sim);
  }

  /// Brings every flight whose rate the solver changed up to date and schedules the end of
  /// its bandwidth part anew (the old event is recognised as stale by its version).
  void reschedule(core::Simulator& sim) {
    const SimTime now = sim.now();
    const auto& changed = sharing_.solve();
    if (!loads_.empty()) record_loads(now);
    for (network::LinkSharing::ActivityId a : changed) {
      const std::uint32_t id = activity_flight_[a];
      Flight& f = flights_[id];
      f.bandwidth.change_rate(now, sharing_.rate(a));
      set_draw(f, f.hbm_full * f.bandwidth.rate);
      // Versions are unique over the run: a flight id is reused, and a stale event of its
      // previous occupant must not match.
      f.version = ++versions_;
      const double left = std::ceil(f.bandwidth.left_ps / f.bandwidth.rate);
      const auto self = static_cast<core::EntityId>(f.stage);
      sim.schedule(end_at(now, left, "a communication"), self, self, kBandwidthDone, id, f.version);
    }
    retime(sim);
  }

  /// Flight `id` has delivered: its task finishes (a send's message reaches its peer).
  void complete(core::Simulator& sim, std::uint32_t id) {
    const Flight f = flights_[id];
    free_flights_.push_back(id);
    State& st = stages_[f.stage];
    const SimTime now = sim.now();
    hold_units(f, -1);
    retime(sim);
    const std::size_t axis = report_axis(f.axis);
    if (--st.in_flight[axis] == 0) st.result.comm_busy_ps[axis] += now - st.busy_since[axis];
    if (f.stream == Stream::kCompute) {
      add(st, comm_category(f.axis), f.start, now, f.task);
    } else {
      recorder_.side_stream(f.stage, f.stream, comm_category(f.axis), f.task, f.start, now);
    }
    if (f.peer != kNoPeer) {  // a send
      const auto self = static_cast<core::EntityId>(f.stage);
      sim.schedule(now, self, static_cast<core::EntityId>(f.peer), kMessage, (std::uint64_t{f.task} << 32) | f.message,
                   static_cast<std::uint64_t>(f.issued));
    }
    const auto stream_index = static_cast<std::size_t>(f.stream);
    finish(f.stage, stream_index, f.task, now);
    st.streams[stream_index].busy = false;
  }

  /// Starts what can start on stage `s`'s streams. Only a task that finishes as it starts can
  /// let another stream's head start, so the streams are tried again only after one did.
  void advance(core::Simulator& sim, std::size_t s) {
    bool again = true;
    while (again) {
      again = false;
      for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
        if (may_start(stages_[s], stages_[s].streams[k])) again = try_start(sim, s, k) == Started::kDone || again;
      }
    }
  }


  // --- Steady state (steady_state.hpp) -------------------------------------------------------

  /// What a stage's result adds up in floating point: replayed in order when periods are
  /// skipped, so that the sums are the bits simulating them gives.
  enum : std::uint8_t { kFlops = 0, kPaddedFlops = 1, kCommBytes = 2 };  // kCommBytes + report axis
  struct Added {
    std::uint32_t stage = 0;
    std::uint8_t field = 0;
    double value = 0;
  };
  /// A communication asked of the comm model (which counts what the step used): replayed too.
  struct Call {
    bool send = false;
    CommAxis axis = CommAxis::kTp;
    parallelism::CommOp op = parallelism::CommOp::kAllReduce;
    double bytes = 0;
    int stage = 0;
    int peer = -1;
  };
  /// The executor's state at the start of one of stage 0's microbatches.
  struct Snapshot {
    SimTime at = 0;
    /// Per stage and stream: its position, and the task there (StateImage::kNone: done).
    std::vector<std::array<std::size_t, parallelism::kStreams>> next;
    std::vector<std::array<std::uint32_t, parallelism::kStreams>> head;
    StateImage image;
    std::vector<StageResult> results;
    std::uint64_t events = 0;
    std::size_t finished = 0;  // positions in the logs
    std::size_t added = 0;
    std::size_t calls = 0;
  };
  /// A period of up to 16 of stage 0's microbatches is found: an interleaved pipeline's repeats
  /// every pp microbatches, and its flights' ids may take a few repeats to come round again.
  static constexpr std::size_t kSnapshots = 16;

  /// The lane (StateImage::task) of stream `k` of stage `s`.
  static std::uint32_t lane(std::size_t s, std::size_t k) {
    return static_cast<std::uint32_t>(s * parallelism::kStreams + k);
  }
  std::uint32_t lane_of_task(std::size_t s, std::uint32_t task) const {
    return lane(s, static_cast<std::size_t>(plan_.stages[s].tasks[task].stream));
  }

  double& field_of(StageResult& r, std::uint8_t field) {
    if (field == kFlops) return r.flops;
    if (field == kPaddedFlops) return r.padded_flops;
    return r.comm_bytes[field - kCommBytes];
  }
  void add_up(State& st, std::uint8_t field, double value) {
    field_of(st.result, field) += value;
    if (steady_) added_log_.push_back(Added{static_cast<std::uint32_t>(st.index), field, value});
  }
  const CommProfile& communicate(const Call& c) {
    if (steady_) calls_log_.push_back(c);
    return c.send ? comm_.send(c.stage, c.peer, c.bytes) : comm_.collective(c.axis, c.op, c.bytes, c.stage, c.peer);
  }

  /// Stage 0 has started a microbatch: compares the state with the last few such starts and,
  /// where it repeats one, moves forward by as many periods as the programs repeat.
  void steady_state(core::Simulator& sim) {
    snapshot_due_ = false;
    Snapshot now = snapshot(sim);
   
    if (now.next.empty()) return;  // a stage's compute stream is done: nothing repeats
    for (std::size_t j = snapshots_.size(); j-- > 0;) {
      if (try_repeat(sim, snapshots_[j], now)) {
        snapshots_.clear();
        finished_log_.clear();
        added_log_.clear();
        calls_log_.clear();
        return;
      }
    }
    snapshots_.push_back(std::move(now));
    if (snapshots_.size() > kSnapshots) snapshots_.erase(snapshots_.begin());
    // The logs are kept from the oldest snapshot on.
    const Snapshot& oldest = snapshots_.front();
    finished_log_.erase(finished_log_.begin(), finished_log_.begin() + static_cast<std::ptrdiff_t>(oldest.finished));
    added_log_.erase(added_log_.begin(), added_log_.begin() + static_cast<std::ptrdiff_t>(oldest.added));
    calls_log_.erase(calls_log_.begin(), calls_log_.begin() + static_cast<std::ptrdiff_t>(oldest.calls));
    const Snapshot first = oldest;  // positions before the shift
    for (Snapshot& sn : snapshots_) {
      sn.finished -= first.finished;
      sn.added -= first.added;
      sn.calls -= first.calls;
    }
  }

  /// The state now as an image (empty head: some stage has no compute left).
  Snapshot snapshot(core::Simulator& sim) const {
    Snapshot sn;
    sn.at = sim.now();
    StateImage& im = sn.image;
    const auto compute = static_cast<std::size_t>(Stream::kCompute);
    for (const State& st : stages_) {
      const auto s = static_cast<std::uint32_t>(st.index);
      if (st.streams[compute].next == st.streams[compute].tasks.size()) return Snapshot{};
      auto& next = sn.next.emplace_back();
      auto& head = sn.head.emplace_back();
      for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
        const StreamState& stream = st.streams[k];
        next[k] = stream.next;
        head[k] = stream.next == stream.tasks.size() ? StateImage::kNone : stream.tasks[stream.next].task;
        im.task(lane(s, k), head[k]);
        im.flag(stream.busy);
        im.raw(stream.deps_checked);
        im.task(lane(s, k), stream.blocked_on);
        im.flag(stream.running_compute);
        if (stream.running_compute) {
          im.raw(static_cast<std::uint64_t>(stream.category));
          im.time(stream.started);
          im.raw(static_cast<std::uint64_t>(stream.duration_ps));
          im.real(stream.memory_fraction);
          im.real(stream.gemm_fraction);
          im.real(stream.work.left_ps);
          im.real(stream.work.rate);
          im.time(stream.work.since);
        }
        im.time(stream.ready_since);
      }
      std::vector<std::pair<std::uint32_t, Arrival>> messages(st.messages.begin(), st.messages.end());
      std::sort(messages.begin(), messages.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      im.raw(messages.size());
      for (const auto& [id, arrival] : messages) {
        im.message(id);
        im.time(arrival.at);
        im.time(arrival.issued);
        im.raw(arrival.sender_stage);
        im.task(lane_of_task(arrival.sender_stage, arrival.sender), arrival.sender);
      }
      im.time(st.compute_free_since);
      im.time(st.last_finish);
      im.time(st.wake_at);
      for (std::size_t x = 0; x < kCommAxes; ++x) {
        im.raw(static_cast<std::uint64_t>(st.in_flight[x]));
        if (st.in_flight[x] > 0) im.time(st.busy_since[x]);
      }
      std::vector<std::uint64_t> words;
      st.sharing.append_state(words);
      im.raw_words(words);
      sn.results.push_back(st.result);
    }
    // Flights by stage and stream (one each at most): their ids are handles only, which a
    // period may hand out in another order.
    const std::vector<std::uint32_t> rank = flight_ranks();
    std::vector<std::uint32_t> by_rank;
    for (std::uint32_t id = 0; id < flights_.size(); ++id) {
      if (rank[id] == kNoTask) continue;
      if (by_rank.size() <= rank[id]) by_rank.resize(rank[id] + 1);
      by_rank[rank[id]] = id;
    }
    im.raw(by_rank.size());
    for (const std::uint32_t id : by_rank) {
      const Flight& f = flights_[id];
      const auto stage = static_cast<std::uint32_t>(f.stage);
      im.raw(stage);
      im.task(lane(f.stage, static_cast<std::size_t>(f.stream)), f.task);
      im.raw(static_cast<std::uint64_t>(f.stream));
      if (f.peer != kNoPeer) {
        im.message(f.message);
        im.time(f.issued);
      }
      im.time(f.start);
      im.raw(static_cast<std::uint64_t>(f.latency_ps));
      im.raw(static_cast<std::uint64_t>(f.units));
      im.raw(static_cast<std::uint64_t>(f.axis));
      im.raw(f.peer);
      im.real(f.hbm_full);
      im.real(f.hbm_draw);
      im.real(f.bandwidth.left_ps);
      im.real(f.bandwidth.rate);
      im.time(f.bandwidth.since);
      im.raw(f.activity);
    }
    std::vector<std::uint64_t> words;
    sharing_.append_state(words);
    im.raw_words(words);
    im.raw(touched_.size());
    for (const core::Event& e : sim.pending_events()) {
      im.time(e.time);
      im.raw(e.tie >> 32);  // priority and origin; the sequence only orders what is listed in order
      im.raw(e.target);
      im.raw(e.kind);
      switch (e.kind) {
        case kTaskDone:
          im.raw(e.a);
          im.flag(stages_[e.target].streams[e.a].version == e.b);  // stale or not
          break;
        case kMessage:
          im.task(lane_of_task(e.origin(), static_cast<std::uint32_t>(e.a >> 32)), static_cast<std::uint32_t>(e.a >> 32));
          im.message(e.a & 0xFFFF'FFFFu);
          im.time(static_cast<SimTime>(e.b));
          break;
        case kBandwidthDone:  // a stale one's flight may be gone
          im.raw(flights_[e.a].version == e.b ? rank[e.a] : kNoTask);
          break;
        case kCommDone:
          im.raw(rank[e.a]);
          break;
        default:
          im.raw(e.a);
          break;
      }
    }
    sn.events = sim.events_processed();
    sn.finished = finished_log_.size();
    sn.added = added_log_.size();
    sn.calls = calls_log_.size();
    return sn;
  }

  /// Per flight id: its place among the flights in flight, in (stage, stream) order
  /// (kNoTask: idle).
  std::vector<std::uint32_t> flight_ranks() const {
    const std::vector<char> idle = idle_flights();
    std::vector<std::pair<std::size_t, std::uint32_t>> order;  // (stage · streams + stream, id)
    for (std::uint32_t id = 0; id < flights_.size(); ++id) {
      if (idle[id] == 0) order.emplace_back(lane(flights_[id].stage, static_cast<std::size_t>(flights_[id].stream)), id);
    }
    std::sort(order.begin(), order.end());
    std::vector<std::uint32_t> rank(flights_.size(), kNoTask);
    for (std::uint32_t r = 0; r < order.size(); ++r) rank[order[r].second] = r;
    return rank;
  }

  std::vector<char> idle_flights() const {
    std::vector<char> idle(flights_.size(), 0);
    for (const std::uint32_t id : free_flights_) idle[id] = 1;
    return idle;
  }

  /// Whether `now` is `then` moved forward with the programs ahead repeating; if so, moves
  /// the run forward by every period they repeat for.
  bool try_repeat(core::Simulator& sim, const Snapshot& then, const Snapshot& now) {
    StateShift shift;
    shift.time = now.at - then.at;
    if (shift.time <= 0) return false;
    const std::size_t n = stages_.size();
    const auto compute = static_cast<std::size_t>(Stream::kCompute);
    shift.tasks.assign(n * parallelism::kStreams, 0);
    // Per stage: P (its compute stream's move), and the lowest and highest task its moving
    // streams were at over the period.
    std::vector<std::uint32_t> period(n), low(n), high(n);
    std::optional<std::int64_t> messages;
    for (std::size_t s = 0; s < n; ++s) {
      if (now.head[s][compute] <= then.head[s][compute]) return false;
      period[s] = now.head[s][compute] - then.head[s][compute];
      low[s] = then.head[s][compute];
      high[s] = now.head[s][compute];
      for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
        if (now.next[s][k] == then.next[s][k]) continue;  // waits through the period (or is done)
        if (now.head[s][k] == StateImage::kNone || now.head[s][k] - then.head[s][k] != period[s]) return false;
        shift.tasks[lane(s, k)] = period[s];
        low[s] = std::min(low[s], then.head[s][k]);
        high[s] = std::max(high[s], now.head[s][k]);
      }
      const auto m = periods_[s].message_shift(period[s], low[s]);
      if (m && messages && *m != *messages) return false;
      if (m) messages = m;
    }
    shift.messages = messages.value_or(0);
    if (!moved_by(then.image, now.image, shift)) return false;
    std::int64_t periods = std::numeric_limits<std::int64_t>::max();
    for (std::size_t s = 0; s < n; ++s) {
      const std::uint32_t p = period[s];
      // Everything the last period read: its moving streams' tasks and what they waited for.
      const std::uint32_t from = periods_[s].earliest_read(low[s], high[s] + 1);
      if (!finish_times_repeat(s, then, shift, from + p, high[s])) return false;
      const std::uint32_t until = periods_[s].repeats_until(p, shift.messages, from + p);
      if (until <= high[s]) return false;
      periods = std::min<std::int64_t>(periods, (until - 1 - high[s]) / p);
      // A stream that waits through the period waits through the copies only while what it
      // waits for is not among what they finish.
      for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
        const StreamState& stream = stages_[s].streams[k];
        if (now.next[s][k] != then.next[s][k] || stream.next == stream.tasks.size()) continue;
        if (stream.busy || stream.blocked_on == kNoTask) return false;
        const auto other = static_cast<std::size_t>(plan_.stages[s].tasks[stream.blocked_on].stream);
        const std::size_t moves = now.next[s][other] - then.next[s][other];
        if (moves == 0) continue;
        const std::size_t at = position_[s][stream.blocked_on];
        periods = std::min<std::int64_t>(periods, static_cast<std::int64_t>((at - now.next[s][other]) / moves));
      }
    }
    // Never past the simulator's horizon (moving forward checks it too).
    periods = std::min<std::int64_t>(periods, (kMaxStepPs - now.at) / shift.time);
    if (periods < 1) return false;
    repeat(sim, then, shift, periods);
    repeated_periods_ += static_cast<std::uint64_t>(periods);
    return true;
  }

  /// Whether stage `s`'s tasks [from, to) are finished now exactly when the task P earlier
  /// was at `then`, Δ later.
  bool finish_times_repeat(std::size_t s, const Snapshot& then, const StateShift& shift, std::uint32_t from,
                           std::uint32_t to) const {
    const State& st = stages_[s];
    const auto& tasks = plan_.stages[s].tasks;
    const auto p = static_cast<std::uint32_t>(shift.tasks[lane(s, static_cast<std::size_t>(Stream::kCompute))]);
    for (std::uint32_t i = from; i < to; ++i) {
      const std::uint32_t x = i - p;
      const auto now_stream = static_cast<std::size_t>(tasks[i].stream);
      const auto then_stream = static_cast<std::size_t>(tasks[x].stream);
      const bool done_now = position_[s][i] < st.streams[now_stream].next;
      const bool done_then = position_[s][x] < then.next[s][then_stream];
      if (done_now != done_then) return false;
      if (done_now && st.finish[i] != st.finish[x] + shift.time) return false;
    }
    return true;
  }

  /// Moves the run forward by `periods` repeats of the period since `then`.
  void repeat(core::Simulator& sim, const Snapshot& then, const StateShift& shift, std::int64_t periods) {
    const SimTime by = shift.time * periods;
   
    const auto tasks_by = [&](std::uint32_t lane) { return static_cast<std::uint32_t>(shift.tasks[lane] * periods); };
    const auto messages_by = static_cast<std::uint32_t>(shift.messages * periods);
    for (std::size_t s = 0; s < stages_.size(); ++s) {
      State& st = stages_[s];
      for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
        StreamState& stream = st.streams[k];
        stream.next += static_cast<std::size_t>(periods) * (stream.next - then.next[s][k]);
        if (stream.blocked_on != kNoTask) stream.blocked_on += tasks_by(lane(s, k));
        if (stream.running_compute) {
          stream.started += by;
          stream.work.since += by;
        }
        if (stream.ready_since != kNotDone) stream.ready_since += by;
      }
      st.compute_free_since += by;
      st.last_finish += by;
      if (st.wake_at != kNotDone) st.wake_at += by;
      for (std::size_t x = 0; x < kCommAxes; ++x) {
        if (st.in_flight[x] > 0) st.busy_since[x] += by;
        st.result.comm_busy_ps[x] += periods * (st.result.comm_busy_ps[x] - then.results[s].comm_busy_ps[x]);
      }
      for (std::size_t c = 0; c < st.result.time_ps.size(); ++c) {
        st.result.time_ps[c] += periods * (st.result.time_ps[c] - then.results[s].time_ps[c]);
      }
      st.result.compute_slowed_ps += periods * (st.result.compute_slowed_ps - then.results[s].compute_slowed_ps);
      std::unordered_map<std::uint32_t, Arrival> moved;
      for (auto [id, arrival] : st.messages) {
        arrival.at += by;
        arrival.issued += by;
        arrival.sender += tasks_by(lane_of_task(arrival.sender_stage, arrival.sender));
        moved.emplace(id + messages_by, arrival);
      }
      st.messages = std::move(moved);
    }
    // What each skipped period finished, added up and asked of the comm model, in order.
    for (std::int64_t q = 1; q <= periods; ++q) {
      for (std::size_t e = then.finished; e < finished_log_.size(); ++e) {
        const auto [s, i] = finished_log_[e];
        const auto moved = static_cast<std::uint32_t>(shift.tasks[lane_of_task(s, i)] * q);
        stages_[s].finish[i + moved] = stages_[s].finish[i] + shift.time * q;
      }
      for (std::size_t e = then.added; e < added_log_.size(); ++e) {
        field_of(stages_[added_log_[e].stage].result, added_log_[e].field) += added_log_[e].value;
      }
      for (std::size_t e = then.calls; e < calls_log_.size(); ++e) {
        const Call& c = calls_log_[e];
        (void)(c.send ? comm_.send(c.stage, c.peer, c.bytes) : comm_.collective(c.axis, c.op, c.bytes, c.stage, c.peer));
      }
    }
    const std::vector<char> idle = idle_flights();
    for (std::uint32_t id = 0; id < flights_.size(); ++id) {
      if (idle[id] != 0) continue;
      Flight& f = flights_[id];
      f.start += by;
      f.task += tasks_by(lane(f.stage, static_cast<std::size_t>(f.stream)));
      if (f.peer != kNoPeer) {
        f.issued += by;
        f.message += messages_by;
      }
      f.bandwidth.since += by;
    }
    const std::uint64_t events = static_cast<std::uint64_t>(periods) * (sim.events_processed() - then.events);
    sim.move_forward(by, events, [&](core::Event& e) {
      if (e.kind != kMessage) return;
      const std::uint64_t task = (e.a >> 32) + tasks_by(lane_of_task(e.origin(), static_cast<std::uint32_t>(e.a >> 32)));
      const std::uint64_t message = (e.a & 0xFFFF'FFFFu) + messages_by;
      e.a = task << 32 | message;
      e.b = static_cast<std::uint64_t>(static_cast<SimTime>(e.b) + by);
    });
  }

  const parallelism::StepPlan& plan_;
  CommModel& comm_;
  InputPipeline& input_;
  std::vector<State> stages_;
  network::LinkSharing sharing_;
  StepRecorder recorder_;
  std::vector<Flight> flights_;
  std::vector<std::uint32_t> free_flights_;
  std::vector<std::uint32_t> activity_flight_;  // solver activity → flight
  std::uint64_t versions_ = 0;
  std::vector<std::vector<std::pair<SimTime, double>>> loads_;  // per link class, with the timeline
  std::vector<std::size_t> touched_;   // stages whose compute must be retimed
  std::vector<char> touched_flag_;     // per stage: in touched_
  // Steady state: on with Recording::kTotals and a host that never limits.
  bool steady_ = false;
  bool snapshot_due_ = false;                         // stage 0 has started a microbatch
  std::uint64_t repeated_periods_ = 0;
  std::vector<ProgramPeriods> periods_;               // per stage
  std::vector<std::vector<std::uint32_t>> position_;  // per stage and task: its place in its stream
  std::vector<Snapshot> snapshots_;                   // the last few, oldest first
  std::vector<std::pair<std::uint32_t, std::uint32_t>> finished_log_;  // (stage, task) since the oldest
  std::vector<Added> added_log_;
  std::vector<Call> calls_log_;
};

}  // namespace

ExecutionResult execute_step(const parallelism::StepPlan& plan, CommModel& comm, InputPipeline& input,
                             Recording recording, Repeats repeats) {
  return Executor(plan, comm, input, recording, repeats).run();
}

ExecutionResult execute_step(const parallelism::StepPlan& plan, CommModel& comm,
                             const parallelism::InputPipelineSpec& input, int micro_batch) {
  InputPipeline pipeline(input, micro_batch);
  return execute_step(plan, comm, pipeline);
}

}  // namespace podsim::runtime
