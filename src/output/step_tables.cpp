#include "output/step_tables.hpp"

#include <algorithm>

#include "hardware/dtype.hpp"
#include "runtime/time_to_train.hpp"

namespace podsim::output {

namespace {

using runtime::TimeCategory;

}  // namespace

std::size_t fullest_stage(const runtime::StepReport& r) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < r.memory.size(); ++i) {
    if (r.memory[i].total > r.memory[best].total) best = i;
  }
  return best;
}

BusiestLink busiest_link(const runtime::StepReport& r) {
  BusiestLink b;
  for (std::size_t id = 0; id < r.links.size(); ++id) {
    const double u = r.step_s > 0 ? to_seconds(r.links[id].busy_ps) / r.step_s : 0.0;
    if (u > b.utilization) {
      b.utilization = u;
      b.link = static_cast<topology::LinkId>(id);
    }
  }
  return b;
}

double overlapped_s(const runtime::StageResult& st, TimeCategory exposed, std::size_t axis) {
  return to_seconds(std::max<SimTime>(0, st.comm_busy_ps[axis] - st.time_ps[static_cast<std::size_t>(exposed)]));
}

std::size_t pacing_stage(const runtime::StepReport& report) {
  std::size_t best = 0;
  SimTime best_compute = -1;
  for (std::size_t i = 0; i < report.execution.stages.size(); ++i) {
    const auto& t = report.execution.stages[i].time_ps;
    const SimTime compute = t[0] + t[1] + t[2] + t[3];
    if (compute > best_compute) {
      best_compute = compute;
      best = i;
    }
  }
  return best;
}


Table summary_table(const runtime::Scenario& s, const runtime::StepReport& r, const RunLabels& labels) {
  Table sum;
  sum.name = "summary";
  sum.description = "one simulated training step: the scenario's parameters and metrics";
  auto text = [&](const char* n, const std::string& v) { sum.add_text(n).texts().push_back(v); };
  auto integer = [&](const char* n, const char* unit, std::int64_t v) { sum.add_int(n, unit).ints().push_back(v); };
  auto real = [&](const char* n, const char* unit, double v) { sum.add_real(n, unit).reals().push_back(v); };
  text("scenario", labels.scenario);
  text("model", s.model.name);
  text("hardware", s.chip.name);
  text("topology", s.topology.name);
  text("mesh", r.mesh);
  text("network", network::fidelity_name(s.network.fidelity));
  integer("chips", "1", r.chips);
  integer("dp", "1", s.parallel.dp);
  integer("tp", "1", s.parallel.tp);
  integer("pp", "1", s.parallel.pp);
  text("schedule", parallelism::schedule_name(s.parallel.schedule));
  integer("virtual_stages", "1", s.parallel.virtual_stages);
  integer("zero", "1", s.parallel.zero);
  integer("zero_group", "1", parallelism::zero_state_group(s.parallel));
  integer("sequence_parallel", "1", s.parallel.sequence_parallel ? 1 : 0);
  integer("global_batch", "1", s.training.global_batch);
  integer("micro_batch", "1", s.training.micro_batch);
  integer("microbatches", "1", r.microbatches);
  integer("seq_len", "1", s.training.seq_len);
  text("recompute", parallelism::recompute_name(s.training.recompute));
  text("compute_dtype", std::string(hardware::dtype_name(s.training.precision.compute)));
  real("step_time_s", "s", r.step_s);
  real("tokens_per_s", "1/s", r.tokens_per_s);
  real("samples_per_s", "1/s", r.samples_per_s);
  real("mfu", "1", r.mfu);
  real("hfu", "1", r.hfu);
  real("model_flops", "FLOP", r.model_flops_per_step);
  real("hardware_flops", "FLOP", r.hardware_flops_per_step);
  real("padding_waste", "1", r.padding_waste());
  real("memory_peak_bytes", "B", r.memory.empty() ? 0.0 : r.memory[fullest_stage(r)].total);
  real("hbm_capacity_bytes", "B", s.chip.hbm_capacity_bytes - s.chip.hbm_reserved_bytes);  // usable HBM
  integer("fits_in_memory", "1", r.fits() ? 1 : 0);
  real("busiest_link_utilization", "1", busiest_link(r).utilization);
  integer("representatives", "1", static_cast<std::int64_t>(r.execution.stages.size()));
  integer("events", "1", static_cast<std::int64_t>(r.execution.events));
  // Only on the contention-aware network: how its communications were simulated.
  if (s.network.fidelity == network::Fidelity::kContention) {
    integer("comms_as_flows", "1", static_cast<std::int64_t>(r.contention.flows));
    integer("comms_as_chunks", "1", static_cast<std::int64_t>(r.contention.chunks));
    integer("comms_on_one_group", "1", static_cast<std::int64_t>(r.contention.one_group));
    integer("comms_renamed", "1", static_cast<std::int64_t>(r.contention.renamed));
  }
  // Only when the scenario gives training.tokens: a run without them writes what it did before.
  if (const auto t = runtime::time_to_train(s.training, r.tokens_per_s, r.chips)) {
    real("tokens_to_train", "1", t->tokens);
    real("time_to_train_s", "s", t->total_s);
    real("time_to_train_ideal_s", "s", t->ideal_s);
    if (t->with_failures) {
      real("checkpoint_time_s", "s", t->checkpoints_s);
      real("failure_time_s", "s", t->failures_s);
      real("checkpoint_interval_s", "s", t->interval_s);
      real("job_mtbf_s", "s", t->job_mtbf_s);
    }
  }
  return sum;
}

Table breakdown_table(const runtime::StepReport& r) {
  Table br;
  br.name = "breakdown";
  br.description = "one row per pipeline stage; every chip of the stage (multiplicity) behaves the same; "
                   "the *_s categories sum to step_time_s";
  br.add_int("stage", "1");
  br.add_int("multiplicity", "1");
  for (std::size_t c = 0; c < runtime::kCategories; ++c) {
    br.add_real(std::string(runtime::category_column(static_cast<TimeCategory>(c))), "s");
  }
  br.add_real("total_s", "s");
  br.add_real("overlapped_dp_s", "s");
  br.add_real("overlapped_pp_s", "s");
  br.add_real("compute_slowed_s", "s");
  br.add_real("compute_host_bound_s", "s");
  br.add_real("bytes_tp", "B");
  br.add_real("bytes_dp", "B");
  br.add_real("bytes_pp", "B");
  br.add_real("bytes_other", "B");
  br.add_real("flops", "FLOP");
  br.add_real("padded_flops", "FLOP");
  for (const auto& st : r.execution.stages) {
    br.ints("stage").push_back(st.stage);
    br.ints("multiplicity").push_back(st.multiplicity);
    SimTime total = 0;
    for (std::size_t c = 0; c < runtime::kCategories; ++c) {
      br.reals(runtime::category_column(static_cast<TimeCategory>(c))).push_back(to_seconds(st.time_ps[c]));
      total += st.time_ps[c];
    }
    br.reals("total_s").push_back(to_seconds(total));
    br.reals("overlapped_dp_s").push_back(overlapped_s(st, TimeCategory::kCommDp, 1));
    br.reals("overlapped_pp_s").push_back(overlapped_s(st, TimeCategory::kCommPp, 2));
    br.reals("compute_slowed_s").push_back(to_seconds(st.compute_slowed_ps));
    br.reals("compute_host_bound_s").push_back(to_seconds(st.compute_host_bound_ps));
    br.reals("bytes_tp").push_back(st.comm_bytes[0]);
    br.reals("bytes_dp").push_back(st.comm_bytes[1]);
    br.reals("bytes_pp").push_back(st.comm_bytes[2]);
    br.reals("bytes_other").push_back(st.comm_bytes[3]);
    br.reals("flops").push_back(st.flops);
    br.reals("padded_flops").push_back(st.padded_flops);
  }
  return br;
}

Table memory_table(const runtime::StepReport& r) {
  Table mem;
  mem.name = "memory";
  mem.description = "one row per pipeline stage: HBM one chip of the stage needs";
  mem.add_int("stage", "1");
  mem.add_int("multiplicity", "1");
  for (const char* c : {"weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "temporary_bytes",
                        "total_bytes", "capacity_bytes"}) {
    mem.add_real(c, "B");
  }
  mem.add_int("fits", "1");
  mem.add_real("offloaded_bytes", "B");
  for (std::size_t i = 0; i < r.memory.size(); ++i) {
    const auto& m = r.memory[i];
    mem.ints("stage").push_back(static_cast<std::int64_t>(i));
    mem.ints("multiplicity").push_back(r.execution.stages[i].multiplicity);
    mem.reals("weights_bytes").push_back(m.weights);
    mem.reals("gradients_bytes").push_back(m.gradients);
    mem.reals("optimizer_bytes").push_back(m.optimizer);
    mem.reals("activations_bytes").push_back(m.activations);
    mem.reals("temporary_bytes").push_back(m.temporary);
    mem.reals("total_bytes").push_back(m.total);
    mem.reals("capacity_bytes").push_back(m.capacity);
    mem.ints("fits").push_back(m.fits() ? 1 : 0);
    mem.reals("offloaded_bytes").push_back(m.offloaded);
  }
  return mem;
}

std::vector<Table> step_tables(const runtime::Scenario& s, const runtime::StepReport& r, const topology::Topology& topo,
                               const RunLabels& labels) {
  std::vector<Table> tables;
  tables.push_back(summary_table(s, r, labels));

  tables.push_back(breakdown_table(r));

  tables.push_back(memory_table(r));

  Table links;
  links.name = "links";
  links.description = "one row per directed link that carried traffic during the step, every group of every "
                      "axis; links are shared by whatever is in flight, so utilization <= 1 (docs/runtime.md)";
  links.add_int("link", "1");
  links.add_int("src", "1");
  links.add_int("dst", "1");
  links.add_text("axis");
  links.add_text("tier");
  links.add_real("bytes", "B");
  links.add_real("busy_s", "s");
  links.add_real("utilization", "1");
  for (std::size_t id = 0; id < r.links.size(); ++id) {
    const auto& load = r.links[id];
    if (load.bytes <= 0) continue;
    const auto& l = topo.link(static_cast<topology::LinkId>(id));
    links.ints("link").push_back(static_cast<std::int64_t>(id));
    links.ints("src").push_back(l.src);
    links.ints("dst").push_back(l.dst);
    links.texts("axis").push_back(topology::link_label(topo, static_cast<topology::LinkId>(id)));
    links.texts("tier").emplace_back(topology::tier_name(l.tier));
    links.reals("bytes").push_back(load.bytes);
    links.reals("busy_s").push_back(to_seconds(load.busy_ps));
    links.reals("utilization").push_back(r.step_s > 0 ? to_seconds(load.busy_ps) / r.step_s : 0.0);
  }
  tables.push_back(std::move(links));

  Table path;
  path.name = "critical_path";
  path.description = "the chain of tasks (and host waits) that sets the step, in time order: each starts when the "
                     "one before it ends, from 0 to step_time_s; shortening one by x shortens the step by at most x "
                     "(docs/runtime.md)";
  path.add_int("stage", "1");
  path.add_text("category");
  path.add_text("operation");
  path.add_real("start_s", "s");
  path.add_real("end_s", "s");
  path.add_real("duration_s", "s");
  for (const auto& seg : r.execution.critical_path) {
    path.ints("stage").push_back(r.execution.stages[seg.stage].stage);
    path.texts("category").push_back(std::string(runtime::category_name(seg.category)));
    path.texts("operation").push_back(std::string(seg.operation));
    path.reals("start_s").push_back(to_seconds(seg.start_ps));
    path.reals("end_s").push_back(to_seconds(seg.end_ps));
    path.reals("duration_s").push_back(to_seconds(seg.end_ps - seg.start_ps));
  }
  tables.push_back(std::move(path));

  if (!r.execution.timeline.empty()) {
    // Recorded only when asked for (`podsim run --trace` or `--timeline`): every interval.
    Table tl;
    tl.name = "timeline";
    tl.description = "every interval of every stream of each stage's representative chip (what --trace draws); per "
                     "stage the compute stream's intervals tile [0, step_time_s] and sum per category to /breakdown";
    tl.add_int("stage", "1");
    tl.add_text("stream");
    tl.add_text("category");
    tl.add_text("operation");
    tl.add_int("task", "1");
    tl.add_real("start_s", "s");
    tl.add_real("end_s", "s");
    tl.add_real("duration_s", "s");
    for (const auto& sp : r.execution.timeline) {
      tl.ints("stage").push_back(r.execution.stages[sp.stage].stage);
      tl.texts("stream").emplace_back(parallelism::stream_name(sp.stream));
      tl.texts("category").emplace_back(runtime::category_name(sp.category));
      tl.texts("operation").emplace_back(sp.operation);
      tl.ints("task").push_back(sp.task == runtime::kNoTask ? -1 : static_cast<std::int64_t>(sp.task));
      tl.reals("start_s").push_back(to_seconds(sp.start_ps));
      tl.reals("end_s").push_back(to_seconds(sp.end_ps));
      tl.reals("duration_s").push_back(to_seconds(sp.end_ps - sp.start_ps));
    }
    tables.push_back(std::move(tl));
  }
  return tables;
}

}  // namespace podsim::output
