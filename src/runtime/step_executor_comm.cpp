// The executor's communication: each one's bandwidth part shares the links it loads with
// everything else in flight (network::LinkSharing), then it pays its latency; what it takes from
// the compute of its chips (ChipSharing) retimes the compute tasks running there.
#include <cmath>

#include "collectives/collective_spec.hpp"
#include "runtime/step_executor_detail.hpp"

namespace podsim::runtime::detail {

void Executor::schedule_end(core::Simulator& sim, std::size_t s, std::size_t stream_index) {
  StreamState& stream = stages_[s].streams[stream_index];
  stream.version = ++versions_;
  const Progress& w = stream.work;
  const double left = w.rate == 1.0 ? w.left_ps : std::ceil(w.left_ps / w.rate);
  const auto self = static_cast<core::EntityId>(s);
  sim.schedule(end_at(w.since, left, "a compute task"), self, self, kTaskDone, stream_index, stream.version);
}

void Executor::hold_units(const Flight& f, int sign) {
  if (f.units <= 0) return;
  on_chips_of(f, [&](std::size_t s) {
    stages_[s].sharing.hold(f.axis, f.units, sign);
    touch(s);
  });
}

void Executor::set_draw(Flight& f, double draw) {
  if (draw == f.hbm_draw) return;
  on_chips_of(f, [&](std::size_t s) {
    stages_[s].sharing.draw(f.hbm_draw, draw);
    touch(s);
  });
  f.hbm_draw = draw;
}

void Executor::retime(core::Simulator& sim) {
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

void Executor::launch(core::Simulator& sim, std::size_t s, std::uint32_t index, const CommProfile& profile) {
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

void Executor::reschedule(core::Simulator& sim) {
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

void Executor::complete(core::Simulator& sim, std::uint32_t id) {
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

void Executor::add_up(State& st, std::uint8_t field, double value) {
  field_of(st.result, field) += value;
  if (steady_) added_log_.push_back(Added{static_cast<std::uint32_t>(st.index), field, value});
}

const CommProfile& Executor::communicate(const Call& c) {
  if (steady_) calls_log_.push_back(c);
  return c.send ? comm_.send(c.stage, c.peer, c.bytes) : comm_.collective(c.axis, c.op, c.bytes, c.stage, c.peer);
}

}  // namespace podsim::runtime::detail
