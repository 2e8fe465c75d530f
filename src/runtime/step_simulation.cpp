#include "runtime/step_simulation.hpp"

#include <algorithm>
#include <optional>

#include "parallelism/plan_digest.hpp"
#include "parallelism/program_builder.hpp"
#include "runtime/program_bound.hpp"
#include "runtime/short_programs.hpp"

namespace podsim::runtime {

namespace {
/// Runs of a step to reach the host's steady state (two suffice when the host is the
/// bottleneck or never is; the rest covers hosts that are only sometimes behind).
constexpr int kInputSteadyStateRuns = 6;
/// What a step's report derives from its execution: memory, FLOPs, rates.
void add_metrics(StepReport& r, const Scenario& s, const parallelism::StepPlan& plan) {
  r.memory = memory::stage_memory(s.model, s.chip, s.parallel, s.training);
  r.step_s = to_seconds(r.execution.step_ps);
  r.model_flops_per_step = plan.model_flops_per_step;
  for (const auto& st : r.execution.stages) {
    r.hardware_flops_per_step += st.flops * st.multiplicity;
    r.padded_flops_per_step += st.padded_flops * st.multiplicity;
  }
  r.peak_flops = s.chip.peak_flops.at(s.training.precision.compute);
  if (r.step_s > 0) {
    r.tokens_per_s = plan.tokens_per_step / r.step_s;
    r.samples_per_s = s.training.global_batch / r.step_s;
    const double capacity = r.step_s * r.chips * r.peak_flops;
    r.mfu = r.model_flops_per_step / capacity;
    r.hfu = r.hardware_flops_per_step / capacity;
  }
}

}  // namespace

double StepReport::padding_waste() const {
  return padded_flops_per_step > 0 ? 1.0 - hardware_flops_per_step / padded_flops_per_step : 0.0;
}

bool StepReport::fits() const {
  for (const auto& m : memory) {
    if (!m.fits()) return false;
  }
  return true;
}

StepReport simulate_step(const Scenario& s, Recording recording) {
  collectives::SequentialExecutor here;
  return simulate_step(s, here, recording);
}

StepReport simulate_step(const Scenario& s, Recording recording, CommMemo& memo, StepMemo& steps) {
  collectives::SequentialExecutor here;
  return simulate_step(s, here, recording, &memo, Budget::kEnforce, -1, nullptr, &steps);
}

StepReport simulate_step(const Scenario& s, collectives::ScheduleExecutor& executor, Recording recording,
                         CommMemo* memo, Budget budget, SimTime prune_above, const parallelism::StepPlan* built,
                         StepMemo* steps) {
  const auto& eff = s.chip.efficiency;
  const topology::TopologySpec links = topology::with_link_efficiency(s.topology, eff.ici, eff.dcn);
  std::optional<topology::Topology> own_topology;
  const topology::Topology& topo = memo != nullptr ? memo->topology(links) : own_topology.emplace(links);
  parallelism::check_layout(s.model, s.chip, s.parallel, s.training, topo.chips());

  const topology::DeviceMesh mesh(topo, parallelism::mesh_requests(s.parallel));
  // A step read as totals (sweeps, validate; not the planner, which builds its programs for
  // their bound) is built short where it can be (short_programs.hpp) and lengthened as it runs.
  const int step_microbatches = parallelism::microbatches(s.parallel, s.training);
  const bool host_limits = InputPipeline(s.training.input, s.training.micro_batch).limits();
  int held = built == nullptr && recording == Recording::kTotals && prune_above < 0 && !host_limits
                 ? held_microbatches(s.parallel, step_microbatches)
                 : step_microbatches;
  std::optional<parallelism::StepPlan> own;
  const auto build = [&] {
    own.emplace(parallelism::build_step(s.model, s.chip, s.parallel, s.training, parallelism::ComputeRuns::kFused,
                                        held < step_microbatches ? held : 0));
  };
  if (built == nullptr) build();
  if (held < step_microbatches &&
      std::any_of(own->stages.begin(), own->stages.end(), [](const auto& p) { return p.host_bound_ps > 0; })) {
    held = step_microbatches;
    build();
  }
  const parallelism::StepPlan& plan = built != nullptr ? *built : *own;
  StepReport r;
  r.mesh = mesh.describe();
  r.chips = topo.chips();
  r.microbatches = step_microbatches;
  const std::optional<std::uint32_t> context =
      memo != nullptr ? std::optional(memo->context(links, s.network, r.mesh)) : std::nullopt;
  // A step this process executed before, on the same machine, network and placement and with
  // the same programs, is taken as it was (step_memo.hpp), its work budget passed then. Not
  // with a host that limits: its buffer carries from one run of the step to the next.
  std::optional<StepKey> key;
  if (steps != nullptr && context && prune_above < 0 && !host_limits) {
    key = StepKey{memo->generation(), *context, parallelism::digest(plan), step_microbatches - held, recording, budget};
    if (const ExecutedStep* done = steps->find(*key)) {
      r.execution = done->execution;
      r.links = done->links;
      r.simulated_collectives = done->simulated;
      r.contention = done->contention;
      add_metrics(r, s, plan);
      return r;
    }
  }
  NetworkCommModel comm(topo, mesh, s.network, executor);
  if (budget == Budget::kEnforce) {
    // Every group of a stage simulated together first: a bound, since a first group that
    // stands for all only lowers it. Only a step beyond that asks the comm model which
    // collectives one group times, a check that lowers each one's first group on every
    // process; otherwise the process that measures a collective decides it, in parallel.
    CommWork work = estimate_comm_work(plan, topo, mesh, s.network);
    if (over_budget(work, s.network)) {
      work = estimate_comm_work(
          plan, topo, mesh, s.network, [&](parallelism::CommAxis axis, parallelism::CommOp op, double bytes, int stage) {
            return comm.timed_by_one_group(axis, op, bytes, stage, kScheduleBudget);
          });
    }
    if (const auto why = over_budget(work, s.network)) throw BeyondWorkBudget(axis_key(work.largest_axis), *why);
  }
  if (context) comm.share_measurements(*memo, *context);
  comm.prefetch(plan);  // contention-aware: every distinct communication, spread over MPI processes

  if (prune_above >= 0) {
    r.program_bound_ps = program_bound_ps(plan, comm);
    if (r.program_bound_ps > prune_above) {
      r.pruned = true;
      return r;
    }
  }
  // The host in steady state: each step starts with what the previous one left in the
  // buffer. A host that needs longer per step than the chips (microbatches × period ≥ the
  // step from a full buffer) runs without pause, so steady state starts from an empty
  // buffer, the next microbatch one period away; otherwise from a full one. Repeating the
  // step then reaches the fixed point (the host's phase against the step's end repeats);
  // without a host rate one run is exact.
  std::vector<SimTime> carried;
  for (int attempt = 0; attempt < kInputSteadyStateRuns; ++attempt) {
    InputPipeline input(s.training.input, s.training.micro_batch, carried);
    comm.reset_uses();
    r.execution = execute_step(plan, comm, input, recording, Repeats::kSkip, step_microbatches - held);
    if (r.execution.microbatches_added != step_microbatches - held) {  // not lengthened: the whole step
      held = step_microbatches;
      key.reset();  // the result is the whole programs', not those the key names
      build();
      InputPipeline full(s.training.input, s.training.micro_batch, carried);
      comm.reset_uses();
      r.execution = execute_step(*own, comm, full, recording);
    }
    if (!input.limits()) break;
    std::vector<SimTime> next = input.carry_over(r.execution.step_ps, step_microbatches);
    if (attempt == 0 && input.host_ps(step_microbatches) >= r.execution.step_ps) next = input.behind();
    if (next == carried) break;
    carried = std::move(next);
  }
  r.links = comm.link_loads();
  r.simulated_collectives = comm.simulated();
  r.contention = comm.contention_counts();
  if (key) steps->add(*key, ExecutedStep{r.execution, r.links, r.simulated_collectives, r.contention});
  add_metrics(r, s, plan);
  return r;
}

}  // namespace podsim::runtime
