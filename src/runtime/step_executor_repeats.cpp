// The executor's steady state (steady_state.hpp): at each start of a microbatch on stage 0 it
// images its state; where the state is an earlier one moved forward and the programs ahead
// repeat, it moves forward by every period they repeat for instead of simulating them.
#include <cmath>
#include <limits>
#include <optional>

#include "runtime/step_executor_detail.hpp"

namespace podsim::runtime::detail {

namespace {
/// Work in progress as an image: what is left, at what rate, since when.
template <typename Progress>
void image_progress(StateImage& im, const Progress& p) {
  im.real(p.left_ps);
  im.real(p.rate);
  im.time(p.since);
}
}  // namespace

void Executor::steady_state(core::Simulator& sim) {
  snapshot_due_ = false;
  Snapshot now = snapshot(sim);
  if (now.next.empty()) return;  // a stage's compute stream is done: nothing repeats
  for (std::size_t j = snapshots_.size(); j-- > 0;) {
    if (try_repeat(sim, snapshots_[j], now)) {
      snapshots_.clear();
      finished_log_.clear();
      started_log_.clear();
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
  started_log_.erase(started_log_.begin(), started_log_.begin() + static_cast<std::ptrdiff_t>(oldest.started));
  added_log_.erase(added_log_.begin(), added_log_.begin() + static_cast<std::ptrdiff_t>(oldest.added));
  calls_log_.erase(calls_log_.begin(), calls_log_.begin() + static_cast<std::ptrdiff_t>(oldest.calls));
  const std::size_t finished = oldest.finished;  // positions before the shift
  const std::size_t started = oldest.started;
  const std::size_t added = oldest.added;
  const std::size_t calls = oldest.calls;
  for (Snapshot& sn : snapshots_) {
    sn.finished -= finished;
    sn.started -= started;
    sn.added -= added;
    sn.calls -= calls;
  }
}

Executor::Snapshot Executor::snapshot(core::Simulator& sim) const {
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
        image_progress(im, stream.work);
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
    image_progress(im, f.bandwidth);
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
  sn.started = started_log_.size();
  sn.added = added_log_.size();
  sn.calls = calls_log_.size();
  return sn;
}

std::vector<std::uint32_t> Executor::flight_ranks() const {
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

std::vector<char> Executor::idle_flights() const {
  std::vector<char> idle(flights_.size(), 0);
  for (const std::uint32_t id : free_flights_) idle[id] = 1;
  return idle;
}

bool Executor::try_repeat(core::Simulator& sim, const Snapshot& then, const Snapshot& now) {
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
  // Short programs (short_programs.hpp): the step's own programs have `extra` more periods in
  // their repeating middle. Inserted just past what the run has touched, they move everything
  // ahead by `extra` periods there, and nothing before.
  std::int64_t extra = 0;
  if (missing_ > 0) {
    if (shift.messages <= 0 || missing_ % shift.messages != 0) return give_up_lengthening();
    extra = missing_ / shift.messages;
    // Each period must hold whole microbatches: M of them, forward and backward (GPipe's
    // forwards alone repeat too, and would lengthen the step by forwards only).
    for (std::size_t s = 0; s < n; ++s) {
      const double expected = static_cast<double>(shift.messages) * microbatch_flops_[s];
      const double added = now.results[s].flops - then.results[s].flops;
      if (std::abs(added - expected) > 1e-9 * expected) return give_up_lengthening();
    }
  }
  std::int64_t periods = std::numeric_limits<std::int64_t>::max();  // in the step's own programs
  std::int64_t held = periods;                                       // in these
  std::int64_t window = 1;  // periods before the last one's copies lie past all the run touched
  for (std::size_t s = 0; s < n; ++s) {
    const std::int64_t p = period[s];
    const std::int64_t top = high[s];
    // Everything the last period read: its moving streams' tasks and what they waited for.
    const std::uint32_t from = periods_[s].earliest_read(low[s], high[s] + 1);
    if (!finish_times_repeat(s, then, shift, from + period[s], high[s])) return false;
    const std::int64_t until = periods_[s].repeats_until(period[s], shift.messages, from + period[s]);
    if (until + extra * p <= top) return false;
    periods = std::min(periods, (until + extra * p - 1 - top) / p);
    held = std::min(held, until > top ? (until - 1 - top) / p : 0);
    window = std::max(window, (top - from) / p + 1);
    // A stream that waits through the period waits through the copies only while what it
    // waits for is not among what they finish.
    for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
      const StreamState& stream = stages_[s].streams[k];
      if (now.next[s][k] != then.next[s][k] || stream.next == stream.tasks.size()) continue;
      if (stream.busy || stream.blocked_on == kNoTask) return false;
      const auto other = static_cast<std::size_t>(plan_.stages[s].tasks[stream.blocked_on].stream);
      const std::size_t moves = now.next[s][other] - then.next[s][other];
      if (moves == 0) continue;
      const auto copies = static_cast<std::int64_t>((position_[s][stream.blocked_on] - now.next[s][other]) / moves);
      held = std::min(held, copies);
      periods = std::min(periods, copies + (stream.blocked_on > top ? extra : 0));
    }
  }
  // Never past the simulator's horizon (moving forward checks it too).
  const std::int64_t horizon = (kMaxStepPs - now.at) / shift.time;
  periods = std::min(periods, horizon);
  held = std::min(held, horizon);
  if (extra > 0) {
    // Lengthen now by all that is missing and skip what the short programs repeat, as the
    // step's own run would; or by what fits, the rest at a later repeat; or wait for one where
    // it fits.
    if (window > held || periods <= window) return false;
    const std::int64_t in_programs = periods - held >= extra ? held : window;
    const std::int64_t add = std::min(extra, periods - in_programs);
    repeat(sim, then, shift, in_programs, in_programs + add);
    repeated_periods_ += static_cast<std::uint64_t>(in_programs + add);
    missing_ -= static_cast<int>(add * shift.messages);
    added_ += static_cast<int>(add * shift.messages);
    return true;
  }
  if (held < 1) return false;
  repeat(sim, then, shift, held, held);
  repeated_periods_ += static_cast<std::uint64_t>(held);
  return true;
}

bool Executor::give_up_lengthening() {
  missing_ = 0;  // the run goes on as the short programs' own; the caller builds the step's
  steady_ = false;
  return false;
}

bool Executor::finish_times_repeat(std::size_t s, const Snapshot& then, const StateShift& shift, std::uint32_t from,
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

void Executor::repeat(core::Simulator& sim, const Snapshot& then, const StateShift& shift, std::int64_t held,
                      std::int64_t periods) {
  const SimTime by = shift.time * periods;
  const auto tasks_by = [&](std::uint32_t lane) { return static_cast<std::uint32_t>(shift.tasks[lane] * held); };
  const auto messages_by = static_cast<std::uint32_t>(shift.messages * held);
  const std::int64_t extra = periods - held;  // periods the programs do not hold
  for (std::size_t s = 0; s < stages_.size(); ++s) {
    State& st = stages_[s];
    for (std::size_t k = 0; k < parallelism::kStreams; ++k) {
      StreamState& stream = st.streams[k];
      stream.next += static_cast<std::size_t>(held) * (stream.next - then.next[s][k]);
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
  // What each skipped period finished, added up and asked of the comm model, in order. The
  // periods the programs do not hold come first: only the last `held` have tasks to mark.
  for (std::int64_t q = 1; q <= periods; ++q) {
    const std::int64_t in_programs = q - extra;
    for (std::size_t e = then.finished; in_programs >= 1 && e < finished_log_.size(); ++e) {
      const auto [s, i] = finished_log_[e];
      const auto moved = static_cast<std::uint32_t>(shift.tasks[lane_of_task(s, i)] * in_programs);
      stages_[s].finish[i + moved] = stages_[s].finish[i] + shift.time * q;
      recorder_.finished(s, i + moved, stages_[s].finish[i + moved]);
    }
    for (std::size_t e = then.started; in_programs >= 1 && e < started_log_.size(); ++e) {
      // The critical path's records: each start, and its cause moved the same way.
      const auto [s, i] = started_log_[e];
      Cause cause = recorder_.cause_of(s, i);
      if (cause.kind != Cause::Kind::kNone && cause.task != kNoTask) {
        cause.task += static_cast<std::uint32_t>(shift.tasks[lane_of_task(cause.stage, cause.task)] * q);
      }
      if (cause.kind == Cause::Kind::kInput) cause.other_ps += shift.time * q;
      const auto moved = static_cast<std::uint32_t>(shift.tasks[lane_of_task(s, i)] * q);
      recorder_.started(s, i + moved, recorder_.start_of(s, i) + shift.time * q, cause);
    }
    for (std::size_t e = then.added; e < added_log_.size(); ++e) {
      field_of(stages_[added_log_[e].stage].result, added_log_[e].field) += added_log_[e].value;
    }
  }
  // What the comm model counts: each communication once for every period added.
  const auto times = static_cast<std::uint64_t>(periods);
  for (std::size_t e = then.calls; e < calls_log_.size(); ++e) {
    const Call& c = calls_log_[e];
    if (c.send) {
      comm_.repeat_send(c.stage, c.peer, c.bytes, times);
    } else {
      comm_.repeat_collective(c.axis, c.op, c.bytes, c.stage, c.peer, times);
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

}  // namespace podsim::runtime::detail
