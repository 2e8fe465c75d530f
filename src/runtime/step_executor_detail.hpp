#pragma once

// The step executor (execute_step, step_executor.hpp) as one class in three files:
// step_executor.cpp starts tasks and classifies the compute stream's time,
// step_executor_comm.cpp moves communication over the shared links and retimes the compute
// beside it, step_executor_repeats.cpp adds repeated microbatches instead of simulating them
// (steady_state.hpp). Nothing outside those files uses this header.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/simulator.hpp"
#include "network/link_sharing.hpp"
#include "runtime/chip_sharing.hpp"
#include "runtime/steady_state.hpp"
#include "runtime/step_executor.hpp"
#include "util/error.hpp"

namespace podsim::runtime::detail {

using parallelism::CommAxis;
using parallelism::CommOp;
using parallelism::Stream;
using parallelism::Task;
using parallelism::TaskKind;

enum EventKind : std::uint32_t { kTaskDone = 1, kMessage = 2, kWake = 3, kBandwidthDone = 4, kCommDone = 5 };
inline constexpr SimTime kNotDone = -1;

class Executor final : public core::EventHandler {
 public:
  Executor(const parallelism::StepPlan& plan, CommModel& comm, InputPipeline& input, Recording recording,
           Repeats repeats, int missing = 0);

  ExecutionResult run();

  /// With the timeline: each link class's load whenever the shared-link solver changes it.
  void record_loads(SimTime now);

  /// The four link classes busiest over the step, for the trace's counter tracks.
  std::vector<LinkSeries> busiest_links(SimTime step_ps);

  void handle(core::Simulator& sim, const core::Event& e) override;

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
  void finish(std::size_t s, std::size_t stream_index, std::uint32_t index, SimTime now);

  /// The compute stream of `st` spent [from, to) in `c` (on task `task`, or waiting).
  void add(State& st, TimeCategory c, SimTime from, SimTime to, std::uint32_t task = kNoTask);

  /// Classifies the compute stream's wait before `t` starts at `now`.
  void classify_wait(State& st, const parallelism::StageProgram& program, const Task& t, SimTime now,
                     SimTime recv_issued);

  /// Whether every dependency of the head of `stream` has finished; resumes where the last
  /// check stopped (finished stays finished).
  bool deps_done(const State& st, StreamState& stream, const parallelism::StageProgram& program) const;

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
  static bool dp_turn(State& st, std::size_t stream_index, std::uint32_t index, SimTime now);

  SimTime latest_dep(const State& st, const parallelism::StageProgram& program, const Task& t) const;

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
  /// The recorder keeps that task `index` of stage `s` started at `now` for `cause`.
  void record_start(std::size_t s, std::uint32_t index, SimTime now, const Cause& cause) {
    recorder_.started(s, index, now, cause);
    if (steady_ && recorder_.keeps_path()) started_log_.emplace_back(static_cast<std::uint32_t>(s), index);
  }
  Started try_start(core::Simulator& sim, std::size_t s, std::size_t stream_index);

  /// Schedules the end of the compute task that stream `stream_index` of stage `s` runs, at its
  /// work left over its rate (a new version: an earlier end event goes stale).
  void schedule_end(core::Simulator& sim, std::size_t s, std::size_t stream_index);

  /// The stages communication `f` (task `task`) occupies: its own, and for a pipeline send its
  /// peer's too, whose receive kernel runs as long and writes what arrives.
  template <typename Each>
  void on_chips_of(const Flight& f, Each&& each) {
    each(f.stage);
    if (f.peer != kNoPeer) each(f.peer);
  }

  /// Communication `f` takes (`sign` +1) or gives back (−1) its compute units.
  void hold_units(const Flight& f, int sign);

  /// Communication `f` now moves `draw` HBM bytes per ps on its chips.
  void set_draw(Flight& f, double draw);

  /// Stage `s` must have its running compute retimed (what communication takes changed).
  void touch(std::size_t s) {
    if (touched_flag_[s]) return;
    touched_flag_[s] = 1;
    touched_.push_back(s);
  }

  /// Retimes the running compute tasks of every touched stage, in stage order (deterministic):
  /// each has done its work at its old rate until now and goes on at the new one.
  void retime(core::Simulator& sim);

  /// Starts communication task `index` of stage `s` with its profile: its bandwidth part
  /// joins the shared links (or it is pure latency).
  void launch(core::Simulator& sim, std::size_t s, std::uint32_t index, const CommProfile& profile);

  /// Brings every flight whose rate the solver changed up to date and schedules the end of
  /// its bandwidth part anew (the old event is recognised as stale by its version).
  void reschedule(core::Simulator& sim);

  /// Flight `id` has delivered: its task finishes (a send's message reaches its peer).
  void complete(core::Simulator& sim, std::uint32_t id);

  /// Starts what can start on stage `s`'s streams. Only a task that finishes as it starts can
  /// let another stream's head start, so the streams are tried again only after one did.
  void advance(core::Simulator& sim, std::size_t s);


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
    std::size_t started = 0;
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
  void add_up(State& st, std::uint8_t field, double value);
  const CommProfile& communicate(const Call& c);

  /// Stage 0 has started a microbatch: compares the state with the last few such starts and,
  /// where it repeats one, moves forward by as many periods as the programs repeat.
  void steady_state(core::Simulator& sim);

  /// The state now as an image (empty `next`: some stage has no compute left).
  Snapshot snapshot(core::Simulator& sim) const;

  /// Per flight id: its place among the flights in flight, in (stage, stream) order
  /// (kNoTask: idle).
  std::vector<std::uint32_t> flight_ranks() const;

  std::vector<char> idle_flights() const;

  /// Whether `now` is `then` moved forward with the programs ahead repeating; if so, moves
  /// the run forward by every period they repeat for.
  bool try_repeat(core::Simulator& sim, const Snapshot& then, const Snapshot& now);

  /// Short programs that cannot be lengthened: the run goes on without repeats (its result is
  /// not the step's, microbatches_added less than asked). Returns false.
  bool give_up_lengthening();

  /// Whether stage `s`'s tasks [from, to) are finished now exactly when the task P earlier
  /// was at `then`, Δ later.
  bool finish_times_repeat(std::size_t s, const Snapshot& then, const StateShift& shift, std::uint32_t from,
                           std::uint32_t to) const;

  /// Moves the run forward by `periods` repeats of the period since `then`: in time, sums and
  /// counts; in task and message numbers by `held` of them (fewer when the step is lengthened
  /// beyond its programs, `missing_`).
  void repeat(core::Simulator& sim, const Snapshot& then, const StateShift& shift, std::int64_t held,
              std::int64_t periods);

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
  // Steady state: on without a timeline and with a host that never limits.
  bool steady_ = false;
  bool snapshot_due_ = false;                         // stage 0 has started a microbatch
  std::uint64_t repeated_periods_ = 0;
  // Short programs (execute_step's `missing`): microbatches still to add at repeats, and those
  // added.
  int missing_ = 0;
  int added_ = 0;
  // Per stage: the FLOPs of one microbatch (all but the optimizer's, over the microbatches the
  // programs hold). A period that lengthens the step must hold whole microbatches of them.
  std::vector<double> microbatch_flops_;
  std::vector<ProgramPeriods> periods_;               // per stage
  std::vector<std::vector<std::uint32_t>> position_;  // per stage and task: its place in its stream
  std::vector<Snapshot> snapshots_;                   // the last few, oldest first
  std::vector<std::pair<std::uint32_t, std::uint32_t>> finished_log_;  // (stage, task) since the oldest
  std::vector<std::pair<std::uint32_t, std::uint32_t>> started_log_;   // … with the critical path kept
  std::vector<Added> added_log_;
  std::vector<Call> calls_log_;
};

}  // namespace podsim::runtime::detail
